package client_test

import (
	"context"
	"errors"
	"github.com/jsonrpc-go/jsonrpc/protocol/mcp"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/client"
	"github.com/jsonrpc-go/jsonrpc/httprpc"
	"github.com/jsonrpc-go/jsonrpc/internal/testutil"
	"github.com/jsonrpc-go/jsonrpc/stream"
	"github.com/jsonrpc-go/jsonrpc/ws"
)

// Timeout ends a call without a deadline of its own with a *TimeoutError,
// which is a *jsonrpc.Error with CodeDeadline and a context.DeadlineExceeded;
// a call with its own deadline keeps it, and gets the context's error.
func TestTimeout(t *testing.T) {
	srv := newTestServer(t)
	c := client.New(client.Local(srv.Server), client.Timeout(50*time.Millisecond))
	defer c.Close()

	start := time.Now()
	_, err := client.Call[int](context.Background(), c, "wait", []int{1})
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("the call took %v, want about the 50ms timeout", took)
	}
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != jsonrpc.CodeDeadline || je.Message != "Deadline exceeded" {
		t.Errorf("err = %v, want a *jsonrpc.Error with code %d", err, jsonrpc.CodeDeadline)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want one wrapping context.DeadlineExceeded", err)
	}
	if !errors.Is(err, jsonrpc.NewError(jsonrpc.CodeDeadline, "")) {
		t.Errorf("err = %v, want errors.Is to match CodeDeadline", err)
	}
	var te *client.TimeoutError
	if !errors.As(err, &te) || te.Method != "wait" || te.Timeout != 50*time.Millisecond || te.Attempts != 1 {
		t.Errorf("err = %#v, want a *TimeoutError of wait, 50ms, 1 attempt", err)
	}
	if want := "jsonrpc: Deadline exceeded (-32010): wait: no answer within the client's timeout of 50ms"; err.Error() != want {
		t.Errorf("err.Error() =\n %s\nwant\n %s", err, want)
	}

	// The call's own deadline, longer than the Timeout, wins: the call
	// ends with the context's error once its deadline has passed. (Not
	// timed from the call's start: a pause between making the context and
	// the call, under load, would shorten what is measured.)
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
	defer cancel()
	deadline, _ := ctx.Deadline()
	_, err = client.Call[int](ctx, c, "wait", []int{2})
	if err != context.DeadlineExceeded {
		t.Errorf("with a deadline of its own: err = %v, want context.DeadlineExceeded", err)
	}
	if now := time.Now(); ctx.Err() != context.DeadlineExceeded || now.Before(deadline) {
		t.Errorf("with a deadline of its own of 150ms the call ended %v before it (ctx.Err() = %v)", deadline.Sub(now), ctx.Err())
	}

	// A batch is bounded too; a quick call is not affected.
	if _, err := c.Batch(context.Background(), []client.Spec{{Method: "wait", Params: []int{3}}}); !errors.As(err, &te) || te.Method != "batch" {
		t.Errorf("batch: err = %v, want a *TimeoutError", err)
	}
	if sum, err := client.Call[int](context.Background(), c, "addInt", []int{1, 2}); err != nil || sum != 3 {
		t.Errorf("addInt = %d, %v", sum, err)
	}
}

// flakyHTTP serves srv over HTTP, answering the first failures requests
// with status (and Retry-After: 0) instead; it counts the requests.
func flakyHTTP(t *testing.T, srv *jsonrpc.Server, status, failures int) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var n atomic.Int64
	h := &httprpc.Handler{Server: srv}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) <= int64(failures) {
			w.Header().Set("Retry-After", "0")
			http.Error(w, "try again", status)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	return ts, &n
}

func readOnly(method string) bool { return method == "addInt" || method == "add" }

var fastRetry = client.RetryPolicy{Attempts: 4, Backoff: time.Millisecond, MaxBackoff: 5 * time.Millisecond, Idempotent: readOnly}

