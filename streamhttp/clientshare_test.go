package streamhttp_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/peer"
	"github.com/jsonrpc-go/jsonrpc/streamhttp"
	"github.com/jsonrpc-go/jsonrpc/transport"
)

// serveFrom serves one request of method (POST with body, or GET of a
// stream) from the client address remote through h in memory.
func serveFrom(ctx context.Context, h http.Handler, method, remote, body string, header ...string) *httptest.ResponseRecorder {
	req := httptest.NewRequestWithContext(ctx, method, "/mcp", strings.NewReader(body))
	req.RemoteAddr = remote
	if method == http.MethodPost {
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json")
	} else {
		req.Header.Set("Accept", "text/event-stream")
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

const initReq = `{"jsonrpc":"2.0","method":"initialize","params":{},"id":0}`

// TestClientShares: a client (127.0.0.1) that holds its share of the
// sessions (half of MaxSessions) and of the requests served at once (half
// of MaxConns, here two GET streams) is refused more, with 429 and
// Retry-After, while a client of another address (127.0.0.2) begins a
// session, opens its GET stream and calls (issue 34: 4,095 sessions of
// one address locked every other client out, and their GET streams the
// listener).
func TestClientShares(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, _ := newSessionServer(t)
		h := &streamhttp.Handler{Server: srv, SessionMethod: "initialize", MaxSessions: 4, Limits: transport.Limits{MaxConns: 4}}
		defer h.Close()
		const attacker, victim = "127.0.0.1:40000", "127.0.0.2:40000"
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		var ids []string
		for range 2 {
			rec := serveFrom(ctx, h, http.MethodPost, attacker, initReq)
			id := rec.Header().Get("Mcp-Session-Id")
			if rec.Code != 200 || id == "" {
				t.Fatalf("the attacker's initialize: %d %s", rec.Code, rec.Body)
			}
			ids = append(ids, id)
			go serveFrom(ctx, h, http.MethodGet, attacker, "", "Mcp-Session-Id", id)
		}
		synctest.Wait() // both GET streams held
		rec := serveFrom(ctx, h, http.MethodPost, attacker, initReq)
		if rec.Code != http.StatusTooManyRequests || rec.Header().Get("Retry-After") == "" {
			t.Errorf("the attacker's third session: %d %v %s, want 429 with Retry-After", rec.Code, rec.Header(), rec.Body)
		}
		rec = serveFrom(ctx, h, http.MethodPost, attacker, `{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`, "Mcp-Session-Id", ids[0])
		if rec.Code != http.StatusTooManyRequests || rec.Header().Get("Retry-After") == "" {
			t.Errorf("the attacker's third request at once: %d %v %s, want 429 with Retry-After", rec.Code, rec.Header(), rec.Body)
		}

		rec = serveFrom(ctx, h, http.MethodPost, victim, initReq)
		id := rec.Header().Get("Mcp-Session-Id")
		if rec.Code != 200 || id == "" {
			t.Fatalf("the victim's initialize: %d %s", rec.Code, rec.Body)
		}
		got := make(chan *httptest.ResponseRecorder)
		gctx, gcancel := context.WithCancel(ctx)
		go func() { got <- serveFrom(gctx, h, http.MethodGet, victim, "", "Mcp-Session-Id", id) }()
		synctest.Wait()
		rec = serveFrom(ctx, h, http.MethodPost, victim, `{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`, "Mcp-Session-Id", id)
		if rec.Code != 200 || rec.Body.String() != `{"jsonrpc":"2.0","result":3,"id":1}` {
			t.Errorf("the victim's call: %d %s", rec.Code, rec.Body)
		}
		gcancel()
		if g := <-got; g.Code != 200 || !strings.HasPrefix(g.Body.String(), "id: ") {
			t.Errorf("the victim's GET stream: %d %q", g.Code, g.Body)
		}
	})
}

// TestNewSessionIdle: a session that no request used after its
// initialize ends after NewSessionIdle (30 s), one used again after
// SessionIdle (issue 34: sessions begun and left held their places for 10
// minutes).
func TestNewSessionIdle(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, _ := newSessionServer(t)
		h := &streamhttp.Handler{Server: srv, SessionMethod: "initialize"}
		defer h.Close()
		left := serveRec(context.Background(), h, initReq).Header().Get("Mcp-Session-Id")
		used := serveRec(context.Background(), h, initReq).Header().Get("Mcp-Session-Id")
		if rec := serveRec(context.Background(), h, `{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`, "Mcp-Session-Id", used); rec.Code != 200 {
			t.Fatalf("a call: %d %s", rec.Code, rec.Body)
		}
		time.Sleep(streamhttp.DefaultNewSessionIdle - time.Second)
		synctest.Wait()
		if n := h.Sessions(); n != 2 {
			t.Fatalf("before NewSessionIdle: %d sessions, want 2", n)
		}
		time.Sleep(2 * time.Second)
		synctest.Wait()
		if n := h.Sessions(); n != 1 {
			t.Fatalf("after NewSessionIdle: %d sessions, want 1", n)
		}
		if rec := serveRec(context.Background(), h, `{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`, "Mcp-Session-Id", left); rec.Code != 404 {
			t.Errorf("the session left after initialize: %d, want 404", rec.Code)
		}
		time.Sleep(streamhttp.DefaultSessionIdle)
		synctest.Wait()
		if n := h.Sessions(); n != 0 {
			t.Errorf("after SessionIdle: %d sessions, want 0", n)
		}
	})
}

