package httprpc_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/httprpc"
	"github.com/jsonrpc-go/jsonrpc/internal/demo"
	"github.com/jsonrpc-go/jsonrpc/internal/testutil"
	"github.com/jsonrpc-go/jsonrpc/transport"
)

// httpWait bounds every wait of the HTTP tests.
const httpWait = 10 * time.Second

// httpAnswer is what a client received.
type httpAnswer struct {
	status int
	header http.Header
	body   string
	proto  int // ProtoMajor of the response
}

// httpDo sends req with c and reads the whole answer. It fails the test on a
// transport error, and must then be called from the test's goroutine.
func httpDo(tb testing.TB, c *http.Client, req *http.Request) httpAnswer {
	tb.Helper()
	a, err := httpTry(c, req)
	if err != nil {
		tb.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	return a
}

// httpTry is httpDo returning the error; it may run on any goroutine.
func httpTry(c *http.Client, req *http.Request) (httpAnswer, error) {
	resp, err := c.Do(req)
	if err != nil {
		return httpAnswer{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return httpAnswer{}, err
	}
	return httpAnswer{status: resp.StatusCode, header: resp.Header, body: string(b), proto: resp.ProtoMajor}, nil
}

// httpNewPost returns a POST of body with the given Content-Type ("" for none).
func httpNewPost(tb testing.TB, url, contentType, body string) *http.Request {
	tb.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		tb.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	return req
}

// httpPostJSON posts body as application/json.
func httpPostJSON(tb testing.TB, c *http.Client, url, body string) httpAnswer {
	tb.Helper()
	return httpDo(tb, c, httpNewPost(tb, url, "application/json", body))
}

// httpClientOf returns ts's client with a timeout, so that no request of a
// test waits without bound.
func httpClientOf(ts *httptest.Server) *http.Client {
	c := ts.Client()
	c.Timeout = httpWait
	// Without the Accept-Encoding that Go's transport sends by default,
	// answers come uncompressed, with the Content-Length the tests check;
	// the tests of compression send it themselves.
	c.Transport.(*http.Transport).DisableCompression = true
	return c
}

// httpCheckRPC checks an answer that carries a JSON-RPC response (200, JSON,
// exact length), or none (204, empty) when want is "".
func httpCheckRPC(tb testing.TB, where string, a httpAnswer, want string) {
	tb.Helper()
	if want == "" {
		if a.status != http.StatusNoContent || a.body != "" {
			tb.Errorf("%s: got %d %q, want 204 and no body", where, a.status, a.body)
		}
		return
	}
	if a.status != http.StatusOK {
		tb.Errorf("%s: status %d, want 200 (body %q)", where, a.status, a.body)
	}
	if ct := a.header.Get("Content-Type"); ct != "application/json" {
		tb.Errorf("%s: Content-Type %q, want application/json", where, ct)
	}
	if cl := a.header.Get("Content-Length"); cl != strconv.Itoa(len(a.body)) {
		tb.Errorf("%s: Content-Length %q for a body of %d bytes", where, cl, len(a.body))
	}
	if a.body != want {
		tb.Errorf("%s:\n got %s\nwant %s", where, a.body, want)
	}
}

// httpWaitFor receives from ch within httpWait.
func httpWaitFor[T any](tb testing.TB, what string, ch <-chan T) T {
	tb.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(httpWait):
		tb.Fatalf("%s: nothing within %v", what, httpWait)
		var zero T
		return zero
	}
}

// Every example of section 7 of the specification, over HTTP.
func TestHTTPSpecTranscripts(t *testing.T) {
	t.Parallel()
	ts := httptest.NewServer(handler(demo.NewServer()))
	defer ts.Close()
	c := httpClientOf(ts)
	for _, file := range testutil.TranscriptFiles(t) {
		for _, ex := range testutil.ReadTranscript(t, file) {
			where := fmt.Sprintf("%s:%d", filepath.Base(file), ex.Line)
			a := httpPostJSON(t, c, ts.URL, ex.Req)
			if ex.Want == "" {
				httpCheckRPC(t, where, a, "")
				continue
			}
			if a.status != http.StatusOK || a.header.Get("Content-Type") != "application/json" {
				t.Errorf("%s: got %d %q, want 200 application/json", where, a.status, a.header.Get("Content-Type"))
			}
			testutil.CheckAnswer(t, where, ex.Req, []byte(a.body), ex.Want)
		}
	}
}

// Responses, batches and notifications are the bytes Process gives, with
// 200, or 204 when there is nothing to answer; JSON-RPC errors are 200.
func TestHTTPAnswers(t *testing.T) {
	t.Parallel()
	srv := demo.NewServer()
	ts := httptest.NewServer(handler(srv))
	defer ts.Close()
	c := httpClientOf(ts)
	notify := `{"jsonrpc":"2.0","method":"notify_hello","params":[7]}`
	for _, tc := range []struct{ name, req string }{
		{"request", demo.Requests[0]},
		{"string result", demo.Requests[4]},
		{"batch", demo.Batch},
		{"notification", notify},
		{"batch of notifications", "[" + notify + "," + notify + "]"},
		{"batch with one response", "[" + notify + "," + demo.Requests[1] + "]"},
		{"unknown method", `{"jsonrpc":"2.0","method":"nope","id":"x"}`},
		{"parse error", `{"jsonrpc":"2.0",`},
		{"invalid request", `{"jsonrpc":"1.0","method":"add","id":1}`},
		{"empty batch", `[]`},
		{"empty body", ``},
	} {
		want := srv.ProcessString(context.Background(), tc.req)
		httpCheckRPC(t, tc.name, httpPostJSON(t, c, ts.URL, tc.req), want)
	}
}

func TestHTTPMethodNotAllowed(t *testing.T) {
	t.Parallel()
	ts := httptest.NewServer(handler(demo.NewServer()))
	defer ts.Close()
	c := httpClientOf(ts)
	for _, m := range []string{"GET", "HEAD", "PUT", "PATCH", "DELETE", "OPTIONS"} {
		req, err := http.NewRequest(m, ts.URL, strings.NewReader(demo.Requests[0]))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		a := httpDo(t, c, req)
		if a.status != http.StatusMethodNotAllowed || a.header.Get("Allow") != "POST" {
			t.Errorf("%s: got %d with Allow %q, want 405 with Allow POST", m, a.status, a.header.Get("Allow"))
		}
	}
}

func TestHTTPContentType(t *testing.T) {
	t.Parallel()
	srv := demo.NewServer()
	ts := httptest.NewServer(handler(srv))
	defer ts.Close()
	c := httpClientOf(ts)
	want := srv.ProcessString(context.Background(), demo.Requests[0])
	accepted := []string{
		"application/json",
		"application/json; charset=utf-8",
		"Application/JSON;Charset=UTF-8",
		`application/json ; charset="utf-8"`,
		"application/json; charset=utf-8; profile=x",
		"application/json; charset=utf-8; charset=utf-8",
		"application/json;",
		"application/json-rpc",
		"application/jsonrequest; charset=UTF-8",
	}
	for _, ct := range accepted {
		httpCheckRPC(t, ct, httpDo(t, c, httpNewPost(t, ts.URL, ct, demo.Requests[0])), want)
	}
	rejected := []string{
		"", // no Content-Type header at all
		"text/plain",
		"text/plain; charset=utf-8",
		"application/x-www-form-urlencoded",
		"multipart/form-data; boundary=x",
		"application/json; charset=iso-8859-1",
		"application/json; charset",
		"application/json; charset=utf-8; charset=latin1",
		"application/jsonx",
		"application/*",
		"json",
	}
	for _, ct := range rejected {
		req := httpNewPost(t, ts.URL, ct, demo.Requests[0])
		if ct == "" && req.Header.Get("Content-Type") != "" {
			t.Fatal("the request has a Content-Type")
		}
		if a := httpDo(t, c, req); a.status != http.StatusUnsupportedMediaType {
			t.Errorf("Content-Type %q: status %d, want 415", ct, a.status)
		}
	}
}

// httpStallingBody serves data and then blocks until release is closed, so
// that a server that reads past data never answers.
type httpStallingBody struct {
	data    []byte
	release chan struct{}
	waiting chan struct{} // when not nil, closed when a Read first blocks
	blocked bool          // waiting is closed
}

func (b *httpStallingBody) Read(p []byte) (int, error) {
	if len(b.data) > 0 {
		n := copy(p, b.data)
		b.data = b.data[n:]
		return n, nil
	}
	if b.waiting != nil && !b.blocked {
		b.blocked = true
		close(b.waiting)
	}
	<-b.release
	return 0, errors.New("stalled body released")
}

// httpPaddedRequest returns an echo request exactly n bytes long.
func httpPaddedRequest(tb testing.TB, n int) string {
	tb.Helper()
	req := `{"jsonrpc":"2.0","method":"echo","params":["x"],"id":1}`
	if len(req) > n {
		tb.Fatalf("no request of %d bytes", n)
	}
	return req + strings.Repeat(" ", n-len(req))
}

func TestHTTPBodyLimit(t *testing.T) {
	t.Parallel()
	const limit = 64
	srv := demo.NewServer()
	mux := http.NewServeMux()
	mux.Handle("/small", &httprpc.Handler{Server: srv, MaxBody: limit})
	mux.Handle("/", handler(srv))
	ts := httptest.NewServer(mux)
	defer ts.Close()
	c := httpClientOf(ts)
	release := make(chan struct{})
	defer close(release) // before ts.Close: unblocks the client's body writers

	atLimit := httpPaddedRequest(t, limit)
	want := srv.ProcessString(context.Background(), atLimit)

	t.Run("at the limit", func(t *testing.T) {
		// With Content-Length.
		httpCheckRPC(t, "content-length", httpPostJSON(t, c, ts.URL+"/small", atLimit), want)
		// Chunked: the length is unknown.
		req := httpNewPost(t, ts.URL+"/small", "application/json", "")
		req.Body, req.ContentLength = io.NopCloser(strings.NewReader(atLimit)), -1
		httpCheckRPC(t, "chunked", httpDo(t, c, req), want)
	})

	// A declared length over the limit is refused before the body is read:
	// the body never yields a byte, so reading it would hang.
	tooLong := func(t *testing.T, url string, length int64) {
		req := httpNewPost(t, url, "application/json", "")
		req.Body = io.NopCloser(&httpStallingBody{release: release})
		req.ContentLength = length
		if a := httpDo(t, c, req); a.status != http.StatusRequestEntityTooLarge {
			t.Errorf("status %d, want 413", a.status)
		}
	}
	t.Run("content-length", func(t *testing.T) { tooLong(t, ts.URL+"/small", limit+1) })
	t.Run("default limit", func(t *testing.T) { tooLong(t, ts.URL, httprpc.DefaultMaxBody+1) })

	// A body of unknown length is read up to the limit only: after the
	// limit and a little more it stalls, so reading it in full would hang.
	t.Run("chunked", func(t *testing.T) {
		req := httpNewPost(t, ts.URL+"/small", "application/json", "")
		req.Body = io.NopCloser(&httpStallingBody{data: []byte(atLimit + "     "), release: release})
		req.ContentLength = -1
		if a := httpDo(t, c, req); a.status != http.StatusRequestEntityTooLarge {
			t.Errorf("status %d, want 413", a.status)
		}
	})
}

// httpErrBody fails after its data.
type httpErrBody struct{ data []byte }

func (b *httpErrBody) Read(p []byte) (int, error) {
	if len(b.data) > 0 {
		n := copy(p, b.data)
		b.data = b.data[n:]
		return n, nil
	}
	return 0, errors.New("connection reset")
}

func TestHTTPBodyReadError(t *testing.T) {
	t.Parallel()
	srv := demo.NewServer()
	for _, length := range []int64{-1, 100} {
		r := httptest.NewRequest(http.MethodPost, "/", &httpErrBody{data: []byte(`{"jsonrpc"`)})
		r.Header.Set("Content-Type", "application/json")
		r.ContentLength = length
		w := httptest.NewRecorder()
		handler(srv).ServeHTTP(w, r)
		if w.Code != http.StatusBadRequest {
			t.Errorf("length %d: status %d, want 400", length, w.Code)
		}
	}
}

// Bodies larger than the pooled buffers are served (and their buffers
// dropped).
func TestHTTPLargeBody(t *testing.T) {
	t.Parallel()
	srv := demo.NewServer()
	ts := httptest.NewServer(handler(srv))
	defer ts.Close()
	c := httpClientOf(ts)
	big := strings.Repeat("0123456789abcdef", 20<<10) // 320 KiB
	req := `{"jsonrpc":"2.0","method":"StringMe","params":["` + big + `"],"id":1}`
	want := srv.ProcessString(context.Background(), req)
	for range 3 {
		httpCheckRPC(t, "large", httpPostJSON(t, c, ts.URL, req), want)
		chunked := httpNewPost(t, ts.URL, "application/json", "")
		chunked.Body, chunked.ContentLength = io.NopCloser(strings.NewReader(req)), -1
		httpCheckRPC(t, "large chunked", httpDo(t, c, chunked), want)
	}
	httpCheckRPC(t, "small after large", httpPostJSON(t, c, ts.URL, demo.Requests[0]), srv.ProcessString(context.Background(), demo.Requests[0]))
}

// httpRequestInfo is what a method learns of the HTTP request carrying it.
type httpRequestInfo struct {
	Method, Path, Header string
	ProtoMajor           int
}

// httpRegisterRequest registers "request", which answers with the
// httpRequestInfo of its transport's *http.Request.
func httpRegisterRequest(s *jsonrpc.Server) {
	s.MustRegister("request", func(ctx context.Context) (httpRequestInfo, error) {
		r, ok := jsonrpc.CallOf(ctx).ContextValue().(*http.Request)
		if !ok {
			return httpRequestInfo{}, errors.New("no *http.Request in the call")
		}
		if ctx.Value(http.ServerContextKey) == nil {
			return httpRequestInfo{}, errors.New("the call's context does not derive from the request's")
		}
		return httpRequestInfo{r.Method, r.URL.Path, r.Header.Get("X-Test"), r.ProtoMajor}, nil
	})
}

func TestHTTPMethodSeesRequest(t *testing.T) {
	t.Parallel()
	srv := jsonrpc.NewServer()
	httpRegisterRequest(srv)
	ts := httptest.NewServer(handler(srv))
	defer ts.Close()
	req := httpNewPost(t, ts.URL+"/some/path", "application/json", `{"jsonrpc":"2.0","method":"request","id":1}`)
	req.Header.Set("X-Test", "hello")
	a := httpDo(t, httpClientOf(ts), req)
	httpCheckRPC(t, "request", a, `{"jsonrpc":"2.0","result":{"Method":"POST","Path":"/some/path","Header":"hello","ProtoMajor":1},"id":1}`)
}

// httpHang is the "hang" method of the cancellation tests: it reports its
// start and then what its context ends with.
type httpHang struct {
	started  chan struct{}
	observed chan error
}

// httpRegisterHang registers "hang" on s.
func httpRegisterHang(s *jsonrpc.Server, opts ...jsonrpc.MethodOption) *httpHang {
	h := &httpHang{started: make(chan struct{}, 1), observed: make(chan error, 1)}
	s.MustRegister("hang", func(ctx context.Context) error {
		h.started <- struct{}{}
		select {
		case <-ctx.Done():
			h.observed <- ctx.Err()
		case <-time.After(httpWait):
			h.observed <- errors.New("not cancelled")
		}
		return ctx.Err()
	}, opts...)
	return h
}

// check calls "hang" at url with c, cancels the request once the method
// runs, and checks that the method sees its context cancelled.
func (h *httpHang) check(t *testing.T, c *http.Client, url string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req := httpNewPost(t, url, "application/json", `{"jsonrpc":"2.0","method":"hang","id":1}`).WithContext(ctx)
	clientErr := make(chan error, 1)
	go func() {
		_, err := httpTry(c, req)
		clientErr <- err
	}()
	httpWaitFor(t, "method start", h.started)
	cancel()
	if err := httpWaitFor(t, "method's context", h.observed); !errors.Is(err, context.Canceled) {
		t.Errorf("the method observed %v, want context.Canceled", err)
	}
	if err := httpWaitFor(t, "client", clientErr); !errors.Is(err, context.Canceled) {
		t.Errorf("client: %v, want context.Canceled", err)
	}
}

// A method waiting on its context sees it cancelled when the client goes
// away, and the handler then returns.
func TestHTTPClientDisconnectCancels(t *testing.T) {
	t.Parallel()
	for _, blocking := range []bool{true, false} {
		t.Run(fmt.Sprintf("blocking=%v", blocking), func(t *testing.T) {
			t.Parallel()
			srv := jsonrpc.NewServer()
			var opts []jsonrpc.MethodOption
			if blocking {
				opts = append(opts, jsonrpc.Blocking())
			}
			hang := httpRegisterHang(srv, opts...)
			returned := make(chan struct{}, 1)
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				handler(srv).ServeHTTP(w, r)
				returned <- struct{}{}
			}))
			defer ts.Close()
			hang.check(t, ts.Client(), ts.URL)
			httpWaitFor(t, "handler return", returned)
		})
	}
}

