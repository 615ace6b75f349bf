//go:build !js

package ws_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/coder/websocket"

	"github.com/jsonrpc-go/jsonrpc/client"
	"github.com/jsonrpc-go/jsonrpc/internal/demo"
	"github.com/jsonrpc-go/jsonrpc/ws"
)

// benchURL serves the demo server over loopback and returns its ws:// URL.
func benchURL(b *testing.B) string {
	ts := httptest.NewServer(&ws.Handler{Server: demo.NewServer()})
	b.Cleanup(ts.Close)
	return "ws" + strings.TrimPrefix(ts.URL, "http")
}

// BenchmarkCall makes one call at a time over one connection, from a
// client of Dial: one op is one round trip.
func BenchmarkCall(b *testing.B) {
	ch, err := ws.Dial(context.Background(), benchURL(b), nil)
	if err != nil {
		b.Fatal(err)
	}
	c := client.New(ch)
	defer c.Close()
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if got, err := client.Call[int](ctx, c, "addInt", []int{1, 2}); err != nil || got != 3 {
			b.Fatalf("addInt: %d, %v", got, err)
		}
	}
}

// BenchmarkPipelined writes requests over one connection as fast as it
// can while another goroutine reads the answers: one op is one request.
func BenchmarkPipelined(b *testing.B) {
	ctx := context.Background()
	conn, _, err := websocket.Dial(ctx, benchURL(b), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.CloseNow()
	req := []byte(`{"jsonrpc":"2.0","method":"addInt","params":[1,2],"id":1}`)
	want := `{"jsonrpc":"2.0","result":3,"id":1}`
	n := b.N
	read := make(chan error, 1)
	go func() {
		for range n {
			_, msg, err := conn.Read(ctx)
			if err == nil && string(msg) != want {
				err = &unexpected{string(msg)}
			}
			if err != nil {
				read <- err
				return
			}
		}
		read <- nil
	}()
	b.ReportAllocs()
	b.ResetTimer()
	for range n {
		if err := conn.Write(ctx, websocket.MessageText, req); err != nil {
			b.Fatal(err)
		}
	}
	if err := <-read; err != nil {
		b.Fatal(err)
	}
}

type unexpected struct{ msg string }

func (e *unexpected) Error() string { return "unexpected answer " + e.msg }