// Retry sends an idempotent call again after 502, 503 and 504, and only
// then; a call that is not idempotent is sent once.
func TestRetryHTTPStatus(t *testing.T) {
	srv := newTestServer(t)
	for _, tc := range []struct {
		status, failures int
		method           string
		marked           bool // under WithIdempotent
		wantRequests     int64
		wantErr          bool
	}{
		{http.StatusServiceUnavailable, 2, "addInt", false, 3, false},
		{http.StatusBadGateway, 3, "addInt", false, 4, false},
		{http.StatusGatewayTimeout, 1, "addInt", false, 2, false},
		{http.StatusServiceUnavailable, 4, "addInt", false, 4, true}, // Attempts
		{http.StatusInternalServerError, 1, "addInt", false, 1, true},
		{http.StatusTooManyRequests, 1, "addInt", false, 1, true},
		{http.StatusServiceUnavailable, 1, "subtract", false, 1, true}, // not idempotent
		{http.StatusServiceUnavailable, 1, "subtract", true, 2, false},
	} {
		ts, n := flakyHTTP(t, srv.Server, tc.status, tc.failures)
		c := client.New(client.HTTP(ts.URL, nil), client.Retry(fastRetry))
		ctx := context.Background()
		if tc.marked {
			ctx = client.WithIdempotent(ctx)
		}
		_, err := client.Call[int](ctx, c, tc.method, []int{1, 2})
		c.Close()
		var he *client.HTTPStatusError
		switch {
		case tc.wantErr && (!errors.As(err, &he) || he.StatusCode != tc.status):
			t.Errorf("%d x%d %s: err = %v, want an *HTTPStatusError %d", tc.status, tc.failures, tc.method, err, tc.status)
		case !tc.wantErr && err != nil:
			t.Errorf("%d x%d %s: err = %v", tc.status, tc.failures, tc.method, err)
		}
		if got := n.Load(); got != tc.wantRequests {
			t.Errorf("%d x%d %s (marked %v): %d requests, want %d", tc.status, tc.failures, tc.method, tc.marked, got, tc.wantRequests)
		}
	}

	// Without Retry, nothing is retried.
	ts, n := flakyHTTP(t, srv.Server, http.StatusServiceUnavailable, 1)
	c := client.New(client.HTTP(ts.URL, nil))
	defer c.Close()
	if _, err := client.Call[int](client.WithIdempotent(context.Background()), c, "addInt", []int{1, 2}); err == nil || n.Load() != 1 {
		t.Errorf("without Retry: err = %v after %d requests, want an error after 1", err, n.Load())
	}
}

// Retry waits between attempts, Backoff doubling up to MaxBackoff, and the
// Timeout bounds the retries and the waits.
func TestRetryBackoffAndTimeout(t *testing.T) {
	srv := newTestServer(t)
	ts, n := flakyHTTP(t, srv.Server, http.StatusServiceUnavailable, 1000)
	p := client.RetryPolicy{Attempts: 4, Backoff: 40 * time.Millisecond, MaxBackoff: 80 * time.Millisecond, Idempotent: readOnly}
	c := client.New(client.HTTP(ts.URL, nil), client.Retry(p))
	start := time.Now()
	_, err := client.Call[int](context.Background(), c, "addInt", []int{1, 2})
	took := time.Since(start)
	c.Close()
	// Waits of 20-40, 40-80 and 40-80 ms.
	if n.Load() != 4 || took < 100*time.Millisecond {
		t.Errorf("%d requests in %v, want 4 in at least 100ms", n.Load(), took)
	}
	if he := new(client.HTTPStatusError); !errors.As(err, &he) {
		t.Errorf("err = %v, want the last *HTTPStatusError", err)
	}

	// The Timeout ends the wait before the next attempt: an answer of
	// "server shutting down" comes at once, the backoff is a second.
	refusing := jsonrpc.NewServer()
	refusing.MustRegister("addInt", func(ctx context.Context) error {
		return jsonrpc.NewError(jsonrpc.CodeLimitExceeded, "").WithData(ws.ShutdownData)
	})
	p.Attempts, p.Backoff, p.MaxBackoff = 100, time.Second, time.Second
	c = client.New(client.Local(refusing), client.Retry(p), client.Timeout(100*time.Millisecond))
	defer c.Close()
	start = time.Now()
	_, err = client.Call[int](context.Background(), c, "addInt", nil)
	took = time.Since(start)
	var te *client.TimeoutError
	if !errors.As(err, &te) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want a *TimeoutError", err)
	}
	if je := new(jsonrpc.Error); te.Attempts != 1 || !errors.As(te.Last, &je) || je.Code != jsonrpc.CodeLimitExceeded {
		t.Errorf("Attempts %d, Last %v; want 1 attempt whose error was -32005", te.Attempts, te.Last)
	}
	if want := "(after 1 attempt(s); the last: jsonrpc: Limit exceeded (-32005): server shutting down)"; !strings.HasSuffix(err.Error(), want) {
		t.Errorf("err.Error() = %s\nwant it to end with %s", err, want)
	}
	if took > 900*time.Millisecond {
		t.Errorf("the Timeout of 100ms ended the backoff of 1s after %v", took)
	}
}

