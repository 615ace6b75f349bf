//go:build !js

package ws_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/jsonrpc-go/jsonrpc/protocol/lsp"
	"github.com/jsonrpc-go/jsonrpc/protocol/mcp"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/client"
	"github.com/jsonrpc-go/jsonrpc/internal/leaktest"
	"github.com/jsonrpc-go/jsonrpc/internal/peertest"
	"github.com/jsonrpc-go/jsonrpc/peer"
	"github.com/jsonrpc-go/jsonrpc/protocol/progress"
	"github.com/jsonrpc-go/jsonrpc/ws"
)

// patience bounds every wait of the tests below.
const patience = 5 * time.Second

// callbacks is a server whose methods reach the client:
//
//	ask(who)  Blocking; calls the client's name(who) and answers "hello " and it
//	poke      a Blocking notification; calls name("poke") and notifies told with it
//	announce  not Blocking; notifies told("announced") and answers true
//	goexit    not Blocking; ends its goroutine with runtime.Goexit
func callbacks() *jsonrpc.Server {
	srv := peertest.CallbackServer()
	srv.MustRegister("goexit", func() int {
		runtime.Goexit()
		return 0
	})
	srv.MustRegister("addInt", func(a, b int) int { return a + b })
	return srv
}

// dialPeer returns a client of url that answers the server's calls with
// srv and speaks LSP's cancel notifications.
func dialPeer(t *testing.T, url string, srv *jsonrpc.Server) *client.Client {
	t.Helper()
	ch, err := ws.Dial(context.Background(), url, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := client.New(ch, client.Serve(srv), client.UseProtocol(lsp.Protocol()))
	t.Cleanup(func() { c.Close() })
	return c
}

// Calls from a method to its caller over a WebSocket (package peertest).
func TestCallbackFromRequest(t *testing.T) {
	leaktest.Check(t)
	peertest.CallbackFromRequest(t, wsDialer)
}

func TestCallbackFromNotification(t *testing.T) {
	leaktest.Check(t)
	peertest.CallbackFromNotification(t, wsDialer)
}

func wsDialer(t *testing.T, order peer.Ordering, srv *jsonrpc.Server, opts ...client.Option) *client.Client {
	t.Helper()
	url := serveTCP(t, &ws.Handler{Server: srv, Order: order})
	ch, err := ws.Dial(context.Background(), url, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := client.New(ch, opts...)
	t.Cleanup(func() { c.Close() })
	return c
}

// A method, Blocking or not, notifies the client while it answers a call.
func TestNotifyClient(t *testing.T) {
	leaktest.Check(t)
	told := make(chan string, 1)
	url := serveTCP(t, &ws.Handler{Server: callbacks()})
	c := dialPeer(t, url, peertest.ClientMethods(told))
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	if ok, err := client.Call[bool](ctx, c, "announce", nil); err != nil || !ok {
		t.Fatalf("announce = %v, %v", ok, err)
	}
	select {
	case got := <-told:
		if got != "announced" {
			t.Fatalf("told %q, want announced", got)
		}
	case <-time.After(patience):
		t.Fatal("the client was not notified")
	}
}

// recv reads the next message of conn, within patience.
func recv(t *testing.T, conn *websocket.Conn) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	_, msg, err := conn.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return string(msg)
}

// awaitStopped returns the context error that ended a wait or nap call of
// s.
func awaitStopped(t *testing.T, s *rpc) error {
	t.Helper()
	select {
	case err := <-s.stopped:
		return err
	case <-time.After(patience):
		t.Fatal("the call's context did not end")
		return nil
	}
}

// The cancel notifications of LSP and MCP, as sent and with the escapes
// that editors' and agents' JSON encoders write: the same strings once
// decoded, which must cancel alike.
var (
	lspCancels = []string{
		`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1}}`,
		`{"jsonrpc":"2.0","method":"$\/cancelRequest","params":{"id":1}}`,
		`{"jsonrpc":"2.0","method":"\u0024/cancelRequest","params":{"\u0069d":1}}`,
		`{"jsonrpc":"2.0","\u006dethod":"$\u002fcancelRequest","p\u0061rams":{"id":1}}`,
	}
	mcpCancels = []string{
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"user"}}`,
		`{"jsonrpc":"2.0","method":"notifications\/cancelled","params":{"requestId":1,"reason":"user"}}`,
		`{"jsonrpc":"2.0","method":"notific\u0061tions/cancelled","params":{"request\u0049d":1}}`,
	}
)

// Under LSP, $/cancelRequest, escaped or not, cancels the context of the
// call running, which is answered with -32800 (RequestCancelled); the
// connection goes on.
func TestCancelLSP(t *testing.T) {
	leaktest.Check(t)
	for i, cancelMsg := range lspCancels {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			s := newRPC()
			conn := rawConn(t, serveTCP(t, &ws.Handler{Server: s.Server, Protocol: lsp.Protocol()}))
			send(t, conn, call("wait", 1, 1))
			<-s.started
			send(t, conn, cancelMsg)
			if err := awaitStopped(t, s); !errors.Is(err, context.Canceled) {
				t.Fatalf("wait ended with %v, want context.Canceled", err)
			}
			if got, want := recv(t, conn), `{"jsonrpc":"2.0","error":{"code":-32800,"message":"Request cancelled"},"id":1}`; got != want {
				t.Fatalf("got  %s\nwant %s", got, want)
			}
			if got, want := exchange(t, conn, call("addInt", "1,2", 2)), `{"jsonrpc":"2.0","result":3,"id":2}`; got != want {
				t.Fatalf("next call: %s, want %s", got, want)
			}
		})
	}
}

// Under MCP, notifications/cancelled, escaped or not, cancels the call
// running, which then sends no answer at all.
func TestCancelMCP(t *testing.T) {
	leaktest.Check(t)
	for i, cancelMsg := range mcpCancels {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			s := newRPC()
			conn := rawConn(t, serveTCP(t, &ws.Handler{Server: s.Server, Protocol: mcp.Protocol()}))
			send(t, conn, call("wait", 1, 1))
			<-s.started
			send(t, conn, cancelMsg)
			if err := awaitStopped(t, s); !errors.Is(err, context.Canceled) {
				t.Fatalf("wait ended with %v, want context.Canceled", err)
			}
			// The next answer is the next call's: nothing came for the
			// cancelled one.
			if got, want := exchange(t, conn, call("addInt", "1,2", 2)), `{"jsonrpc":"2.0","result":3,"id":2}`; got != want {
				t.Fatalf("got %s, want %s (nothing for the cancelled call)", got, want)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
			defer cancel()
			if _, msg, err := conn.Read(ctx); err == nil {
				t.Fatalf("unexpected message %s", msg)
			}
		})
	}
}

// A client of Dial speaking LSP cancels the server's method when the
// context of its call ends.
func TestClientCancels(t *testing.T) {
	leaktest.Check(t)
	s := newRPC()
	c := dialPeer(t, serveTCP(t, &ws.Handler{Server: s.Server, Protocol: lsp.Protocol()}), nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := client.Call[int](ctx, c, "wait", []any{1})
		done <- err
	}()
	<-s.started
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Call = %v, want context.Canceled", err)
	}
	if err := awaitStopped(t, s); !errors.Is(err, context.Canceled) {
		t.Fatalf("wait ended with %v, want context.Canceled", err)
	}
}

// A method reports its progress to a client that asked for it.
func TestProgress(t *testing.T) {
	leaktest.Check(t)
	srv := jsonrpc.NewServer()
	srv.MustRegister("work", func(ctx context.Context, p struct {
		Steps int             `json:"steps"`
		Token json.RawMessage `json:"workDoneToken"`
	}) (int, error) {
		pr := progress.Of(ctx)
		if pr == nil {
			return 0, errors.New("no progress token")
		}
		for i := range p.Steps {
			if err := pr.Report(ctx, map[string]any{"percentage": i}); err != nil {
				return 0, err
			}
		}
		return p.Steps, nil
	}, jsonrpc.Blocking())
	c := dialPeer(t, serveTCP(t, &ws.Handler{Server: srv, Protocol: lsp.Protocol()}), nil)
	var mu sync.Mutex
	var got []string
	token, stop := progress.Watch(c.Conn(), func(p json.RawMessage) {
		mu.Lock()
		got = append(got, string(p))
		mu.Unlock()
	})
	defer stop()
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	if n, err := client.Call[int](ctx, c, "work", map[string]any{"steps": 3, "workDoneToken": token}); err != nil || n != 3 {
		t.Fatalf("work = %d, %v", n, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 3 || got[2] != `{"token":`+string(token)+`,"value":{"percentage":2}}` {
		t.Fatalf("progress = %q", got)
	}
}

// Under Sequential ordering a Blocking call waits for the one before it to
// be answered, and the answers come in request order.
func TestSequential(t *testing.T) {
	leaktest.Check(t)
	s := newRPC()
	conn := rawConn(t, serveTCP(t, &ws.Handler{Server: s.Server, Order: peer.Sequential}))
	send(t, conn, call("wait", 1, 1))
	send(t, conn, call("wait", 2, 2))
	if x := <-s.started; x != 1 {
		t.Fatalf("wait(%d) started first", x)
	}
	select {
	case x := <-s.started:
		t.Fatalf("wait(%d) started while wait(1) runs", x)
	case <-time.After(50 * time.Millisecond):
	}
	s.releaseAll()
	for i := 1; i <= 2; i++ {
		if got, want := recv(t, conn), fmt.Sprintf(`{"jsonrpc":"2.0","result":%d,"id":%d}`, i, i); got != want {
			t.Fatalf("got %s, want %s", got, want)
		}
	}
}

// A method that ends the connection's reading goroutine with
// runtime.Goexit is answered with an internal error, and the connection
// goes on, its context intact, until Shutdown closes it.
func TestGoexit(t *testing.T) {
	leaktest.Check(t)
	h := &ws.Handler{Server: callbacks()}
	conn := rawConn(t, serveTCP(t, h))
	if got, want := exchange(t, conn, `{"jsonrpc":"2.0","method":"goexit","id":1}`), `{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error","data":"the call ended without returning (runtime.Goexit)"},"id":1}`; got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	for i := range 3 {
		if got, want := exchange(t, conn, call("addInt", "1,2", i)), fmt.Sprintf(`{"jsonrpc":"2.0","result":3,"id":%d}`, i); got != want {
			t.Fatalf("after Goexit: %s, want %s", got, want)
		}
	}
	// The connection still ends as others do.
	r := readAll(conn)
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	if err := h.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	if _, err := r.next(); websocket.CloseStatus(err) != websocket.StatusGoingAway {
		t.Fatalf("closed with %v, want status 1001", err)
	}
}

