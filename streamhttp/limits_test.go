package streamhttp_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/internal/leaktest"
	"github.com/jsonrpc-go/jsonrpc/internal/testutil"
	"github.com/jsonrpc-go/jsonrpc/peer"
	"github.com/jsonrpc-go/jsonrpc/streamhttp"
)

// TestDisconnectIsNotCancellation: in a session (MCP 2025-11-25), a client
// gone from a call's stream does not cancel the call; its events are
// kept, and a GET with Last-Event-ID gets exactly those it missed, its
// answer last, after which the stream ends and is forgotten.
func TestDisconnectIsNotCancellation(t *testing.T) {
	leaktest.Check(t)
	srv, st := newSessionServer(t)
	step := make(chan struct{})
	srv.MustRegister("steps", func(ctx context.Context) (string, error) {
		conn := peer.FromContext(ctx)
		for i := 1; i <= 4; i++ {
			if i == 3 {
				st.started <- struct{}{}
				<-step // the client is gone now
			}
			if err := conn.Notify(ctx, "notifications/message", map[string]int{"step": i}); err != nil {
				return "", err
			}
		}
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "done", nil
	}, jsonrpc.Blocking())
	url := sessionServer(t, &streamhttp.Handler{Server: srv})
	id := initialize(t, url)

	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","method":"steps","id":"s"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", both)
	req.Header.Set("Mcp-Session-Id", id)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	s := newSSE(t, resp)
	s.mustNext() // priming
	first := s.mustNext()
	if first.data != `{"jsonrpc":"2.0","method":"notifications/message","params":{"step":1}}` {
		t.Fatalf("first event %+v", first)
	}
	<-st.started
	cancel()
	resp.Body.Close()
	close(step)

	resumed := newSSE(t, getStream(t, url, id, first.id))
	var got []string
	for {
		e, ok := resumed.next()
		if !ok {
			break
		}
		got = append(got, e.data)
	}
	want := []string{
		`{"jsonrpc":"2.0","method":"notifications/message","params":{"step":2}}`,
		`{"jsonrpc":"2.0","method":"notifications/message","params":{"step":3}}`,
		`{"jsonrpc":"2.0","method":"notifications/message","params":{"step":4}}`,
		`{"jsonrpc":"2.0","result":"done","id":"s"}`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("resumed after %s:\n%s\nwant\n%s", first.id, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	select {
	case <-st.cancelled:
		t.Error("the call was cancelled")
	default:
	}
	if resp := getStream(t, url, id, first.id); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("resuming a stream delivered whole: %d, want 400", resp.StatusCode)
	}
}

// TestCloseStream: a method ends the connection of its stream with
// CloseStream: the client gets the priming event, with a retry field, and
// the end of the response; the answer waits for the client to resume.
func TestCloseStream(t *testing.T) {
	leaktest.Check(t)
	srv, _ := newSessionServer(t)
	closed := make(chan bool, 1)
	srv.MustRegister("poll", func(ctx context.Context) string {
		closed <- streamhttp.CloseStream(ctx)
		return "polled"
	}, jsonrpc.Blocking())
	url := sessionServer(t, &streamhttp.Handler{Server: srv, Retry: 1500 * 1e6})
	id := initialize(t, url)
	resp := post(t, url, both, `{"jsonrpc":"2.0","method":"poll","id":1}`, "Mcp-Session-Id", id)
	s := newSSE(t, resp)
	prime := s.mustNext()
	if !prime.retry || prime.data != "" {
		t.Errorf("priming event %+v, want a retry field and no data", prime)
	}
	if e, ok := s.next(); ok {
		t.Errorf("an event after CloseStream: %+v", e)
	}
	if !<-closed {
		t.Error("CloseStream reported false")
	}
	resumed := newSSE(t, getStream(t, url, id, prime.id))
	if e := resumed.mustNext(); e.data != `{"jsonrpc":"2.0","result":"polled","id":1}` {
		t.Errorf("resumed: %+v, want the answer", e)
	}
	if e, ok := resumed.next(); ok {
		t.Errorf("an event after the answer: %+v", e)
	}
	// Outside a session, and for a JSON answer, it does nothing.
	resp = post(t, url, both, `{"jsonrpc":"2.0","method":"poll","id":2}`)
	if got := readAll(t, resp); got != `{"jsonrpc":"2.0","result":"polled","id":2}` || <-closed {
		t.Errorf("without a session: %s", got)
	}
}