// httpRegisterMeet registers "meet", a Blocking method whose calls return only
// when n of them run at once.
func httpRegisterMeet(s *jsonrpc.Server, n int32) {
	var arrived atomic.Int32
	all := make(chan struct{})
	s.MustRegister("meet", func(ctx context.Context, x int) (int, error) {
		if arrived.Add(1) == n {
			close(all)
		}
		select {
		case <-all:
			return x, nil
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(httpWait):
			return 0, errors.New("the other calls of the batch did not run concurrently")
		}
	}, jsonrpc.Blocking())
}

// The calls of a batch to Blocking methods run concurrently.
func TestHTTPBlockingBatchConcurrent(t *testing.T) {
	t.Parallel()
	srv := jsonrpc.NewServer()
	httpRegisterMeet(srv, 3)
	ts := httptest.NewServer(handler(srv))
	defer ts.Close()
	batch := `[{"jsonrpc":"2.0","method":"meet","params":[1],"id":1},` +
		`{"jsonrpc":"2.0","method":"meet","params":[2],"id":2},` +
		`{"jsonrpc":"2.0","method":"meet","params":[3],"id":3}]`
	a := httpPostJSON(t, httpClientOf(ts), ts.URL, batch)
	var got []struct {
		Result int
		ID     int
		Error  any
	}
	if err := json.Unmarshal([]byte(a.body), &got); err != nil || a.status != http.StatusOK {
		t.Fatalf("status %d, body %s: %v", a.status, a.body, err)
	}
	if len(got) != 3 {
		t.Fatalf("%d responses, want 3: %s", len(got), a.body)
	}
	for _, r := range got {
		if r.Error != nil || r.Result != r.ID {
			t.Errorf("response %+v", r)
		}
	}
}

