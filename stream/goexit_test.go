package stream

import (
	"context"
	"fmt"
	"net"
	"runtime"
	"strings"
	"testing"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/framing"
)

// goexitAnswer is the answer to a request whose method called
// runtime.Goexit.
const goexitAnswer = `{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error","data":"the call ended without returning (runtime.Goexit)"},"id":%d}`

// goexitServer has "exit", which calls runtime.Goexit on the goroutine
// that runs it, "exitLater", the same registered Blocking, and "add".
func goexitServer() *jsonrpc.Server {
	h := jsonrpc.NewServer()
	h.MustRegister("exit", func() int { runtime.Goexit(); return 0 })
	h.MustRegister("exitLater", func() int { runtime.Goexit(); return 0 }, jsonrpc.Blocking())
	h.MustRegister("add", func(a, b int) int { return a + b })
	return h
}

// goexitConn serves s on a new connection over the transport and returns
// the client's end. ServeConn, whose goroutine a method may end, is not
// waited for; the cleanup closes s, which ends the connection.
func goexitConn(t *testing.T, s *Server, tr string) net.Conn {
	t.Helper()
	cc, sc := connPair(t, tr)
	go s.ServeConn(context.Background(), sc)
	t.Cleanup(func() { s.Close(); cc.Close() })
	return cc
}

// TestGoexitInline: a method that calls runtime.Goexit on the connection's
// goroutine (a method that is not Blocking) ends that goroutine; the
// connection answers its request, and each request of its batch, with an
// internal error and goes on serving on a new goroutine.
func TestGoexitInline(t *testing.T) {
	leakCheck(t)
	eachOrderAndTransport(t, func(t *testing.T, order Ordering, tr string) {
		s := &Server{Server: goexitServer(), Order: order}
		c := newClient(t, goexitConn(t, s, tr), framing.Line)
		sent := c.sendAsync(call("exit", 1, ""), call("add", 2, "[1,1]"),
			`[`+call("add", 3, "[1,2]")+`,`+call("exit", 4, "")+`,{"jsonrpc":"2.0","method":"exit"}]`,
			`{"jsonrpc":"2.0","method":"exit"}`, call("add", 5, "[2,3]"))
		for _, want := range []string{
			fmt.Sprintf(goexitAnswer, 1),
			`{"jsonrpc":"2.0","result":2,"id":2}`,
			`[` + fmt.Sprintf(goexitAnswer, 3) + `,` + fmt.Sprintf(goexitAnswer, 4) + `]`,
			`{"jsonrpc":"2.0","result":5,"id":5}`,
		} {
			if got := c.recv(); got != want {
				t.Fatalf("got  %s\nwant %s", got, want)
			}
		}
		if err := <-sent; err != nil {
			t.Fatal(err)
		}
		shutdown(t, s, c)
	})
}

// shutdown shuts s down and checks that c's connection ends.
func shutdown(t *testing.T, s *Server, c *client) {
	t.Helper()
	shut := make(chan error, 1)
	go func() { shut <- s.Shutdown(context.Background()) }()
	c.expectEOF()
	c.conn.Close()
	if err := <-shut; err != nil {
		t.Fatalf("Shutdown = %v", err)
	}
}

// TestGoexitBlocking: a Blocking method that calls runtime.Goexit ends the
// goroutine the jsonrpc package runs it on; the call is answered with an
// internal error and the connection goes on.
func TestGoexitBlocking(t *testing.T) {
	leakCheck(t)
	eachOrderAndTransport(t, func(t *testing.T, order Ordering, tr string) {
		s := &Server{Server: goexitServer(), Order: order}
		c := newClient(t, goexitConn(t, s, tr), framing.Line)
		c.send(call("exitLater", 1, ""))
		if got := c.recv(); !strings.Contains(got, `"code":-32603`) || idOf(t, got) != "1" {
			t.Fatalf("got %s, want an internal error for id 1", got)
		}
		c.send(call("add", 2, "[1,1]"))
		if got, want := c.recv(), `{"jsonrpc":"2.0","result":2,"id":2}`; got != want {
			t.Fatalf("got %s, want %s", got, want)
		}
		shutdown(t, s, c)
	})
}
