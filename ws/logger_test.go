//go:build !js

package ws_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/jsonrpc-go/jsonrpc/transport"

	"github.com/jsonrpc-go/jsonrpc/client"
	"github.com/jsonrpc-go/jsonrpc/internal/leaktest"
	"github.com/jsonrpc-go/jsonrpc/internal/testutil"
	"github.com/jsonrpc-go/jsonrpc/ws"
)

// TestLogger: a Handler's Logger records connections opened and closed
// with their remote address, a connection closed for MaxMessage, an
// upgrade refused at MaxConns, and shutdown progress.
func TestLogger(t *testing.T) {
	leaktest.Check(t)
	log, rec := testutil.NewLog()
	h := &ws.Handler{Logger: log, Limits: transport.Limits{MaxMessage: 1024, MaxConns: 1}}
	s := newServer(t, h)

	conn := rawConn(t, s.url)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if got := exchange(t, conn, `{"jsonrpc":"2.0","method":"addInt","params":[1,2],"id":1}`); !strings.Contains(got, `"result":3`) {
		t.Fatalf("got %s", got)
	}
	opened := rec.Wait(t, "connection opened")
	testutil.Want(t, opened, "DEBUG", nil)
	if r, _ := opened["remote"].(string); !strings.HasPrefix(r, "127.0.0.1:") {
		t.Errorf("connection opened: remote %v", opened["remote"])
	}

	// A second connection past MaxConns is refused before the upgrade.
	if _, _, err := websocket.Dial(ctx, s.url, nil); err == nil {
		t.Fatal("a second connection was accepted past MaxConns")
	}
	testutil.Want(t, rec.Wait(t, "upgrade refused"), "WARN", nil)

	conn.Write(ctx, websocket.MessageText, []byte(`["`+strings.Repeat("x", 2048)+`"]`))
	conn.Read(ctx)
	testutil.Want(t, rec.Wait(t, "closing"), "WARN", map[string]any{"code": float64(websocket.StatusMessageTooBig)})
	rec.Wait(t, "connection closed")

	c := dial(t, s.url)
	if _, err := client.Call[int](ctx, c, "addInt", []any{1, 2}); err != nil {
		t.Fatal(err)
	}
	go c.Close()
	if err := h.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	testutil.Want(t, rec.Wait(t, "shutting down"), "INFO", nil)
	testutil.Want(t, rec.Wait(t, "shutdown complete"), "INFO", nil)
}
