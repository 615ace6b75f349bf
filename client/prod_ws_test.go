//go:build !js

package client_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/client"
	"github.com/jsonrpc-go/jsonrpc/ws"
)

// (Under js, websocket.DialOptions has no HTTPHeader: a browser's
// WebSocket sends no headers of the caller's.)

// swapHandler serves WebSocket with the ws.Handler of the moment, which
// the test replaces to break the connections of the old one.
type swapHandler struct {
	srv *jsonrpc.Server
	cur atomic.Pointer[ws.Handler]
}

func (h *swapHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.cur.Load().ServeHTTP(w, r)
}

func (h *swapHandler) restart(t *testing.T) {
	old := h.cur.Swap(&ws.Handler{Server: h.srv})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := old.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
}

// ws.Dial sends the request headers of its websocket.DialOptions with the
// upgrade, which the server's methods see; a client made by Redial over
// ws.Dial reconnects, with the same headers, when the server closes the
// connection.
func TestWebSocketHeadersAndRedial(t *testing.T) {
	srv := jsonrpc.NewServer()
	srv.MustRegister("whoami", func(ctx context.Context) string {
		return jsonrpc.CallOf(ctx).ContextValue().(*http.Request).Header.Get("Authorization")
	})
	h := &swapHandler{srv: srv}
	h.cur.Store(&ws.Handler{Server: srv})
	hs := httptest.NewServer(h)
	defer hs.Close()
	url := "ws" + hs.URL[len("http"):]

	var dials atomic.Int64
	c := client.Redial(func(ctx context.Context) (client.Channel, error) {
		dials.Add(1)
		return ws.Dial(ctx, url, &websocket.DialOptions{HTTPHeader: http.Header{"Authorization": {"Bearer alice"}}})
	}, client.Retry(client.RetryPolicy{Idempotent: func(string) bool { return true }}))
	defer c.Close()
	for i := range 2 {
		who, err := client.Call[string](context.Background(), c, "whoami", nil)
		if err != nil || who != "Bearer alice" {
			t.Fatalf("connection %d: whoami = %q, %v; want Bearer alice", i+1, who, err)
		}
		if dials.Load() != int64(i+1) {
			t.Errorf("connection %d: %d dials", i+1, dials.Load())
		}
		h.restart(t)
		<-c.Conn().Done()
	}
}
