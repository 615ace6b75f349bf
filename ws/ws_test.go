//go:build !js

package ws_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jsonrpc-go/jsonrpc/internal/leaktest"
	"github.com/jsonrpc-go/jsonrpc/transport"

	"github.com/coder/websocket"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/client"
	"github.com/jsonrpc-go/jsonrpc/ws"
)

// server is an rpc served over loopback at url.
type server struct {
	*rpc
	url string
}

func newServer(t *testing.T, h *ws.Handler) *server {
	s := &server{rpc: newRPC()}
	h.Server = s.Server
	ts := httptest.NewServer(h)
	t.Cleanup(func() {
		s.releaseAll()
		ts.Close()
	})
	s.url = "ws" + strings.TrimPrefix(ts.URL, "http")
	return s
}

func dial(t *testing.T, url string) *client.Client {
	ch, err := ws.Dial(context.Background(), url, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := client.New(ch)
	t.Cleanup(func() { c.Close() })
	return c
}

// rawConn sends and reads raw WebSocket messages.
func rawConn(t *testing.T, url string) *websocket.Conn {
	conn, _, err := websocket.Dial(context.Background(), url, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.CloseNow() })
	return conn
}

func exchange(t *testing.T, conn *websocket.Conn, req string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := conn.Write(ctx, websocket.MessageText, []byte(req)); err != nil {
		t.Fatal(err)
	}
	_, msg, err := conn.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return string(msg)
}

func TestMessages(t *testing.T) {
	leaktest.Check(t)
	s := newServer(t, &ws.Handler{})
	conn := rawConn(t, s.url)
	for req, want := range map[string]string{
		`{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}`:                                                       `{"jsonrpc":"2.0","result":19,"id":1}`,
		`{"jsonrpc":"2.0","method":"foobar","id":"1"}`:                                                                        `{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found","data":"foobar"},"id":"1"}`,
		`{"jsonrpc":"2.0","method":"foobar,"params":"bar","baz]`:                                                              `{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"},"id":null}`,
		`[{"jsonrpc":"2.0","method":"sum","params":[1,2,4],"id":"1"},{"jsonrpc":"2.0","method":"notify_hello","params":[7]}]`: `[{"jsonrpc":"2.0","result":7,"id":"1"}]`,
		`[]`: `{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request"},"id":null}`,
	} {
		if got := exchange(t, conn, req); got != want {
			t.Errorf("%s: got %s, want %s", req, got, want)
		}
	}
	// A notification gets no message: the next answer is the next call's.
	ctx := context.Background()
	conn.Write(ctx, websocket.MessageText, []byte(`{"jsonrpc":"2.0","method":"notify_hello","params":[7]}`))
	if got := exchange(t, conn, `{"jsonrpc":"2.0","method":"addInt","params":[1,2],"id":9}`); got != `{"jsonrpc":"2.0","result":3,"id":9}` {
		t.Errorf("after a notification: %s", got)
	}
}