// TestGetStreamTimes: the response of a GET stream ends when no event was
// sent on it for StreamIdle (keep-alive comments do not count), and after
// StreamLifetime however busy; the session goes on, and the client opens
// the stream again (issue 34: GET streams never ended).
func TestGetStreamTimes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, _ := newSessionServer(t)
		srv.MustRegister("push", func(ctx context.Context) string {
			peer.FromContext(ctx).Notify(context.Background(), "notifications/message", nil)
			return "pushed"
		}, jsonrpc.ParamNames())
		h := &streamhttp.Handler{Server: srv, SessionMethod: "initialize", KeepAlive: 10 * time.Second}
		defer h.Close()
		id := serveRec(context.Background(), h, initReq).Header().Get("Mcp-Session-Id")
		open := func() (chan struct{}, *httptest.ResponseRecorder) {
			done := make(chan struct{})
			req := httptest.NewRequest(http.MethodGet, "/mcp", nil)
			req.Header.Set("Accept", "text/event-stream")
			req.Header.Set("Mcp-Session-Id", id)
			rec := httptest.NewRecorder()
			go func() {
				h.ServeHTTP(rec, req)
				close(done)
			}()
			return done, rec
		}
		ended := func(done chan struct{}) bool {
			synctest.Wait()
			select {
			case <-done:
				return true
			default:
				return false
			}
		}
		done, rec := open()
		time.Sleep(streamhttp.DefaultStreamIdle - time.Second)
		if ended(done) {
			t.Fatal("the GET stream ended before StreamIdle")
		}
		time.Sleep(2 * time.Second)
		if !ended(done) {
			t.Fatal("the GET stream did not end after StreamIdle with no event")
		}
		if !strings.Contains(rec.Body.String(), ": keep-alive") {
			t.Errorf("no keep-alive comment while it waited: %q", rec.Body)
		}

		// A stream with an event every minute lives StreamLifetime.
		done, _ = open()
		start := time.Now()
		for !ended(done) {
			time.Sleep(time.Minute)
			serveRec(context.Background(), h, `{"jsonrpc":"2.0","method":"push","id":1}`, "Mcp-Session-Id", id)
		}
		if took := time.Since(start); took < streamhttp.DefaultStreamLifetime || took > streamhttp.DefaultStreamLifetime+time.Minute {
			t.Errorf("a busy GET stream ended after %v, want StreamLifetime (%v)", took, streamhttp.DefaultStreamLifetime)
		}
		if h.Sessions() != 1 {
			t.Errorf("%d sessions, want the session to go on", h.Sessions())
		}
	})
}

// TestUnknownLastEventID: with a SessionStore, a Last-Event-ID naming a
// stream that nothing kept is answered 400 and leaves nothing behind in
// the session (issue 34: 298,081 such GETs grew the process by 165 MiB,
// and the session's next POST waited 32.7 s while they were dropped).
func TestUnknownLastEventID(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, _ := newSessionServer(t)
		h := &streamhttp.Handler{Server: srv, SessionMethod: "initialize", SessionStore: &streamhttp.MemorySessions{}}
		defer h.Close()
		id := serveRec(context.Background(), h, initReq).Header().Get("Mcp-Session-Id")
		before := streamhttp.StreamsOf(h, id)
		for i := range 1000 {
			rec := serveFrom(context.Background(), h, http.MethodGet, "127.0.0.1:1", "", "Mcp-Session-Id", id, "Last-Event-ID", fmt.Sprintf("x%d-1", i))
			if rec.Code != http.StatusBadRequest {
				t.Fatalf("Last-Event-ID of nothing kept: %d %s, want 400", rec.Code, rec.Body)
			}
		}
		if n := streamhttp.StreamsOf(h, id); n != before {
			t.Errorf("the session keeps %d streams after 1,000 Last-Event-IDs of nothing, want %d", n, before)
		}
	})
}