// Retry retries the answer "server shutting down" (-32005), and no other
// error answer.
func TestRetryShutdownAnswer(t *testing.T) {
	srv := jsonrpc.NewServer()
	var calls atomic.Int64
	srv.MustRegister("get", func(ctx context.Context, data string) (int64, error) {
		if n := calls.Add(1); n <= 2 {
			return 0, jsonrpc.NewError(jsonrpc.CodeLimitExceeded, "").WithData(data)
		}
		return calls.Load(), nil
	})
	p := fastRetry
	p.Idempotent = func(string) bool { return true }
	c := client.New(client.Local(srv), client.Retry(p))
	defer c.Close()
	if got, err := client.Call[int64](context.Background(), c, "get", []string{ws.ShutdownData}); err != nil || got != 3 {
		t.Errorf("shutting down twice: got %d, %v; want 3 (the third attempt)", got, err)
	}
	calls.Store(0)
	_, err := client.Call[int64](context.Background(), c, "get", []string{"too many calls in flight"})
	if !errors.Is(err, jsonrpc.NewError(jsonrpc.CodeLimitExceeded, "")) || calls.Load() != 1 {
		t.Errorf("another -32005: err = %v after %d calls, want it after 1", err, calls.Load())
	}
}

// Under mcp.Protocol(), Retry also retries MCP's shutdown refusal
// (mcp.CodeShuttingDown, "server shutting down"), and not MCP's limit
// refusal with that data's neighbours.
func TestRetryShutdownAnswerMCP(t *testing.T) {
	srv := jsonrpc.NewServer()
	var calls atomic.Int64
	srv.MustRegister("get", func(ctx context.Context, code int, data string) (int64, error) {
		if n := calls.Add(1); n <= 2 {
			return 0, jsonrpc.NewError(jsonrpc.Code(code), "Server shutting down").WithData(data)
		}
		return calls.Load(), nil
	})
	p := fastRetry
	p.Idempotent = func(string) bool { return true }
	c := client.New(client.Local(srv), client.Retry(p), client.UseProtocol(mcp.Protocol()))
	defer c.Close()
	for _, code := range []jsonrpc.Code{mcp.CodeShuttingDown, jsonrpc.CodeLimitExceeded} {
		calls.Store(0)
		if got, err := client.Call[int64](context.Background(), c, "get", []any{code, ws.ShutdownData}); err != nil || got != 3 {
			t.Errorf("%d shutting down twice: got %d, %v; want 3 (the third attempt)", code, got, err)
		}
	}
	calls.Store(0)
	_, err := client.Call[int64](context.Background(), c, "get", []any{mcp.CodeLimitExceeded, "too many calls in flight"})
	if !errors.Is(err, jsonrpc.NewError(mcp.CodeLimitExceeded, "")) || calls.Load() != 1 {
		t.Errorf("MCP's limit refusal: err = %v after %d calls, want it after 1", err, calls.Load())
	}
	// Without the Protocol, MCP's code is not a shutdown refusal.
	c2 := client.New(client.Local(srv), client.Retry(p))
	defer c2.Close()
	calls.Store(0)
	if _, err := client.Call[int64](context.Background(), c2, "get", []any{mcp.CodeShuttingDown, ws.ShutdownData}); err == nil || calls.Load() != 1 {
		t.Errorf("MCP's shutdown code without UseProtocol(mcp.Protocol()): err = %v after %d calls, want an error after 1", err, calls.Load())
	}
}

