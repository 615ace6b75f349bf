package stream

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/framing"
	"github.com/jsonrpc-go/jsonrpc/internal/demo"
	"github.com/jsonrpc-go/jsonrpc/internal/testutil"
	"github.com/jsonrpc-go/jsonrpc/transport"
)

// logServer starts s, with a Logger, on TCP and returns a function that
// dials it and the Log of what s logs.
func logServer(t *testing.T, s *Server) (func() net.Conn, *testutil.Log) {
	t.Helper()
	logger, log := testutil.NewLog()
	s.Logger = logger
	return serverOn(t, s, "tcp"), log
}

func TestLoggerConnections(t *testing.T) {
	leakCheck(t)
	dial, log := logServer(t, &Server{Server: demo.NewServer()})
	c := newClient(t, dial(), framing.Line)
	remote := c.conn.LocalAddr().String()
	c.send(call("Test2", 1, "[1]"))
	c.recv()
	testutil.Want(t, log.Wait(t, "connection opened"), "DEBUG", map[string]any{"remote": remote})
	c.conn.Close()
	rec := log.Wait(t, "connection closed")
	testutil.Want(t, rec, "DEBUG", map[string]any{"remote": remote})
	if _, ok := rec["error"]; ok {
		t.Errorf("a connection its peer closed logged an error: %v", rec)
	}
}

func TestLoggerProtocolErrors(t *testing.T) {
	leakCheck(t)
	t.Run("too large", func(t *testing.T) {
		dial, log := logServer(t, &Server{Server: demo.NewServer(), Limits: transport.Limits{MaxMessage: 64}})
		c := newClient(t, dial(), framing.Line)
		c.send(call("echo", 1, `["`+strings.Repeat("x", 100)+`"]`))
		c.recv()
		testutil.Want(t, log.Wait(t, "message too large"), "WARN", map[string]any{
			"remote": c.conn.LocalAddr().String(), "limit": 64, "recoverable": true,
		})
	})
	t.Run("framing", func(t *testing.T) {
		dial, log := logServer(t, &Server{Server: demo.NewServer(), Framing: framing.Header, LingerTimeout: -1})
		c := newClient(t, dial(), framing.Header)
		c.conn.SetWriteDeadline(time.Now().Add(wait))
		go c.conn.Write([]byte("Content-Type: x\r\n\r\n{}"))
		c.expectEOF()
		testutil.Want(t, log.Wait(t, "framing error"), "WARN", map[string]any{
			"remote": c.conn.LocalAddr().String(), "error": testutil.Contains("malformed"),
		})
		testutil.Want(t, log.Wait(t, "connection closed"), "DEBUG", map[string]any{"error": testutil.Contains("malformed")})
	})
	t.Run("read timeout", func(t *testing.T) {
		dial, log := logServer(t, &Server{Server: demo.NewServer(), Limits: transport.Limits{ReadTimeout: 20 * time.Millisecond, IdleTimeout: time.Hour}})
		c := newClient(t, dial(), framing.Line)
		c.conn.SetWriteDeadline(time.Now().Add(wait))
		go c.conn.Write([]byte(`{"jsonrpc":"2.0",`))
		c.expectEOF()
		testutil.Want(t, log.Wait(t, "read timeout inside a message"), "WARN", map[string]any{
			"remote": c.conn.LocalAddr().String(), "timeout": float64(20 * time.Millisecond),
		})
	})
	t.Run("idle timeout", func(t *testing.T) {
		// Not a protocol error: the connection closes, at Debug.
		dial, log := logServer(t, &Server{Server: demo.NewServer(), LingerTimeout: -1, Limits: transport.Limits{IdleTimeout: 20 * time.Millisecond}})
		c := newClient(t, dial(), framing.Line)
		c.expectEOF()
		testutil.Want(t, log.Wait(t, "connection closed"), "DEBUG", map[string]any{"error": testutil.Contains("timeout")})
		if recs := log.Find(t, "read timeout inside a message"); len(recs) != 0 {
			t.Errorf("an idle connection logged %v", recs)
		}
	})
}

