package fasthttprpc_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/client"
	"github.com/jsonrpc-go/jsonrpc/fasthttprpc"
	"github.com/jsonrpc-go/jsonrpc/internal/demo"
	"github.com/jsonrpc-go/jsonrpc/internal/leaktest"
	"github.com/jsonrpc-go/jsonrpc/transport"
)

// fasthttpBackground are fasthttp's goroutines that outlive a server: the
// clock of the Date header, and the worker pool's cleaner, which sleeps out
// its interval after a shutdown.
var fasthttpBackground = []string{"fasthttp.updateServerDate", "fasthttp.(*workerPool).Start"}

// serve starts a fasthttp.Server on loopback for h and returns its URL; it
// is shut down when the test ends.
func serve(t *testing.T, h fasthttp.RequestHandler, configure ...func(*fasthttp.Server)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &fasthttp.Server{Handler: h, ReadTimeout: 10 * time.Second, Logger: quiet{}}
	for _, c := range configure {
		c(s)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.Serve(ln)
	}()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := s.ShutdownWithContext(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
		<-done
	})
	return "http://" + ln.Addr().String()
}

// quiet discards fasthttp's log.
type quiet struct{}

func (quiet) Printf(string, ...any) {}

type answer struct {
	status int
	header http.Header
	body   string
}

func do(t *testing.T, method, url, contentType, body string) answer {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return answer{resp.StatusCode, resp.Header, string(b)}
}

func TestAnswers(t *testing.T) {
	leaktest.CheckIgnoring(t, fasthttpBackground...)
	h := &fasthttprpc.Handler{Server: demo.NewServer()}
	url := serve(t, h.ServeFastHTTP, func(s *fasthttp.Server) {
		s.MaxRequestBodySize = 4096
		s.ErrorHandler = h.ErrorHandler
	})

	for _, tc := range []struct {
		name, method, contentType, body string
		status                          int
		want                            string // the body, exactly
		header                          map[string]string
	}{
		{"call", "POST", "application/json", `{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`,
			200, `{"jsonrpc":"2.0","result":3,"id":1}`, map[string]string{"Content-Type": "application/json"}},
		{"named params", "POST", "application/json; charset=utf-8",
			`{"jsonrpc":"2.0","method":"subtract","params":{"minuend":42,"subtrahend":23},"id":"x"}`,
			200, `{"jsonrpc":"2.0","result":19,"id":"x"}`, nil},
		{"batch", "POST", "application/json-rpc",
			`[{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1},{"jsonrpc":"2.0","method":"nope","id":2}]`,
			200, `[{"jsonrpc":"2.0","result":3,"id":1},{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found","data":"nope"},"id":2}]`, nil},
		{"parse error", "POST", "application/json", `{"jsonrpc":"2.0","method":`,
			200, `{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"},"id":null}`, nil},
		{"empty batch", "POST", "application/json", `[]`,
			200, `{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request"},"id":null}`, nil},
		{"notification", "POST", "application/json", `{"jsonrpc":"2.0","method":"add","params":[1,2]}`,
			204, ``, nil},
		{"GET", "GET", "", "", 405, "", map[string]string{"Allow": "POST"}},
		{"PUT", "PUT", "application/json", `{}`, 405, "", map[string]string{"Allow": "POST"}},
		{"no Content-Type", "POST", "", `{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`, 415, "", nil},
		{"text/plain", "POST", "text/plain", `{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`, 415, "", nil},
		{"latin1", "POST", "application/json; charset=latin1", `{}`, 415, "", nil},
		{"too large", "POST", "application/json", `{"jsonrpc":"2.0","method":"echo","params":["` + strings.Repeat("x", 5000) + `"],"id":1}`, 413, "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := do(t, tc.method, url, tc.contentType, tc.body)
			if a.status != tc.status {
				t.Fatalf("status %d, want %d (body %q)", a.status, tc.status, a.body)
			}
			if tc.status/100 == 2 && a.body != tc.want {
				t.Errorf("body %s\nwant %s", a.body, tc.want)
			}
			for k, v := range tc.header {
				if got := a.header.Get(k); got != v {
					t.Errorf("%s: %q, want %q", k, got, v)
				}
			}
		})
	}
	// After all of that, the server still serves.
	if a := do(t, "POST", url, "application/json", `{"jsonrpc":"2.0","method":"add","params":[2,2],"id":9}`); a.body != `{"jsonrpc":"2.0","result":4,"id":9}` {
		t.Errorf("after the bad requests: %d %s", a.status, a.body)
	}
}