// Retry retries an idempotent call whose connection was refused: the
// transport's first dials go to a port where nothing listens.
func TestRetryConnectionRefused(t *testing.T) {
	testutil.SkipOnWasm(t, "TCP to its own listener")
	srv := newTestServer(t)
	ts := httptest.NewServer(&httprpc.Handler{Server: srv.Server})
	defer ts.Close()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := l.Addr().String()
	l.Close()
	var dials atomic.Int64
	tr := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		if dials.Add(1) <= 2 {
			addr = closed
		}
		var d net.Dialer
		return d.DialContext(ctx, network, addr)
	}}
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr}

	c := client.New(client.HTTP(ts.URL, hc), client.Retry(fastRetry))
	defer c.Close()
	if sum, err := client.Call[int](context.Background(), c, "addInt", []int{1, 2}); err != nil || sum != 3 || dials.Load() != 3 {
		t.Errorf("addInt = %d, %v after %d dials; want 3 after 3", sum, err, dials.Load())
	}
	dials.Store(0)
	tr.CloseIdleConnections()
	_, err = client.Call[int](context.Background(), c, "subtract", []int{1, 2})
	if !errors.Is(err, syscall.ECONNREFUSED) || dials.Load() != 1 {
		t.Errorf("not idempotent: err = %v after %d dials, want connection refused after 1", err, dials.Load())
	}
}

// started waits for the server to start a call of "wait".
func started(t *testing.T, srv *testServer, what string) {
	t.Helper()
	select {
	case <-srv.started:
	case <-time.After(5 * time.Second):
		t.Fatalf("%s: the server did not start the call", what)
	}
}

// tcpServer serves srv over TCP, keeping the server's side of each
// connection so that the test can break them.
type tcpServer struct {
	addr  string
	mu    sync.Mutex
	conns []net.Conn
	dials atomic.Int64
}

func newTCPServer(t *testing.T, srv *jsonrpc.Server) *tcpServer {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &tcpServer{addr: l.Addr().String()}
	ss := &stream.Server{Server: srv}
	var wg sync.WaitGroup
	t.Cleanup(func() { l.Close(); s.breakAll(); wg.Wait() })
	wg.Go(func() {
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			s.mu.Lock()
			s.conns = append(s.conns, conn)
			s.mu.Unlock()
			wg.Go(func() { ss.ServeConn(context.Background(), conn) })
		}
	})
	return s
}

// breakAll closes the server's side of every connection.
func (s *tcpServer) breakAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.conns {
		c.Close()
	}
	s.conns = nil
}

func (s *tcpServer) dial(ctx context.Context) (client.Channel, error) {
	s.dials.Add(1)
	return client.Dial(ctx, "tcp", s.addr, nil)
}

