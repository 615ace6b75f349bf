package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/jsonrpc-go/jsonrpc/internal/demo"
)

// backlog is a net.Listener whose pending connections are a channel, as
// the kernel's backlog holds them.
type backlog struct {
	pending chan net.Conn
	closed  chan struct{}
}

func newBacklog() *backlog {
	return &backlog{pending: make(chan net.Conn, 16), closed: make(chan struct{})}
}

func (b *backlog) Accept() (net.Conn, error) {
	select {
	case c := <-b.pending:
		return c, nil
	case <-b.closed:
		return nil, net.ErrClosed
	}
}

func (b *backlog) Close() error   { close(b.closed); return nil }
func (b *backlog) Addr() net.Addr { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)} }

// connect queues a connection and returns the client's end.
func (b *backlog) connect() net.Conn {
	server, client := net.Pipe()
	b.pending <- server
	return client
}

// TestLimitListener: at the cap, Accept waits, leaving the next connection
// in the backlog, until a connection closes; Close ends a waiting Accept.
func TestLimitListener(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := newBacklog()
		l := newLimitListener(b, 2)
		var open []net.Conn
		for range 2 {
			b.connect()
			c, err := l.Accept()
			if err != nil {
				t.Fatal(err)
			}
			open = append(open, c)
		}

		b.connect()
		accepted := make(chan net.Conn, 1)
		go func() {
			c, err := l.Accept()
			if err != nil {
				t.Errorf("Accept after a close: %v", err)
			}
			accepted <- c
		}()
		synctest.Wait()
		select {
		case <-accepted:
			t.Fatal("a third connection accepted with the cap at 2")
		default:
		}
		if n := len(b.pending); n != 1 {
			t.Fatalf("%d connections in the backlog at the cap, want 1 (Accept must not take it)", n)
		}

		open[0].Close()
		open[0].Close() // a second Close frees nothing more
		synctest.Wait()
		var third net.Conn
		select {
		case third = <-accepted:
		default:
			t.Fatal("the third connection is not accepted after one closed")
		}

		// Two open again (open[1] and third): the next Accept waits for
		// a slot, and Close ends it.
		b.connect()
		ended := make(chan error, 1)
		go func() {
			_, err := l.Accept()
			ended <- err
		}()
		synctest.Wait()
		select {
		case err := <-ended:
			t.Fatalf("Accept over the cap returned %v", err)
		default:
		}
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
		if err := l.Close(); err != nil {
			t.Errorf("second Close: %v", err)
		}
		synctest.Wait()
		select {
		case err := <-ended:
			if !errors.Is(err, net.ErrClosed) {
				t.Errorf("Accept after Close: %v, want net.ErrClosed", err)
			}
		default:
			t.Fatal("Close does not end a waiting Accept")
		}
		open[1].Close()
		third.Close()
	})
}

// TestMaxConns: with -max-conns 1, a second connection to each listener is
// served only once the first closes.
func TestMaxConns(t *testing.T) {
	s := startServing(t, demo.NewServer(), "-max-conns", "1")
	req := `{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`
	want := `{"jsonrpc":"2.0","result":3,"id":1}`
	for _, tc := range []struct {
		name, addr, req string
		answer          func(*bufio.Reader) (string, error)
	}{
		{"TCP", s.tcpAddr, req + "\n", func(br *bufio.Reader) (string, error) {
			line, err := br.ReadString('\n')
			return strings.TrimSuffix(line, "\n"), err
		}},
		{"HTTP", s.httpAddr, postRequest(req), func(br *bufio.Reader) (string, error) {
			b, err := readHTTPAnswer(br)
			return string(b), err
		}},
	} {
		first, err := net.DialTimeout("tcp", tc.addr, wait)
		if err != nil {
			t.Fatal(err)
		}
		first.SetDeadline(time.Now().Add(wait))
		io.WriteString(first, tc.req)
		if got, err := tc.answer(bufio.NewReader(first)); err != nil || got != want {
			t.Fatalf("%s: first connection: %q, %v", tc.name, got, err)
		}

		second, err := net.DialTimeout("tcp", tc.addr, wait) // the kernel accepts it
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(second, tc.req)
		br := bufio.NewReader(second)
		// Not served while the first is open. (A short wait: a server
		// without the cap answers in well under it; with the cap no
		// answer ever comes.)
		second.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
		if got, err := tc.answer(br); !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Errorf("%s: the second connection was served with the first open: %q, %v", tc.name, got, err)
			first.Close()
			second.Close()
			continue
		}
		first.Close()
		second.SetReadDeadline(time.Now().Add(wait))
		if got, err := tc.answer(br); err != nil || got != want {
			t.Errorf("%s: second connection after the first closed: %q, %v", tc.name, got, err)
		}
		second.Close()
	}
}

// TestListenSamePort (issue 39): -http and -tcp on one address fail before
// anything is announced or served, with an error that names both flags;
// an address another process holds is said so.
func TestListenSamePort(t *testing.T) {
	for _, tc := range []struct {
		name string
		args func(addr string) []string
		want string
	}{
		{"http and tcp", func(addr string) []string { return []string{"-http", addr, "-tcp", addr} },
			"-tcp %s: listen tcp %[1]s: bind: address already in use (-http has it: give each listener a port of its own)"},
		{"held by another", func(addr string) []string { return []string{"-http", "127.0.0.1:0", "-tcp", addr} },
			"-tcp %s: listen tcp %[1]s: bind: address already in use (another process has it: stop it, or choose another port)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var addr string
			if tc.name == "held by another" {
				l, err := net.Listen("tcp", "127.0.0.1:0")
				if err != nil {
					t.Fatal(err)
				}
				defer l.Close()
				addr = l.Addr().String()
			} else {
				addr = freeAddr(t)
			}
			cfg, _, ok := parseFlags(tc.args(addr), io.Discard)
			if !ok {
				t.Fatal("flags refused")
			}
			var stdout, stderr strings.Builder
			if status := serveNetwork(t.Context(), demo.NewServer(), cfg, &stdout, &stderr, nil); status != 1 {
				t.Errorf("status %d, want 1", status)
			}
			if stdout.Len() != 0 {
				t.Errorf("stdout %q, want nothing announced", stdout.String())
			}
			if got, want := stderr.String(), fmt.Sprintf("jsonrpcd: "+tc.want+"\n", addr); got != want {
				t.Errorf("stderr:\n got %q\nwant %q", got, want)
			}
			// Nothing is left listening: the -http listener opened first
			// was closed.
			if tc.name == "http and tcp" {
				l, err := net.Listen("tcp", addr)
				if err != nil {
					t.Errorf("the address is still held: %v", err)
				} else {
					l.Close()
				}
			}
		})
	}
}

// freeAddr returns a loopback address whose port was free a moment ago.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}