func TestLoggerLimits(t *testing.T) {
	leakCheck(t)
	t.Run("MaxConns", func(t *testing.T) {
		dial, log := logServer(t, &Server{Server: demo.NewServer(), Limits: transport.Limits{MaxConns: 1}})
		first := newClient(t, dial(), framing.Line)
		first.send(call("Test2", 1, "[1]"))
		first.recv()
		second := newClient(t, dial(), framing.Line)
		testutil.Want(t, log.Wait(t, "connection limit reached; waiting"), "WARN", map[string]any{
			"remote": second.conn.LocalAddr().String(), "max_conns": 1,
		})
		first.conn.Close()
		second.send(call("Test2", 2, "[2]"))
		second.recv()
	})
	t.Run("MaxBuffered", func(t *testing.T) {
		// 900 KiB count twice past 64 KiB: more than 256 KiB, long before
		// the message ends.
		dial, log := logServer(t, &Server{Server: demo.NewServer(), Limits: transport.Limits{MaxBuffered: 256 << 10}})
		c := newClient(t, dial(), framing.Line)
		errc := c.sendAsync(call("echo", 1, `["`+strings.Repeat("x", 900<<10)+`"]`))
		if got := c.recv(); !strings.Contains(got, "server busy") {
			t.Fatalf("answer %.100s, want the busy error", got)
		}
		c.expectEOF()
		<-errc
		testutil.Want(t, log.Wait(t, "message refused"), "WARN", map[string]any{
			"remote": c.conn.LocalAddr().String(), "reason": testutil.Contains("MaxBuffered"), "max_buffered": 256 << 10,
		})
	})
}

func TestLoggerShutdown(t *testing.T) {
	leakCheck(t)
	b := newBlockingServer(t)
	s := &Server{Server: b.h, Order: Sequential, LingerTimeout: -1}
	dial, log := logServer(t, s)
	c := newClient(t, dial(), framing.Line)
	c.send(call("wait", 1, "[1]"), call("add", 2, "[1,1]"))
	b.awaitStarted(t, 1)
	shut := make(chan error, 1)
	go func() { shut <- s.Shutdown(context.Background()) }()
	testutil.Want(t, log.Wait(t, "shutting down"), "INFO", map[string]any{"conns": 1})
	close(b.release)
	c.recv()
	c.recv()
	if err := <-shut; err != nil {
		t.Fatal(err)
	}
	testutil.Want(t, log.Wait(t, "message refused"), "WARN", map[string]any{
		"remote": c.conn.LocalAddr().String(), "reason": "server shutting down",
	})
	testutil.Want(t, log.Wait(t, "shutdown complete"), "INFO", map[string]any{"conns": 1})
}

func TestLoggerShutdownTimeout(t *testing.T) {
	leakCheck(t)
	b := newBlockingServer(t)
	s := &Server{Server: b.h}
	dial, log := logServer(t, s)
	c := newClient(t, dial(), framing.Line)
	c.send(call("wait", 1, "[1]"))
	b.awaitStarted(t, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := s.Shutdown(ctx); err == nil {
		t.Fatal("Shutdown returned nil with a call blocked")
	}
	testutil.Want(t, log.Wait(t, "shutdown timed out; closing the connections left"), "WARN", map[string]any{"conns": 1})
	testutil.Want(t, log.Wait(t, "closing"), "INFO", map[string]any{"conns": 1})
	if recs := log.Find(t, "shutdown complete"); len(recs) != 0 {
		t.Errorf("a Shutdown that timed out logged %v", recs)
	}
}

// TestLoggerPanicStack: a method's panic, over a connection, is logged by
// the jsonrpc.Server's logger with its stack, and the peer gets none of it.
func TestLoggerPanicStack(t *testing.T) {
	leakCheck(t)
	logger, log := testutil.NewLog()
	h := jsonrpc.NewServer(jsonrpc.UseLogger(logger))
	h.MustRegister("crash", func() int { panic("secret at /etc/shadow") })
	dial := serverOn(t, &Server{Server: h}, "tcp")
	c := newClient(t, dial(), framing.Line)
	c.send(call("crash", 1, ""))
	got := c.recv()
	if want := `{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error"},"id":1}`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	testutil.Want(t, log.Wait(t, "method panicked"), "ERROR", map[string]any{
		"method": "crash", "panic": "secret at /etc/shadow", "stack": testutil.Contains("goroutine"),
	})
}

// TestLoggerNil: without a Logger the Server logs nothing, and the
// connection's peer.Conn gets no logger either.
func TestLoggerNil(t *testing.T) {
	leakCheck(t)
	cc, sc := net.Pipe()
	defer cc.Close()
	s := &Server{}
	cn := newConn(s, context.Background(), sc, "", nil, s.settings())
	defer cn.close(nil)
	if cn.log != nil {
		t.Errorf("a Server without a Logger made a connection logger")
	}
}
