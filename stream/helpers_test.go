package stream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"testing"
	"testing/iotest"
	"time"

	"github.com/jsonrpc-go/jsonrpc/framing"
	"github.com/jsonrpc-go/jsonrpc/internal/leaktest"
	"github.com/jsonrpc-go/jsonrpc/internal/testutil"
)

// wait bounds every wait of the tests.
const wait = 5 * time.Second

// leakCheck fails t when goroutines started during the test are still
// running at its cleanup. Call it first, so that its cleanup runs after the
// others. The tests of this package do not run in parallel.
func leakCheck(t *testing.T) { t.Helper(); leaktest.Check(t) }

// framings are the framings the tests serve.
var framings = []struct {
	name string
	f    framing.Framing
}{{"Line", framing.Line}, {"Header", framing.Header}, {"Raw", framing.Raw}}

// shortReaders wrap a reader so that it returns little at a time.
var shortReaders = []struct {
	name string
	wrap func(io.Reader) io.Reader
}{
	{"whole", func(r io.Reader) io.Reader { return r }},
	{"OneByte", iotest.OneByteReader},
	{"Half", iotest.HalfReader},
	{"DataErr", iotest.DataErrReader},
}

// transports are the ways the tests connect to a Server.
var transports = []string{"tcp", "unix", "pipe"}

// serverOn starts s on the transport and returns a function that dials it.
// The cleanup closes s and waits for its goroutines.
func serverOn(t *testing.T, s *Server, transport string) func() net.Conn {
	t.Helper()
	done := make(chan error, 16)
	pending := 0
	var dial func() net.Conn
	switch transport {
	case "tcp", "unix":
		addr := "127.0.0.1:0"
		if transport == "unix" {
			addr = filepath.Join(t.TempDir(), "s")
		}
		l, err := net.Listen(transport, addr)
		if err != nil {
			t.Fatal(err)
		}
		pending++
		go func() { done <- s.Serve(l) }()
		dial = func() net.Conn {
			c, err := net.Dial(transport, l.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { c.Close() })
			return c
		}
	case "pipe":
		dial = func() net.Conn {
			cc, sc := net.Pipe()
			pending++
			go func() { done <- s.ServeConn(context.Background(), sc) }()
			t.Cleanup(func() { cc.Close() })
			return cc
		}
	default:
		t.Fatalf("unknown transport %q", transport)
	}
	t.Cleanup(func() {
		s.Close()
		timer := time.NewTimer(wait)
		defer timer.Stop()
		for ; pending > 0; pending-- {
			select {
			case <-done:
			case <-timer.C:
				t.Errorf("%s: Serve or ServeConn did not return after Close", transport)
				return
			}
		}
	})
	return dial
}

// client speaks a framing over a connection, with a bounded wait on every
// read.
type client struct {
	t    *testing.T
	conn net.Conn
	r    framing.Reader
	w    framing.Writer
}

func newClient(t *testing.T, conn net.Conn, f framing.Framing) *client {
	return &client{t: t, conn: conn, r: f.NewReader(conn, 64<<20), w: f.NewWriter(conn)}
}

// send writes messages and flushes them. With net.Pipe a write blocks until
// the server reads it, so it runs on a goroutine of its own when async.
func (c *client) send(msgs ...string) {
	c.t.Helper()
	c.conn.SetWriteDeadline(time.Now().Add(wait))
	for _, m := range msgs {
		if err := c.w.Write([]byte(m)); err != nil {
			c.t.Fatalf("send: %v", err)
		}
	}
	if err := c.w.Flush(); err != nil {
		c.t.Fatalf("send: %v", err)
	}
}

// sendAsync is send on another goroutine; the returned channel reports its
// error.
func (c *client) sendAsync(msgs ...string) <-chan error {
	ch := make(chan error, 1)
	go func() {
		c.conn.SetWriteDeadline(time.Now().Add(wait))
		for _, m := range msgs {
			if err := c.w.Write([]byte(m)); err != nil {
				ch <- err
				return
			}
		}
		ch <- c.w.Flush()
	}()
	return ch
}