func TestClientOutOfOrder(t *testing.T) {
	leaktest.Check(t)
	s := newServer(t, &ws.Handler{})
	c := dial(t, s.url)
	var wg sync.WaitGroup
	errs := make(chan error, 20)
	for i := range 10 {
		wg.Go(func() {
			if got, err := client.Call[int](context.Background(), c, "wait", []any{i}); err != nil || got != i {
				errs <- errors.Join(err, errors.New("wrong answer"))
			}
		})
	}
	for range 10 {
		<-s.started
	}
	// The waiting calls do not hold up the connection.
	for i := range 10 {
		if got, err := client.Call[int](context.Background(), c, "addInt", []any{i, 1}); err != nil || got != i+1 {
			t.Errorf("addInt: %d, %v", got, err)
		}
	}
	s.releaseAll()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestMaxInFlight(t *testing.T) {
	leaktest.Check(t)
	s := newServer(t, &ws.Handler{Limits: transport.Limits{MaxInFlight: 2}})
	c := dial(t, s.url)
	done := make(chan error, 3)
	for i := range 3 {
		go func() {
			_, err := client.Call[int](context.Background(), c, "wait", []any{i})
			done <- err
		}()
	}
	<-s.started
	<-s.started
	select {
	case x := <-s.started:
		t.Fatalf("call %d started beyond the limit of 2", x)
	case <-time.After(50 * time.Millisecond):
	}
	s.releaseAll()
	for range 3 {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}

func TestCloseCancelsMethods(t *testing.T) {
	leaktest.Check(t)
	s := newServer(t, &ws.Handler{})
	conn := rawConn(t, s.url)
	conn.Write(context.Background(), websocket.MessageText, []byte(`{"jsonrpc":"2.0","method":"wait","params":[1],"id":1}`))
	<-s.started
	conn.CloseNow()
	select {
	case err := <-s.stopped:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("method ended with %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("closing the connection did not cancel the method")
	}
}

func TestMessageTooBig(t *testing.T) {
	leaktest.Check(t)
	s := newServer(t, &ws.Handler{Limits: transport.Limits{MaxMessage: 1024}})
	conn := rawConn(t, s.url)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	conn.Write(ctx, websocket.MessageText, []byte(`{"jsonrpc":"2.0","method":"echo","params":["`+strings.Repeat("x", 2048)+`"],"id":1}`))
	_, _, err := conn.Read(ctx)
	if websocket.CloseStatus(err) != websocket.StatusMessageTooBig {
		t.Errorf("err = %v, want close status 1009", err)
	}
	// Other connections are unaffected.
	c := dial(t, s.url)
	if got, err := client.Call[int](context.Background(), c, "addInt", []any{1, 2}); err != nil || got != 3 {
		t.Errorf("another connection: %d, %v", got, err)
	}
}

// A call whose context has ended does not break the connection for the
// others.
func TestCancelledCallKeepsConnection(t *testing.T) {
	leaktest.Check(t)
	s := newServer(t, &ws.Handler{})
	for range 20 {
		c := dial(t, s.url)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := client.Call[int](ctx, c, "addInt", []int{1, 2}); !errors.Is(err, context.Canceled) {
			t.Errorf("cancelled call: err = %v", err)
		}
		if got, err := client.Call[int](context.Background(), c, "addInt", []int{1, 2}); err != nil || got != 3 {
			t.Fatalf("next call: %d, %v", got, err)
		}
	}
}

// Shutdown lets the calls in flight finish and answers them, refuses new
// connections, then closes.
func TestShutdownGraceful(t *testing.T) {
	leaktest.Check(t)
	h := &ws.Handler{}
	s := newServer(t, h)
	c := dial(t, s.url)
	answer := make(chan error, 1)
	go func() {
		got, err := client.Call[int](context.Background(), c, "wait", []any{7})
		if err == nil && got != 7 {
			err = errors.New("wrong answer")
		}
		answer <- err
	}()
	<-s.started
	shut := make(chan error, 1)
	go func() { shut <- h.Shutdown(context.Background()) }()
	// New connections are refused while shutting down.
	deadline := time.Now().Add(5 * time.Second)
	for {
		conn, _, err := websocket.Dial(context.Background(), s.url, nil)
		if err != nil {
			break
		}
		conn.CloseNow()
		if time.Now().After(deadline) {
			t.Fatal("new connections are still accepted")
		}
	}
	select {
	case err := <-shut:
		t.Fatalf("Shutdown returned (%v) with a call in flight", err)
	default:
	}
	s.releaseAll()
	if err := <-answer; err != nil {
		t.Errorf("call in flight: %v", err)
	}
	select {
	case err := <-shut:
		if err != nil {
			t.Errorf("Shutdown: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Shutdown did not return")
	}
	// The connection is closed: the call fails, in Send or when the
	// client's reader has seen the close.
	if _, err := client.Call[int](context.Background(), c, "addInt", []any{1, 2}); err == nil {
		t.Error("a call after Shutdown succeeded")
	}
}

// A Handler with a nil Server answers every call "Method not found", as
// every host of the library does.
func TestNilServer(t *testing.T) {
	leaktest.Check(t)
	ts := httptest.NewServer(&ws.Handler{})
	defer ts.Close()
	c := dial(t, "ws"+strings.TrimPrefix(ts.URL, "http"))
	var e *jsonrpc.Error
	if _, err := client.Call[int](context.Background(), c, "addInt", []int{1, 2}); !errors.As(err, &e) || e.Code != jsonrpc.CodeMethodNotFound {
		t.Errorf("err = %v, want Method not found", err)
	}
	c.Close()
}