// TestSessionBounds: MaxSessions (503 with Retry-After past it),
// MaxStreams (503 for a call past it, while calls run), MaxEvents (events
// older than those kept cannot be resumed: 400), SessionIdle (a session
// unused for that long ends: 404).
func TestSessionBounds(t *testing.T) {
	leaktest.Check(t)
	srv, st := newSessionServer(t)
	srv.MustRegister("push", func(ctx context.Context, n int) string {
		for i := range n {
			peer.FromContext(ctx).Notify(context.Background(), "notifications/message", map[string]int{"i": i})
		}
		return "pushed"
	}, jsonrpc.ParamNames("n"))
	h := &streamhttp.Handler{Server: srv, MaxSessions: 2, MaxSessionsPerClient: 2, MaxStreams: 3, MaxEvents: 2}
	url := sessionServer(t, h)
	id := initialize(t, url)
	initialize(t, url)
	resp := post(t, url, both, `{"jsonrpc":"2.0","method":"initialize","params":{},"id":0}`)
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
		t.Errorf("a session past MaxSessions: %d %v, want 503 with Retry-After", resp.StatusCode, resp.Header)
	}

	// The GET stream, and two calls running: the session's three streams.
	g := newSSE(t, getStream(t, url, id, ""))
	prime := g.mustNext()
	done := make(chan string, 2)
	for i := range 2 {
		go func() {
			resp := post(t, url, "application/json", fmt.Sprintf(`{"jsonrpc":"2.0","method":"hold","id":%d}`, 10+i), "Mcp-Session-Id", id)
			done <- readAll(t, resp)
		}()
		<-st.started
	}
	resp = post(t, url, both, `{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`, "Mcp-Session-Id", id)
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
		t.Errorf("a call past MaxStreams: %d, want 503 with Retry-After", resp.StatusCode)
	}
	close(st.release)
	<-done
	<-done

	// Five events on the GET stream: the first three are no longer kept.
	if got := readAll(t, post(t, url, both, `{"jsonrpc":"2.0","method":"push","params":{"n":5},"id":2}`, "Mcp-Session-Id", id)); got != `{"jsonrpc":"2.0","result":"pushed","id":2}` {
		t.Fatalf("push: %s", got)
	}
	for range 5 {
		g.mustNext()
	}
	if resp := getStream(t, url, id, prime.id); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("resuming from an event no longer kept: %d, want 400", resp.StatusCode)
	}

	idle := &streamhttp.Handler{Server: srv, SessionIdle: 1e6}
	iurl := sessionServer(t, idle)
	iid := initialize(t, iurl)
	waitFor(t, func() bool { return idle.Sessions() == 0 })
	if resp := post(t, iurl, both, `{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`, "Mcp-Session-Id", iid); resp.StatusCode != http.StatusNotFound {
		t.Errorf("a call in a session ended for idleness: %d, want 404", resp.StatusCode)
	}
}

// TestIdleSessionsHeap: 10,000 idle sessions stay under 16 KiB of heap
// each (a session, its connection and the goroutine that reads it), and
// Close ends them all.
func TestIdleSessionsHeap(t *testing.T) {
	if testing.Short() {
		t.Skip("10,000 sessions")
	}
	testutil.SkipOnWasm(t, "10,000 goroutines, and a heap the ports measure their own way")
	leaktest.Check(t)
	srv := jsonrpc.NewServer()
	srv.MustRegister("initialize", func(struct{}) string { return "ready" })
	h := &streamhttp.Handler{Server: srv, SessionMethod: "initialize", MaxSessions: 10_000, MaxSessionsPerClient: 10_000}
	const n = 10_000
	const bound = 16 << 10
	initialize := func() {
		req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(`{"jsonrpc":"2.0","method":"initialize","params":{},"id":0}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", both)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != 200 || rec.Header().Get("Mcp-Session-Id") == "" {
			t.Fatalf("initialize: %d %s", rec.Code, rec.Body)
		}
	}
	initialize() // what the first session makes once (the event store, the buffers' pools)
	before := testutil.LiveHeap()
	goroutines := runtime.NumGoroutine()
	for range n - 1 {
		initialize()
	}
	after := testutil.LiveHeap()
	per := (int64(after) - int64(before)) / (n - 1)
	t.Logf("%d idle sessions: %d bytes of heap each, %d goroutines", h.Sessions(), per, runtime.NumGoroutine()-goroutines)
	if h.Sessions() != n {
		t.Errorf("%d sessions, want %d", h.Sessions(), n)
	}
	if per > bound {
		t.Errorf("an idle session holds %d bytes of heap, want at most %d", per, bound)
	}
	h.Close()
	if h.Sessions() != 0 {
		t.Errorf("%d sessions after Close", h.Sessions())
	}
}
