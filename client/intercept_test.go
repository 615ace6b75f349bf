package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/client"
	"github.com/jsonrpc-go/jsonrpc/framing"
	"github.com/jsonrpc-go/jsonrpc/httprpc"
	"github.com/jsonrpc-go/jsonrpc/internal/leaktest"
	"github.com/jsonrpc-go/jsonrpc/internal/testutil"
	"github.com/jsonrpc-go/jsonrpc/stream"
	"github.com/jsonrpc-go/jsonrpc/streamhttp"
	"github.com/jsonrpc-go/jsonrpc/ws"
)

// interceptServer is the server of the interceptor tests: "add" adds,
// "auth" answers the Authorization header of its HTTP request ("" over a
// stream), "note" counts its notifications, "fail" fails.
type interceptServer struct {
	*jsonrpc.Server
	adds  atomic.Int64
	notes chan string
}

func newInterceptServer() *interceptServer {
	s := &interceptServer{Server: jsonrpc.NewServer(), notes: make(chan string, 16)}
	s.MustRegister("add", func(a, b int) int { s.adds.Add(1); return a + b })
	s.MustRegister("auth", func(ctx context.Context) string {
		if r, ok := jsonrpc.CallOf(ctx).ContextValue().(*http.Request); ok {
			return r.Header.Get("Authorization")
		}
		return ""
	})
	s.MustRegister("note", func(s2 string) { s.notes <- s2 })
	s.MustRegister("fail", func() error { return jsonrpc.NewError(-32001, "refused") })
	return s
}

// interceptTransports are the client's transports the interceptor tests
// run over, each with whether it carries HTTP headers.
var interceptTransports = []struct {
	name    string
	headers bool
	start   func(t *testing.T, srv *jsonrpc.Server) client.Channel
}{
	{"http", true, func(t *testing.T, srv *jsonrpc.Server) client.Channel {
		ts := httptest.NewServer(&httprpc.Handler{Server: srv})
		t.Cleanup(ts.Close)
		return client.HTTP(ts.URL, ts.Client())
	}},
	{"streamable-http", true, func(t *testing.T, srv *jsonrpc.Server) client.Channel {
		ts := httptest.NewServer(&streamhttp.Handler{Server: srv})
		t.Cleanup(ts.Close)
		return client.HTTP(ts.URL, ts.Client())
	}},
	{"tcp", false, func(t *testing.T, srv *jsonrpc.Server) client.Channel {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		s := &stream.Server{Server: srv, Framing: framing.Line}
		go s.Serve(l)
		t.Cleanup(func() { s.Close() })
		ch, err := client.Dial(t.Context(), "tcp", l.Addr().String(), framing.Line)
		if err != nil {
			t.Fatal(err)
		}
		return ch
	}},
	{"ws", false, func(t *testing.T, srv *jsonrpc.Server) client.Channel {
		testutil.SkipOnJS(t, "coder/websocket on js has no server")
		h := &ws.Handler{Server: srv}
		ts := httptest.NewServer(h)
		t.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			h.Shutdown(ctx)
			ts.Close()
		})
		ch, err := ws.Dial(t.Context(), "ws"+strings.TrimPrefix(ts.URL, "http"), nil)
		if err != nil {
			t.Fatal(err)
		}
		return ch
	}},
}