// A client made by Redial dials at its first call, fails the calls in
// flight when its connection breaks with ErrConnectionLost and ErrClosed,
// and makes its later calls over a new connection; with Retry, an
// idempotent call in flight is sent again over it.
func TestRedialStream(t *testing.T) {
	testutil.SkipOnWasm(t, "TCP to its own listener")
	srv := newTestServer(t)
	ts := newTCPServer(t, srv.Server)
	c := client.Redial(ts.dial, client.Retry(fastRetry))
	defer c.Close()
	if c.Conn() != nil || ts.dials.Load() != 0 {
		t.Fatal("Redial dialed before the first call")
	}
	if sum, err := client.Call[int](context.Background(), c, "addInt", []int{1, 2}); err != nil || sum != 3 {
		t.Fatalf("addInt = %d, %v", sum, err)
	}
	first := c.Conn()

	// A call in flight (wait is not idempotent) fails when the connection
	// breaks.
	errs := make(chan error, 1)
	go func() {
		_, err := client.Call[int](context.Background(), c, "wait", []int{1})
		errs <- err
	}()
	started(t, srv, "the call in flight")
	ts.breakAll()
	select {
	case err := <-errs:
		if !errors.Is(err, client.ErrConnectionLost) || !errors.Is(err, client.ErrClosed) {
			t.Errorf("the call in flight: err = %v, want one wrapping ErrConnectionLost and ErrClosed", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the call in flight did not fail")
	}

	// Later calls go over a new connection.
	if sum, err := client.Call[int](context.Background(), c, "addInt", []int{2, 3}); err != nil || sum != 5 {
		t.Fatalf("after the break: addInt = %d, %v", sum, err)
	}
	if c.Conn() == first || ts.dials.Load() != 2 {
		t.Errorf("after the break: %d dials, want 2 and a new connection", ts.dials.Load())
	}

	// An idempotent call in flight is retried over the next connection.
	idem := client.WithIdempotent(context.Background())
	go func() {
		_, err := client.Call[int](idem, c, "wait", []int{2})
		errs <- err
	}()
	started(t, srv, "an idempotent call")
	ts.breakAll()
	started(t, srv, "an idempotent call sent again")
	srv.releaseAll()
	if err := <-errs; err != nil {
		t.Errorf("an idempotent call in flight: %v, want it retried", err)
	}
	if ts.dials.Load() != 3 {
		t.Errorf("%d dials, want 3", ts.dials.Load())
	}

	c.Close()
	_, err := client.Call[int](idem, c, "addInt", []int{1, 2})
	if !errors.Is(err, client.ErrClosed) || errors.Is(err, client.ErrConnectionLost) {
		t.Errorf("after Close: err = %v, want ErrClosed, not ErrConnectionLost", err)
	}
	if ts.dials.Load() != 3 {
		t.Errorf("after Close: %d dials, want 3", ts.dials.Load())
	}
}

// Redial's failed dials fail the calls that waited for them, and the next
// dials back off; an idempotent call is retried until a dial succeeds.
func TestRedialBackoff(t *testing.T) {
	testutil.SkipOnWasm(t, "TCP to its own listener")
	srv := newTestServer(t)
	ts := newTCPServer(t, srv.Server)
	var dials atomic.Int64
	refuse := errors.New("refused by the test")
	dial := func(ctx context.Context) (client.Channel, error) {
		if dials.Add(1) <= 3 {
			return client.Channel{}, refuse
		}
		return ts.dial(ctx)
	}
	p := client.RetryPolicy{Attempts: 5, Backoff: 20 * time.Millisecond, MaxBackoff: 40 * time.Millisecond, Idempotent: readOnly}
	c := client.Redial(dial, client.Retry(p))
	defer c.Close()

	// Not idempotent: one dial, its error.
	_, err := client.Call[int](context.Background(), c, "subtract", []int{3, 1})
	if !errors.Is(err, refuse) || dials.Load() != 1 {
		t.Fatalf("err = %v after %d dials, want the dial's error after 1", err, dials.Load())
	}
	start := time.Now()
	sum, err := client.Call[int](context.Background(), c, "addInt", []int{1, 2})
	took := time.Since(start)
	if err != nil || sum != 3 || dials.Load() != 4 {
		t.Errorf("addInt = %d, %v after %d dials; want 3 after 4", sum, err, dials.Load())
	}
	// The dials wait 10-20, 20-40 and 20-40 ms after the failures before
	// them.
	if took < 50*time.Millisecond {
		t.Errorf("3 dials after failures took %v, want at least 50ms of backoff", took)
	}
}