func TestHTTPSessions(t *testing.T) {
	t.Parallel()
	srv := demo.NewServer()
	sessions := &jsonrpc.Sessions{}
	whoami := func(ctx context.Context) string { return "session " + jsonrpc.CallOf(ctx).SessionID() }
	srv.MustRegister("whoami", whoami)
	for _, id := range []string{"abc", "a b", "gone"} {
		s, err := sessions.Create(id)
		if err != nil {
			t.Fatal(err)
		}
		s.MustRegister("whoami", whoami)
	}
	abc, _ := sessions.Lookup("abc")

	mux := http.NewServeMux()
	mux.Handle("/s/", &httprpc.Handler{Server: transport.SessionRouter(srv, sessions, "/s/")})
	mux.Handle("/rpc", handler(srv))
	mux.Handle("/v1/", http.StripPrefix("/v1", &httprpc.Handler{Server: transport.SessionRouter(abc, sessions, "/")}))
	mux.Handle("/none/", &httprpc.Handler{Server: transport.SessionRouter(srv, nil, "/none/")}) // no Sessions
	ts := httptest.NewServer(mux)
	defer ts.Close()
	c := httpClientOf(ts)

	who := `{"jsonrpc":"2.0","method":"whoami","id":1}`
	result := func(s string) string { return `{"jsonrpc":"2.0","result":"` + s + `","id":1}` }
	add := demo.Requests[0]
	notFound := `{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found","data":"add"},"id":1}`

	httpCheckRPC(t, "/s/abc", httpPostJSON(t, c, ts.URL+"/s/abc", who), result("session abc"))
	httpCheckRPC(t, "/s/a%20b", httpPostJSON(t, c, ts.URL+"/s/a%20b", who), result("session a b"))
	httpCheckRPC(t, "/s/ (default)", httpPostJSON(t, c, ts.URL+"/s/", who), result("session "))
	httpCheckRPC(t, "/rpc (default)", httpPostJSON(t, c, ts.URL+"/rpc", who), result("session "))
	httpCheckRPC(t, "/v1/abc", httpPostJSON(t, c, ts.URL+"/v1/abc", who), result("session abc"))
	httpCheckRPC(t, "/none/ (default)", httpPostJSON(t, c, ts.URL+"/none/", who), result("session "))
	// A session has its own method table; the default session keeps its own.
	httpCheckRPC(t, "add in /s/abc", httpPostJSON(t, c, ts.URL+"/s/abc", add), notFound)
	httpCheckRPC(t, "add in /s/", httpPostJSON(t, c, ts.URL+"/s/", add), srv.ProcessString(context.Background(), add))

	// Unknown sessions are 404, whatever the method, and are not created.
	for _, path := range []string{"/s/nope", "/s/abc/", "/s/ABC", "/v1/nope", "/none/abc"} {
		if a := httpPostJSON(t, c, ts.URL+path, who); a.status != http.StatusNotFound {
			t.Errorf("POST %s: status %d, want 404", path, a.status)
		}
	}
	req, _ := http.NewRequest(http.MethodGet, ts.URL+"/s/nope", nil)
	if a := httpDo(t, c, req); a.status != http.StatusNotFound {
		t.Errorf("GET /s/nope: status %d, want 404", a.status)
	}
	req, _ = http.NewRequest(http.MethodGet, ts.URL+"/s/abc", nil)
	if a := httpDo(t, c, req); a.status != http.StatusMethodNotAllowed {
		t.Errorf("GET /s/abc: status %d, want 405", a.status)
	}
	for _, id := range []string{"nope", "abc/", "ABC"} {
		if _, ok := sessions.Lookup(id); ok {
			t.Errorf("a request created session %q", id)
		}
	}

	// A destroyed session is gone.
	httpCheckRPC(t, "/s/gone", httpPostJSON(t, c, ts.URL+"/s/gone", who), result("session gone"))
	sessions.Destroy("gone")
	if a := httpPostJSON(t, c, ts.URL+"/s/gone", who); a.status != http.StatusNotFound {
		t.Errorf("destroyed session: status %d, want 404", a.status)
	}
}