// TestIntercept (issue 39): client interceptors run around every call,
// notification and batch, over HTTP, Streamable HTTP, TCP and WebSocket:
// they nest in the order given, see each message as it goes (method,
// params, notification, batch) and its outcome (result, results, error),
// may change the params before next, answer without next, replace the
// error, and give next a context of their own (HTTP headers).
func TestIntercept(t *testing.T) {
	for _, tr := range interceptTransports {
		t.Run(tr.name, func(t *testing.T) {
			leaktest.Check(t)
			srv := newInterceptServer()
			var mu sync.Mutex
			var log []string
			record := func(format string, args ...any) {
				mu.Lock()
				log = append(log, fmt.Sprintf(format, args...))
				mu.Unlock()
			}
			take := func() []string {
				mu.Lock()
				defer mu.Unlock()
				l := log
				log = nil
				return l
			}
			outer := func(ctx context.Context, o *client.Outgoing, next func(context.Context) error) error {
				record("outer> %s notify=%v batch=%d", o.Method, o.Notification, len(o.Batch))
				if o.Method == "cached" {
					o.Result = json.RawMessage(`"from the cache"`)
					return nil // the server is not called
				}
				ctx = client.WithHTTPHeader(ctx, http.Header{"Authorization": {"Bearer t0k3n"}})
				err := next(ctx)
				if o.Method == "fail" {
					err = fmt.Errorf("wrapped: %w", err)
				}
				record("<outer %s result=%s results=%d err=%v", o.Method, string(o.Result), len(o.Results), err)
				return err
			}
			inner := func(ctx context.Context, o *client.Outgoing, next func(context.Context) error) error {
				record("inner> %s", o.Method)
				if o.Method == "add" {
					o.Params = []int{40, 2} // whatever the caller gave
				}
				return next(ctx)
			}
			c := client.New(tr.start(t, srv.Server), client.Intercept(outer), client.Intercept(inner))
			defer c.Close()
			ctx := t.Context()

			sum, err := client.Call[int](ctx, c, "add", []int{1, 2})
			if err != nil || sum != 42 {
				t.Errorf("add = %d, %v; want 42 (the interceptor's params)", sum, err)
			}
			if got, want := take(), []string{"outer> add notify=false batch=0", "inner> add", "<outer add result=42 results=0 err=<nil>"}; !slices.Equal(got, want) {
				t.Errorf("call:\n got %q\nwant %q", got, want)
			}

			auth, err := client.Call[string](ctx, c, "auth", nil)
			want := ""
			if tr.headers {
				want = "Bearer t0k3n"
			}
			if err != nil || auth != want {
				t.Errorf("auth = %q, %v; want %q (the interceptor's header)", auth, err, want)
			}
			take()

			cached, err := client.Call[string](ctx, c, "cached", nil)
			if err != nil || cached != "from the cache" {
				t.Errorf("cached = %q, %v", cached, err)
			}
			if got, want := take(), []string{"outer> cached notify=false batch=0"}; !slices.Equal(got, want) {
				t.Errorf("cached:\n got %q\nwant %q", got, want)
			}

			_, err = client.Call[any](ctx, c, "fail", nil)
			if !errors.Is(err, &jsonrpc.Error{Code: -32001}) || !strings.HasPrefix(err.Error(), "wrapped: ") {
				t.Errorf("fail: %v, want the interceptor's error wrapping -32001", err)
			}
			take()

			if err := c.Notify(ctx, "note", []string{"hi"}); err != nil {
				t.Fatal(err)
			}
			select {
			case n := <-srv.notes:
				if n != "hi" {
					t.Errorf("note %q", n)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("the notification did not arrive")
			}
			if got, want := take(), []string{"outer> note notify=true batch=0", "inner> note", "<outer note result= results=0 err=<nil>"}; !slices.Equal(got, want) {
				t.Errorf("notify:\n got %q\nwant %q", got, want)
			}

			results, err := c.Batch(ctx, []client.Spec{{Method: "add", Params: []int{1, 1}}, {Method: "note", Params: []string{"b"}, Notify: true}})
			if err != nil || len(results) != 2 || string(results[0].Result) != "2" {
				t.Errorf("batch: %v, %v", results, err)
			}
			<-srv.notes
			if got, want := take(), []string{"outer>  notify=false batch=2", "inner> ", "<outer  result= results=2 err=<nil>"}; !slices.Equal(got, want) {
				t.Errorf("batch:\n got %q\nwant %q", got, want)
			}
			if n := srv.adds.Load(); n != 2 {
				t.Errorf("the server ran add %d times, want 2", n)
			}
		})
	}
}

// TestInterceptAroundRetry: Retry is an interceptor at its place among the
// options: one given before it sees a call once, one given after it sees
// each attempt. The server answers 503 twice, then the call.
func TestInterceptAroundRetry(t *testing.T) {
	srv := newInterceptServer()
	h := &httprpc.Handler{Server: srv.Server}
	var refused atomic.Int64
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if refused.Add(1) <= 2 {
			http.Error(w, "busy", http.StatusServiceUnavailable)
			return
		}
		h.ServeHTTP(w, r)
	}))
	defer ts.Close()
	var before, after atomic.Int64
	count := func(n *atomic.Int64) client.Option {
		return client.Intercept(func(ctx context.Context, o *client.Outgoing, next func(context.Context) error) error {
			n.Add(1)
			return next(ctx)
		})
	}
	c := client.New(client.HTTP(ts.URL, nil), count(&before),
		client.Retry(client.RetryPolicy{Backoff: time.Microsecond, Idempotent: func(string) bool { return true }}),
		count(&after))
	defer c.Close()
	if sum, err := client.Call[int](t.Context(), c, "add", []int{1, 2}); err != nil || sum != 3 {
		t.Fatalf("add = %d, %v", sum, err)
	}
	if b, a := before.Load(), after.Load(); b != 1 || a != 3 {
		t.Errorf("the interceptor before Retry ran %d times (want 1), the one after it %d (want 3)", b, a)
	}
}

// An interceptor that logs the calls that fail.
func ExampleIntercept() {
	srv := jsonrpc.NewServer()
	srv.MustRegister("add", func(a, b int) int { return a + b })
	c := client.New(client.Local(srv), client.Intercept(func(ctx context.Context, o *client.Outgoing, next func(context.Context) error) error {
		err := next(ctx)
		if err != nil {
			fmt.Printf("%s failed: %v\n", o.Method, err)
		}
		return err
	}))
	defer c.Close()
	client.Call[int](context.Background(), c, "add", []int{1, 2})
	client.Call[int](context.Background(), c, "divide", []int{1, 2})
	// Output:
	// divide failed: jsonrpc: Method not found (-32601): divide
}
