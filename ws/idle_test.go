//go:build !js

package ws_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/jsonrpc-go/jsonrpc/internal/demo"
	"github.com/jsonrpc-go/jsonrpc/internal/testutil"
	"github.com/jsonrpc-go/jsonrpc/ws"
)

// TestIdleConnectionHeap: a WebSocket connection that was busy (a 20 KB
// message and its 20 KB answer) and now waits holds no message buffer:
// it went back to the pool when the message was answered. A buffer kept
// from the last message held up to 64 KiB a connection.
func TestIdleConnectionHeap(t *testing.T) {
	if testing.Short() {
		t.Skip("opens 100 connections")
	}
	ts := httptest.NewServer(&ws.Handler{Server: demo.NewServer()})
	defer ts.Close()
	url := "ws" + strings.TrimPrefix(ts.URL, "http")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	const n = 100
	msg := `{"jsonrpc":"2.0","method":"echo","params":["` + strings.Repeat("x", 20<<10) + `"],"id":1}`
	var conns []*websocket.Conn
	for range n {
		c, _, err := websocket.Dial(ctx, url, nil)
		if err != nil {
			t.Fatal(err)
		}
		c.SetReadLimit(1 << 20)
		conns = append(conns, c)
		if err := c.Write(ctx, websocket.MessageText, []byte(msg)); err != nil {
			t.Fatal(err)
		}
		if _, b, err := c.Read(ctx); err != nil || len(b) < 20<<10 {
			t.Fatalf("answer of %d bytes, %v", len(b), err)
		}
	}
	time.Sleep(50 * time.Millisecond) // the read loops park
	with := testutil.LiveHeap()
	for _, c := range conns {
		c.CloseNow()
	}
	time.Sleep(200 * time.Millisecond) // the server's ends see the close
	per := (int64(with) - int64(testutil.LiveHeap())) / n
	t.Logf("%d bytes of heap per idle WebSocket connection (client and server ends)", per)
	if per > 48<<10 {
		t.Errorf("%d bytes of heap per idle WebSocket connection, want at most 48 KiB", per)
	}
}