// Many clients at once, each over keep-alive connections.
func TestHTTPConcurrentClients(t *testing.T) {
	t.Parallel()
	const clients, requests = 16, 50
	srv := demo.NewServer()
	httpRegisterMeet(srv, 2)
	ts := httptest.NewServer(handler(srv))
	defer ts.Close()
	tr := &http.Transport{MaxIdleConnsPerHost: clients}
	defer tr.CloseIdleConnections()
	c := &http.Client{Transport: tr, Timeout: httpWait}

	notify := `{"jsonrpc":"2.0","method":"notify_sum","params":[1,2]}`
	meet := `[{"jsonrpc":"2.0","method":"meet","params":[1],"id":1},{"jsonrpc":"2.0","method":"meet","params":[1],"id":1}]`
	reqs := append(append([]string{}, demo.Requests...), demo.Batch, notify, `{"jsonrpc"`)
	wants := make([]string, len(reqs))
	for i, r := range reqs {
		wants[i] = srv.ProcessString(context.Background(), r)
	}
	var wg sync.WaitGroup
	errs := make(chan error, clients)
	for g := range clients {
		wg.Go(func() {
			for i := range requests {
				k := (g + i) % len(reqs)
				req, want := reqs[k], wants[k]
				if g == 0 && i == 0 {
					// One batch of Blocking calls that must run concurrently.
					req, want = meet, `[{"jsonrpc":"2.0","result":1,"id":1},{"jsonrpc":"2.0","result":1,"id":1}]`
				}
				hr, _ := http.NewRequest(http.MethodPost, ts.URL, strings.NewReader(req))
				hr.Header.Set("Content-Type", "application/json")
				a, err := httpTry(c, hr)
				switch {
				case err != nil:
				case want == "" && a.status != http.StatusNoContent:
					err = fmt.Errorf("status %d, want 204", a.status)
				case a.body != want:
					err = fmt.Errorf("got %d %s, want %s", a.status, a.body, want)
				}
				if err != nil {
					errs <- fmt.Errorf("client %d, request %d (%s): %w", g, i, req, err)
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
}

// httpCheckHTTP2 runs requests against httpHandler2 over a client that
// speaks HTTP/2 only.
func httpCheckHTTP2(t *testing.T, c *http.Client, url string, hang *httpHang) {
	t.Helper()
	a := httpPostJSON(t, c, url, `{"jsonrpc":"2.0","method":"request","id":1}`)
	if a.proto != 2 {
		t.Fatalf("the response came over HTTP/%d", a.proto)
	}
	httpCheckRPC(t, "request", a, `{"jsonrpc":"2.0","result":{"Method":"POST","Path":"/","Header":"","ProtoMajor":2},"id":1}`)
	batch := `[{"jsonrpc":"2.0","method":"meet","params":[1],"id":1},{"jsonrpc":"2.0","method":"meet","params":[2],"id":2}]`
	httpCheckRPC(t, "batch", httpPostJSON(t, c, url, batch), `[{"jsonrpc":"2.0","result":1,"id":1},{"jsonrpc":"2.0","result":2,"id":2}]`)
	httpCheckRPC(t, "notification", httpPostJSON(t, c, url, `{"jsonrpc":"2.0","method":"meet","params":[0]}`), "")
	// HTTP/2 bodies of unknown length go through the limit too.
	req := httpNewPost(t, url, "application/json", "")
	req.Body, req.ContentLength = io.NopCloser(strings.NewReader(strings.Repeat(" ", 257)+"{}")), -1
	if a := httpDo(t, c, req); a.status != http.StatusRequestEntityTooLarge {
		t.Errorf("body over the limit: status %d, want 413", a.status)
	}
	// A cancelled request resets its stream, which cancels the context.
	hang.check(t, c, url)
}

// httpHandler2 is the handler of the HTTP/2 tests: "request", "meet" (two
// calls meet once; the notification runs alone and needs none), a Blocking
// "hang", and a body limit of 256 bytes.
func httpHandler2() (http.Handler, *httpHang) {
	srv := jsonrpc.NewServer()
	httpRegisterRequest(srv)
	hang := httpRegisterHang(srv, jsonrpc.Blocking())
	var arrived atomic.Int32
	both := make(chan struct{})
	srv.MustRegister("meet", func(ctx context.Context, x int) (int, error) {
		if x == 0 {
			return 0, nil
		}
		if arrived.Add(1) == 2 {
			close(both)
		}
		select {
		case <-both:
			return x, nil
		case <-time.After(httpWait):
			return 0, errors.New("the calls of the batch did not run concurrently")
		}
	}, jsonrpc.Blocking())
	return &httprpc.Handler{Server: srv, MaxBody: 256}, hang
}

func TestHTTP2TLS(t *testing.T) {
	t.Parallel()
	h, hang := httpHandler2()
	ts := httptest.NewUnstartedServer(h)
	ts.EnableHTTP2 = true
	ts.StartTLS()
	defer ts.Close()
	httpCheckHTTP2(t, httpClientOf(ts), ts.URL, hang)
}

// HTTP/2 without TLS (h2c, prior knowledge), through the standard library's
// Protocols.
func TestHTTP2Cleartext(t *testing.T) {
	t.Parallel()
	var sp http.Protocols
	sp.SetHTTP1(true)
	sp.SetUnencryptedHTTP2(true)
	h, hang := httpHandler2()
	hs := &http.Server{Handler: h, Protocols: &sp, ReadHeaderTimeout: httpWait}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	defer func() {
		hs.Close()
		if err := httpWaitFor(t, "Serve", served); !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("Serve: %v", err)
		}
	}()

	var cp http.Protocols
	cp.SetUnencryptedHTTP2(true)
	tr := &http.Transport{Protocols: &cp, TLSClientConfig: &tls.Config{}}
	defer tr.CloseIdleConnections()
	httpCheckHTTP2(t, &http.Client{Transport: tr, Timeout: httpWait}, "http://"+ln.Addr().String(), hang)
}

// BenchmarkHTTP measures requests of the calculator mix over HTTP/1.1:
// "loopback" posts them from keep-alive clients to a server on 127.0.0.1
// (client and server share the process, so allocs/op counts both sides);
// "handler" calls ServeHTTP directly with a reused request and writer, for
// the handler's own cost.
func BenchmarkHTTP(b *testing.B) {
	reqs := testutil.CalcMix()
	b.Run("loopback", func(b *testing.B) {
		srv := demo.NewServer()
		ts := httptest.NewServer(handler(srv))
		defer ts.Close()
		tr := &http.Transport{MaxIdleConnsPerHost: 256}
		defer tr.CloseIdleConnections()
		c := &http.Client{Transport: tr}
		b.ReportAllocs()
		b.SetBytes(testutil.AvgLen(reqs))
		b.RunParallel(func(pb *testing.PB) {
			var sink bytes.Buffer
			i := 0
			for pb.Next() {
				req, err := http.NewRequest(http.MethodPost, ts.URL, bytes.NewReader(reqs[i]))
				if err != nil {
					b.Error(err)
					return
				}
				req.Header.Set("Content-Type", "application/json")
				resp, err := c.Do(req)
				if err != nil {
					b.Error(err)
					return
				}
				sink.Reset()
				_, err = sink.ReadFrom(resp.Body)
				resp.Body.Close()
				if err != nil || resp.StatusCode != http.StatusOK || sink.Len() == 0 {
					b.Errorf("status %d, %d bytes, %v", resp.StatusCode, sink.Len(), err)
					return
				}
				if i++; i == len(reqs) {
					i = 0
				}
			}
		})
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
	})
	b.Run("handler", func(b *testing.B) {
		h := handler(demo.NewServer())
		body := bytes.NewReader(nil)
		r := httptest.NewRequest(http.MethodPost, "/", nil)
		r.Header.Set("Content-Type", "application/json")
		r.Body = io.NopCloser(body)
		w := &httpDiscardWriter{h: http.Header{}}
		b.ReportAllocs()
		b.SetBytes(testutil.AvgLen(reqs))
		i := 0
		for b.Loop() {
			body.Reset(reqs[i])
			r.ContentLength = int64(len(reqs[i]))
			clear(w.h)
			h.ServeHTTP(w, r)
			if w.status != http.StatusOK {
				b.Fatalf("status %d", w.status)
			}
			if i++; i == len(reqs) {
				i = 0
			}
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
	})
}

// httpDiscardWriter is a reusable http.ResponseWriter that keeps the status.
type httpDiscardWriter struct {
	h      http.Header
	status int
}

func (w *httpDiscardWriter) Header() http.Header { return w.h }

func (w *httpDiscardWriter) WriteHeader(code int) { w.status = code }

func (w *httpDiscardWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return len(p), nil
}

// handler serves srv with every default.
func handler(srv *jsonrpc.Server) http.Handler { return &httprpc.Handler{Server: srv} }

// MaxBuffered bounds the memory of large bodies being read over all the
// handler's requests: a request whose body would pass it is answered with
// 503 and Retry-After at once, small bodies are served meanwhile, and the
// room comes back when the large bodies are answered. The requests go to
// ServeHTTP directly, so that what the handler has read is known.
func TestHTTPMaxBuffered(t *testing.T) {
	t.Parallel()
	h := &httprpc.Handler{Server: demo.NewServer(), MaxBuffered: 512 << 10}
	post := httpPostFrom("192.0.2.1:1234")
	// Two bodies of 300 KiB, of two clients, stall after 250 KiB, each
	// then holding about 192 KiB of the budget: what its buffer grew to
	// past 64 KiB.
	req := httpPaddedRequest(t, 300<<10)
	var wg sync.WaitGroup
	var stalled []*httpStallingBody
	for i := range 2 {
		waiting := make(chan struct{})
		b := &httpStallingBody{data: []byte(req[:250<<10]), release: make(chan struct{}), waiting: waiting}
		stalled = append(stalled, b)
		from := httpPostFrom(fmt.Sprintf("192.0.2.%d:1234", 10+i))
		wg.Go(func() { h.ServeHTTP(httptest.NewRecorder(), from(b, len(req))) })
		httpWaitFor(t, "the handler to read a stalled body's bytes", waiting)
	}
	// A third large body, of a third client, finds no room.
	w := httptest.NewRecorder()
	big := httpPaddedRequest(t, 200<<10)
	h.ServeHTTP(w, post(strings.NewReader(big), len(big)))
	if w.Code != http.StatusServiceUnavailable || w.Header().Get("Retry-After") == "" {
		t.Fatalf("a large body beside two stalled ones: %d, Retry-After %q; want 503 with Retry-After", w.Code, w.Header().Get("Retry-After"))
	}
	// A small one is served meanwhile.
	w = httptest.NewRecorder()
	h.ServeHTTP(w, post(strings.NewReader(demo.Requests[0]), len(demo.Requests[0])))
	if w.Code != http.StatusOK || w.Body.String() != `{"jsonrpc":"2.0","result":3.75,"id":1}` {
		t.Fatalf("small beside stalled: %d %s", w.Code, w.Body)
	}
	// The stalled requests end; the room is back.
	for _, b := range stalled {
		close(b.release)
	}
	wg.Wait()
	w = httptest.NewRecorder()
	h.ServeHTTP(w, post(strings.NewReader(req), len(req)))
	if w.Code != http.StatusOK {
		t.Errorf("a large body after the stalled ones ended: %d, want 200", w.Code)
	}
}

// httpPostFrom returns a function that makes a POST of a body of length
// bytes from the client at addr, for ServeHTTP.
func httpPostFrom(addr string) func(body io.Reader, length int) *http.Request {
	return func(body io.Reader, length int) *http.Request {
		r := httptest.NewRequest(http.MethodPost, "/", body)
		r.Header.Set("Content-Type", "application/json")
		r.ContentLength = int64(length)
		r.RemoteAddr = addr
		return r
	}
}

// One client holds at most its share of MaxBuffered (half of it), so that
// its unfinished bodies cannot spend another client's room: with one
// client's stalled body holding most of its share, its next large body is
// refused as a spent budget is (503 with Retry-After), while another
// client's is served. Before, one client's unfinished TCP messages took
// all of a shared budget, and another client's 100 KiB HTTP requests got
// 503 (issue 34).
func TestHTTPMaxBufferedPerClient(t *testing.T) {
	t.Parallel()
	h := &httprpc.Handler{Server: demo.NewServer(), MaxBuffered: 512 << 10}
	a, b := httpPostFrom("192.0.2.1:1234"), httpPostFrom("192.0.2.2:1234")
	// A body of a's stalls after 250 KiB, holding about 192 KiB of a's
	// 256 KiB.
	req := httpPaddedRequest(t, 300<<10)
	waiting := make(chan struct{})
	stall := &httpStallingBody{data: []byte(req[:250<<10]), release: make(chan struct{}), waiting: waiting}
	var wg sync.WaitGroup
	wg.Go(func() { h.ServeHTTP(httptest.NewRecorder(), a(stall, len(req))) })
	httpWaitFor(t, "the handler to read the stalled body's bytes", waiting)

	big := httpPaddedRequest(t, 200<<10)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, a(strings.NewReader(big), len(big)))
	if w.Code != http.StatusServiceUnavailable || w.Header().Get("Retry-After") == "" {
		t.Errorf("a second large body of the client holding its share: %d, Retry-After %q; want 503 with Retry-After", w.Code, w.Header().Get("Retry-After"))
	}
	// Of unknown length, it is refused as it grows past the share.
	w = httptest.NewRecorder()
	h.ServeHTTP(w, a(strings.NewReader(big), -1))
	if w.Code != http.StatusServiceUnavailable {
		t.Errorf("a second large body of unknown length of the client holding its share: %d, want 503", w.Code)
	}
	w = httptest.NewRecorder()
	h.ServeHTTP(w, b(strings.NewReader(big), len(big)))
	if w.Code != http.StatusOK {
		t.Errorf("a large body of another client: %d %.100s, want 200", w.Code, w.Body)
	}
	close(stall.release)
	wg.Wait()
	w = httptest.NewRecorder()
	h.ServeHTTP(w, a(strings.NewReader(big), len(big)))
	if w.Code != http.StatusOK {
		t.Errorf("a large body of the first client after its stalled one ended: %d, want 200", w.Code)
	}
}

// A Handler with a nil Server answers every call "Method not found", as
// every host of the library does.
func TestHTTPNilServer(t *testing.T) {
	t.Parallel()
	ts := httptest.NewServer(&httprpc.Handler{})
	defer ts.Close()
	a := httpPostJSON(t, httpClientOf(ts), ts.URL, `{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`)
	if want := `{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found","data":"add"},"id":1}`; a.status != 200 || a.body != want {
		t.Errorf("got %d %s, want 200 %s", a.status, a.body, want)
	}
}
