package ws_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/demo"
	"github.com/jsonrpc-go/jsonrpc/internal/leaktest"
	"github.com/jsonrpc-go/jsonrpc/ws"
)

// rpc is a demo server with methods that wait:
//
//	wait(x)     Blocking; waits for release (or its context) and returns x
//	nap(ms)     Blocking; sleeps ms milliseconds (or until its context ends)
//	stubborn(s) Blocking; sleeps s seconds, ignoring its context
//	repeat(n)   returns a string of n "x"
type rpc struct {
	*jsonrpc.Server
	started chan int      // the x of each wait call, and 0 for each nap, as it starts
	release chan struct{} // closed to let the wait calls return
	stopped chan error    // the context errors that ended wait and nap calls
	once    sync.Once
}

func newRPC(opts ...jsonrpc.Option) *rpc {
	s := &rpc{Server: demo.NewServer(opts...), started: make(chan int, 4096), release: make(chan struct{}), stopped: make(chan error, 4096)}
	s.MustRegister("wait", func(ctx context.Context, x int) (int, error) {
		s.started <- x
		select {
		case <-s.release:
			return x, nil
		case <-ctx.Done():
			s.stopped <- ctx.Err()
			return 0, ctx.Err()
		}
	}, jsonrpc.Blocking())
	s.MustRegister("nap", func(ctx context.Context, ms int) (int, error) {
		s.started <- 0
		t := time.NewTimer(time.Duration(ms) * time.Millisecond)
		defer t.Stop()
		select {
		case <-t.C:
			return ms, nil
		case <-ctx.Done():
			s.stopped <- ctx.Err()
			return 0, ctx.Err()
		}
	}, jsonrpc.Blocking())
	s.MustRegister("stubborn", func(sec int) int {
		time.Sleep(time.Duration(sec) * time.Second)
		return sec
	}, jsonrpc.Blocking())
	s.MustRegister("repeat", func(n int) string { return strings.Repeat("x", n) })
	return s
}

func (s *rpc) releaseAll() { s.once.Do(func() { close(s.release) }) }

// serveTCP serves h on a loopback httptest server and returns its ws:// URL.
func serveTCP(t *testing.T, h http.Handler) string {
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return "ws" + strings.TrimPrefix(ts.URL, "http")
}

func send(t *testing.T, conn *websocket.Conn, msg string) {
	t.Helper()
	if err := conn.Write(context.Background(), websocket.MessageText, []byte(msg)); err != nil {
		t.Fatal(err)
	}
}

func call(method string, param any, id int) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","method":%q,"params":[%v],"id":%d}`, method, param, id)
}

// Past MaxConns connections, an upgrade is refused with 503 before it is
// made; a connection that ends frees its place.
func TestMaxConns(t *testing.T) {
	leaktest.Check(t)
	s := newRPC()
	url := serveTCP(t, &ws.Handler{Server: s.Server, MaxConns: 2})
	ctx := context.Background()
	var conns []*websocket.Conn
	for range 2 {
		c, _, err := websocket.Dial(ctx, url, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer c.CloseNow()
		conns = append(conns, c)
	}
	for range 3 {
		c, resp, err := websocket.Dial(ctx, url, nil)
		if err == nil {
			c.CloseNow()
			t.Fatal("a third connection was accepted with MaxConns 2")
		}
		if resp == nil || resp.StatusCode != http.StatusServiceUnavailable {
			t.Fatalf("refused with %v, want status 503", err)
		}
	}
	// The connections in place are served.
	for i, c := range conns {
		send(t, c, call("addInt", "1,2", i))
		if _, msg, err := c.Read(ctx); err != nil || string(msg) != fmt.Sprintf(`{"jsonrpc":"2.0","result":3,"id":%d}`, i) {
			t.Fatalf("connection %d: %s, %v", i, msg, err)
		}
	}
	conns[0].Close(websocket.StatusNormalClosure, "")
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, _, err := websocket.Dial(ctx, url, nil)
		if err == nil {
			c.Close(websocket.StatusNormalClosure, "")
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a connection that ended did not free its place: %v", err)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