func (c *client) recv() string {
	c.t.Helper()
	return c.recvWithin(wait)
}

// recvWithin is recv with a watchdog of d instead of wait, for a message
// whose size makes its time depend on the machine's load (a 20 MiB answer
// under the race detector): d bounds a hang, not the work.
func (c *client) recvWithin(d time.Duration) string {
	c.t.Helper()
	c.conn.SetReadDeadline(time.Now().Add(d))
	msg, err := c.r.Read()
	if err != nil {
		c.t.Fatalf("recv: %v", err)
	}
	return string(msg)
}

// recvErr reads until an error and returns it.
func (c *client) recvErr() error {
	c.conn.SetReadDeadline(time.Now().Add(wait))
	for {
		msg, err := c.r.Read()
		if err != nil {
			return err
		}
		c.t.Logf("recvErr: skipping %s", msg)
	}
}

// expectEOF checks that the server closed the connection: that the input
// ends (io.EOF), not that it timed out or was reset.
func (c *client) expectEOF() {
	c.t.Helper()
	err := c.recvErr()
	var ne net.Error
	switch {
	case errors.As(err, &ne) && ne.Timeout():
		c.t.Fatalf("the server did not close the connection within %v", wait)
	case err != io.EOF:
		c.t.Fatalf("the connection ended with %v, want io.EOF", err)
	}
}

// idOf returns the id of a response object as a string.
func idOf(t *testing.T, resp string) string {
	t.Helper()
	var r struct{ ID json.RawMessage }
	if err := json.Unmarshal([]byte(resp), &r); err != nil {
		t.Fatalf("response %q: %v", resp, err)
	}
	return string(r.ID)
}

// sameJSON compares responses as JSON values, with numbers by value and
// top-level arrays (batch responses) in any order.
func sameJSON(t *testing.T, got, want string) bool {
	t.Helper()
	return testutil.SameResponse(testutil.MustDecode(t, []byte(got)), testutil.MustDecode(t, []byte(want)))
}

func call(method string, id int, params string) string {
	if params == "" {
		return fmt.Sprintf(`{"jsonrpc":"2.0","method":%q,"id":%d}`, method, id)
	}
	return fmt.Sprintf(`{"jsonrpc":"2.0","method":%q,"params":%s,"id":%d}`, method, params, id)
}

// timeAfter returns a channel that fires after the tests' bounded wait.
func timeAfter(t *testing.T) <-chan time.Time {
	timer := time.NewTimer(wait)
	t.Cleanup(func() { timer.Stop() })
	return timer.C
}

// eachOrderAndTransport runs f as a subtest for each ordering on each
// transport.
func eachOrderAndTransport(t *testing.T, f func(t *testing.T, order Ordering, tr string)) {
	t.Helper()
	for _, order := range []Ordering{Ordered, Sequential, Concurrent} {
		for _, tr := range transports {
			t.Run(fmt.Sprint(order, "/", tr), func(t *testing.T) { f(t, order, tr) })
		}
	}
}

// connPair returns the client's and the server's ends of a connection over
// the transport ("pipe", "tcp" or "unix").
func connPair(t *testing.T, tr string) (client, server net.Conn) {
	t.Helper()
	var cc, sc net.Conn
	switch tr {
	case "pipe":
		cc, sc = net.Pipe()
	default:
		addr := "127.0.0.1:0"
		if tr == "unix" {
			addr = filepath.Join(t.TempDir(), "s")
		}
		l, err := net.Listen(tr, addr)
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		if cc, err = net.Dial(tr, l.Addr().String()); err != nil {
			t.Fatal(err)
		}
		if sc, err = l.Accept(); err != nil {
			t.Fatal(err)
		}
	}
	return cc, sc
}