// A method sees the *fasthttp.RequestCtx as its context and as the
// transport's context value.
func TestMethodSeesRequest(t *testing.T) {
	srv := jsonrpc.NewServer()
	srv.MustRegister("agent", func(ctx context.Context) (string, error) {
		rc, ok := jsonrpc.CallOf(ctx).ContextValue().(*fasthttp.RequestCtx)
		if !ok {
			return "", fmt.Errorf("context value %T", jsonrpc.CallOf(ctx).ContextValue())
		}
		return string(rc.UserAgent()), nil
	})
	h := &fasthttprpc.Handler{Server: srv}
	url := serve(t, h.ServeFastHTTP)
	req, _ := http.NewRequest("POST", url, strings.NewReader(`{"jsonrpc":"2.0","method":"agent","id":1}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "test-agent/1")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if want := `{"jsonrpc":"2.0","result":"test-agent/1","id":1}`; string(b) != want {
		t.Errorf("got %s, want %s", b, want)
	}
}

// The Blocking calls of a batch run concurrently: each waits for the others.
func TestBlockingBatchConcurrent(t *testing.T) {
	const n = 4
	srv := jsonrpc.NewServer()
	var arrived sync.WaitGroup
	arrived.Add(n)
	all := make(chan struct{})
	go func() { arrived.Wait(); close(all) }()
	srv.MustRegister("meet", func(ctx context.Context, i int) (int, error) {
		arrived.Done()
		select {
		case <-all:
			return i, nil
		case <-time.After(10 * time.Second):
			return 0, fmt.Errorf("call %d: the others never came", i)
		}
	}, jsonrpc.Blocking())
	h := &fasthttprpc.Handler{Server: srv}
	url := serve(t, h.ServeFastHTTP)
	var reqs, wants []string
	for i := range n {
		reqs = append(reqs, fmt.Sprintf(`{"jsonrpc":"2.0","method":"meet","params":[%d],"id":%d}`, i, i))
		wants = append(wants, fmt.Sprintf(`{"jsonrpc":"2.0","result":%d,"id":%d}`, i, i))
	}
	a := do(t, "POST", url, "application/json", "["+strings.Join(reqs, ",")+"]")
	if a.status != 200 || len(a.body) != len("["+strings.Join(wants, ",")+"]") {
		t.Fatalf("%d %s", a.status, a.body)
	}
	for _, w := range wants {
		if !strings.Contains(a.body, w) {
			t.Errorf("answer %s lacks %s", a.body, w)
		}
	}
}

func TestSessions(t *testing.T) {
	srv := jsonrpc.NewServer()
	srv.MustRegister("who", func() string { return "default" })
	sessions := &jsonrpc.Sessions{}
	s1, err := sessions.Create("s1")
	if err != nil {
		t.Fatal(err)
	}
	s1.MustRegister("who", func() string { return "s1" })
	h := &fasthttprpc.Handler{Server: transport.SessionRouter(srv, sessions, "/rpc/")}
	url := serve(t, h.ServeFastHTTP)
	const call = `{"jsonrpc":"2.0","method":"who","id":1}`
	for path, want := range map[string]string{
		"/rpc/":   `{"jsonrpc":"2.0","result":"default","id":1}`,
		"/rpc/s1": `{"jsonrpc":"2.0","result":"s1","id":1}`,
	} {
		if a := do(t, "POST", url+path, "application/json", call); a.status != 200 || a.body != want {
			t.Errorf("%s: %d %s, want %s", path, a.status, a.body, want)
		}
	}
	for _, path := range []string{"/rpc/s2", "/other", "/"} {
		if a := do(t, "POST", url+path, "application/json", call); a.status != 404 {
			t.Errorf("%s: status %d, want 404", path, a.status)
		}
	}
}

// Many clients at once, over the library's client, with calls that
// complete on other goroutines.
func TestConcurrentClients(t *testing.T) {
	leaktest.CheckIgnoring(t, fasthttpBackground...)
	srv := demo.NewServer()
	var slow atomic.Int64
	srv.MustRegister("later", func(ctx context.Context, x int) (int, error) {
		slow.Add(1)
		select {
		case <-time.After(time.Millisecond):
			return x * 2, nil
		case <-ctx.Done():
			return 0, ctx.Err()
		}
	}, jsonrpc.Blocking())
	h := &fasthttprpc.Handler{Server: srv}
	url := serve(t, h.ServeFastHTTP)
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}}
	defer hc.CloseIdleConnections()
	c := client.New(client.HTTP(url, hc))
	defer c.Close()

	const workers, calls = 16, 50
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			for i := range calls {
				x := w*1000 + i
				var got int
				var err error
				if i%2 == 0 {
					got, err = client.Call[int](ctx, c, "addInt", []any{x, 1})
					x++
				} else {
					got, err = client.Call[int](ctx, c, "later", []any{x})
					x *= 2
				}
				if err != nil || got != x {
					errs <- fmt.Errorf("worker %d call %d: %d, %v; want %d", w, i, got, err, x)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if got := slow.Load(); got != workers*calls/2 {
		t.Errorf("%d Blocking calls, want %d", got, workers*calls/2)
	}
}

// NewServer's server answers, has bounded timeouts and the body limit, and
// answers a body over the limit with 413.
func TestNewServer(t *testing.T) {
	s := fasthttprpc.NewServer(demo.NewServer())
	if s.ReadTimeout <= 0 || s.WriteTimeout <= 0 || s.IdleTimeout <= 0 {
		t.Errorf("timeouts %v %v %v, want all bounded", s.ReadTimeout, s.WriteTimeout, s.IdleTimeout)
	}
	if s.MaxRequestBodySize != fasthttprpc.DefaultMaxBody {
		t.Errorf("body limit %d, want %d", s.MaxRequestBodySize, fasthttprpc.DefaultMaxBody)
	}
	s.MaxRequestBodySize = 1024
	url := serve(t, s.Handler, func(fs *fasthttp.Server) {
		fs.ErrorHandler, fs.MaxRequestBodySize = s.ErrorHandler, s.MaxRequestBodySize
	})
	if a := do(t, "POST", url, "application/json", `{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`); a.body != `{"jsonrpc":"2.0","result":3,"id":1}` {
		t.Errorf("call: %d %s", a.status, a.body)
	}
	if a := do(t, "POST", url, "application/json", `{"jsonrpc":"2.0","method":"echo","params":["`+strings.Repeat("x", 2000)+`"],"id":1}`); a.status != 413 {
		t.Errorf("a body over the limit: status %d, want 413", a.status)
	}
}
