package streamhttp_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/jsonrpc-go/jsonrpc/streamhttp"
)

// serveRec serves one POST of body through h in memory and returns the
// recorder.
func serveRec(ctx context.Context, h http.Handler, body string, header ...string) *httptest.ResponseRecorder {
	req := httptest.NewRequestWithContext(ctx, http.MethodPost, "/mcp", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// TestSessionIdle: a session ends SessionIdle after its last request, each
// request starting its idle time again, and not while a call of its still
// runs after its client has gone.
func TestSessionIdle(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, st := newSessionServer(t)
		h := &streamhttp.Handler{Server: srv, SessionMethod: "initialize", SessionIdle: time.Minute, NewSessionIdle: -1}
		defer h.Close()
		rec := serveRec(context.Background(), h, `{"jsonrpc":"2.0","method":"initialize","params":{},"id":0}`)
		id := rec.Header().Get("Mcp-Session-Id")
		if id == "" {
			t.Fatalf("initialize: %d %s", rec.Code, rec.Body)
		}
		alive := func(when string, want int) {
			t.Helper()
			synctest.Wait()
			if n := h.Sessions(); n != want {
				t.Fatalf("%s: %d sessions, want %d", when, n, want)
			}
		}
		time.Sleep(59 * time.Second)
		alive("59 s after initialize", 1)
		if rec := serveRec(context.Background(), h, `{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`, "Mcp-Session-Id", id); rec.Code != 200 {
			t.Fatalf("a call: %d %s", rec.Code, rec.Body)
		}
		time.Sleep(59 * time.Second)
		alive("59 s after the call", 1)

		// A call whose client goes: the session stays while it runs.
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() {
			serveRec(ctx, h, `{"jsonrpc":"2.0","method":"hold","id":2}`, "Mcp-Session-Id", id)
			close(done)
		}()
		<-st.started
		cancel()
		<-done
		time.Sleep(10 * time.Minute)
		alive("10 minutes into a call whose client has gone", 1)
		close(st.release)
		time.Sleep(2 * time.Minute)
		alive("2 minutes after the call ended", 0)
		if rec := serveRec(context.Background(), h, `{"jsonrpc":"2.0","method":"add","params":[1,2],"id":3}`, "Mcp-Session-Id", id); rec.Code != 404 {
			t.Errorf("a call in the ended session: %d, want 404", rec.Code)
		}
	})
}