// Shutdown lets a method waiting for the client's answer to its call
// finish: the answer, read while shutting down, reaches it, and the
// method's own answer is written before the connection closes.
func TestShutdownWaitsForCallback(t *testing.T) {
	leaktest.Check(t)
	h := &ws.Handler{Server: callbacks()}
	url := serveTCP(t, h)
	asked := make(chan struct{}, 1)
	release := make(chan struct{})
	csrv := jsonrpc.NewServer()
	csrv.MustRegister("name", func(who string) string {
		asked <- struct{}{}
		<-release
		return strings.ToUpper(who)
	}, jsonrpc.Blocking())
	c := dialPeer(t, url, csrv)
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	answer := make(chan error, 1)
	go func() {
		got, err := client.Call[string](ctx, c, "ask", []any{"x"})
		if err == nil && got != "hello X" {
			err = fmt.Errorf("ask = %q", got)
		}
		answer <- err
	}()
	select {
	case <-asked:
	case <-time.After(patience):
		t.Fatal("the method did not call the client")
	}
	shut := make(chan error, 1)
	go func() { shut <- h.Shutdown(ctx) }()
	// Shutdown has begun once upgrades are refused.
	for {
		conn, _, err := websocket.Dial(ctx, url, nil)
		if err != nil {
			break
		}
		conn.CloseNow()
		time.Sleep(time.Millisecond)
	}
	close(release)
	if err := <-answer; err != nil {
		t.Errorf("ask: %v", err)
	}
	if err := <-shut; err != nil {
		t.Errorf("Shutdown: %v", err)
	}
}
