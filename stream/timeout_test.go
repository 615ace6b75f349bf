package stream

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"testing"
	"testing/synctest"
	"time"

	"github.com/jsonrpc-go/jsonrpc/framing"
	"github.com/jsonrpc-go/jsonrpc/internal/demo"
)

// framed returns msg framed by f, as f's Writer frames it.
func framed(f framing.Framing, msg string) string {
	var b bytes.Buffer
	w := f.NewWriter(&b)
	w.Write([]byte(msg))
	w.Flush()
	return b.String()
}

// spaceAfter is the white space peers send between messages, per framing:
// blank lines for Line, a CRLF after a Header message, and for Raw the
// newline of this package's Writer (and go-ethereum's, and jayson's) and
// more.
var spaceAfter = map[string]string{"Line": "\r\n\n \t\n", "Header": "\r\n", "Raw": " \t\r\n"}

// pipeConn serves s on one end of a net.Pipe and returns the other end and
// ServeConn's result.
func pipeConn(t *testing.T, s *Server) (net.Conn, <-chan error) {
	cc, sc := net.Pipe()
	done := make(chan error, 1)
	go func() { done <- s.ServeConn(context.Background(), sc) }()
	t.Cleanup(func() { cc.Close() })
	return cc, done
}

// open reports whether ServeConn is still serving, once every goroutine of
// the bubble is blocked.
func open(done <-chan error) bool {
	synctest.Wait()
	return len(done) == 0
}

// TestSpaceBetweenMessagesIdles: white space after a message is not the
// start of the next one: the connection waits IdleTimeout (2 minutes), not
// ReadTimeout (30 s), on every framing and ordering; and trickled white
// space does not prolong the wait.
func TestSpaceBetweenMessagesIdles(t *testing.T) {
	leakCheck(t)
	for _, fr := range framings {
		for _, order := range []Ordering{Ordered, Sequential, Concurrent} {
			t.Run(fmt.Sprint(fr.name, "/", order), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					cc, done := pipeConn(t, &Server{Server: demo.NewServer(), Framing: fr.f, Order: order})
					c := newClient(t, cc, fr.f)
					cc.SetWriteDeadline(time.Now().Add(wait))
					if _, err := cc.Write([]byte(framed(fr.f, call("Test2", 1, "[1]")) + spaceAfter[fr.name])); err != nil {
						t.Fatal(err)
					}
					if got := c.recv(); got != `{"jsonrpc":"2.0","result":1,"id":1}` {
						t.Fatalf("got %s", got)
					}
					time.Sleep(time.Minute) // twice ReadTimeout
					if !open(done) {
						t.Fatalf("closed %v after white space and a minute: the read timeout ran, not the idle timeout", <-done)
					}
					// The connection is usable, and white space trickled
					// while it idles does not restart the idle timeout.
					c.send(call("Test2", 2, "[2]"))
					if got := c.recv(); got != `{"jsonrpc":"2.0","result":2,"id":2}` {
						t.Fatalf("got %s", got)
					}
					for range 2 {
						time.Sleep(50 * time.Second)
						cc.SetWriteDeadline(time.Now().Add(wait))
						if _, err := cc.Write([]byte(spaceAfter[fr.name])); err != nil {
							t.Fatalf("white space at %v: %v", 50*time.Second, err)
						}
					}
					time.Sleep(19 * time.Second)
					if !open(done) {
						t.Fatalf("closed %v before the idle timeout", <-done)
					}
					time.Sleep(2 * time.Second)
					if open(done) {
						t.Fatal("open 121 s after the last message, with white space trickled meanwhile")
					}
					if err := <-done; !errors.Is(err, os.ErrDeadlineExceeded) {
						t.Fatalf("ServeConn = %v, want the idle timeout", err)
					}
				})
			})
		}
	}
}

// partial is the beginning of a message, per framing.
var partial = map[string]string{"Line": `  {"jsonrpc":`, "Header": "\r\nContent-Len", "Raw": "\n [{"}

// TestStartedMessageReadTimeout: a message that has begun must be complete
// within ReadTimeout (30 s), on every framing and ordering, although the
// idle timeout is longer; white space before it does not count.
func TestStartedMessageReadTimeout(t *testing.T) {
	leakCheck(t)
	for _, fr := range framings {
		for _, order := range []Ordering{Ordered, Sequential, Concurrent} {
			t.Run(fmt.Sprint(fr.name, "/", order), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					cc, done := pipeConn(t, &Server{Server: demo.NewServer(), Framing: fr.f, Order: order})
					cc.SetWriteDeadline(time.Now().Add(wait))
					if _, err := cc.Write([]byte(partial[fr.name])); err != nil {
						t.Fatal(err)
					}
					time.Sleep(29 * time.Second)
					if !open(done) {
						t.Fatalf("closed %v before ReadTimeout", <-done)
					}
					time.Sleep(2 * time.Second)
					if open(done) {
						t.Fatal("open 31 s into a message")
					}
					if err := <-done; !errors.Is(err, os.ErrDeadlineExceeded) {
						t.Fatalf("ServeConn = %v, want the read timeout", err)
					}
				})
			})
		}
	}
}
