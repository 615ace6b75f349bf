package fasthttprpc_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/jsonrpc-go/jsonrpc/fasthttprpc"
	"github.com/jsonrpc-go/jsonrpc/internal/demo"
	"github.com/jsonrpc-go/jsonrpc/transport"
	"github.com/valyala/fasthttp"
)

// postOf is a POST of body whose head declares its length.
func postOf(body string) string {
	return fmt.Sprintf("POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", len(body)) + body
}

// largeEcho is a call of echo n bytes long.
func largeEcho(n int) string {
	head, tail := `{"jsonrpc":"2.0","method":"echo","params":["`, `"],"id":1}`
	return head + strings.Repeat("x", n-len(head)-len(tail)) + tail
}

// dialer returns a function that dials addr, each connection closed at
// the test's end.
func dialer(t *testing.T, addr string) func() net.Conn {
	return func() net.Conn {
		c, err := net.DialTimeout("tcp", addr, wait)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
}

// sendAndRead writes req on c while it reads the answer, as a client that
// streams a body does, and returns the answer's status and Retry-After.
func sendAndRead(t *testing.T, c net.Conn, req string) (int, string) {
	t.Helper()
	c.SetDeadline(time.Now().Add(wait))
	go io.WriteString(c, req) // fails once the server closes the connection: that is the answer
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("no answer: %v", err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, resp.Header.Get("Retry-After")
}

// The bodies being read over all the handler's requests hold at most
// MaxBuffered (64 MiB by default) of memory past 64 KiB each, as
// httprpc.Handler's do: a body that would pass it is answered with 503 and
// Retry-After as soon as it would, small bodies are served meanwhile, and
// the room comes back when the large bodies are answered. Before, the
// fasthttp host had no such bound: 100 bodies of 4 MiB held 918 MiB
// (issue 25). The bodies here are all of one client (127.0.0.1), whose
// share is half of MaxBuffered: one of them fills most of it.
func TestNewServerMaxBuffered(t *testing.T) {
	const size = 30 << 20 // one of them fills most of a client's 32 MiB
	s := fasthttprpc.NewServer(demo.NewServer())
	s.MaxRequestBodySize = 32 << 20
	body := largeEcho(size)
	stall := postOf(body)
	stall = stall[:len(stall)-1] // all but the last byte
	l := &watchedListener{want: len(stall), waiting: make(chan struct{}, 4)}
	addr := serveServer(t, s, func(ln net.Listener) net.Listener { l.Listener = ln; return l })
	dial := dialer(t, addr)

	// A large body stalls before its last byte, once the server has read
	// the rest.
	var stalled []net.Conn
	for range 1 {
		c := dial()
		if _, err := io.WriteString(c, stall); err != nil {
			t.Fatal(err)
		}
		select {
		case <-l.waiting:
		case <-time.After(wait):
			t.Fatal("the server did not read a stalled body")
		}
		stalled = append(stalled, c)
	}
	// A second finds no room: 503 with Retry-After, before it is read.
	if status, retry := sendAndRead(t, dial(), postOf(body)); status != http.StatusServiceUnavailable || retry == "" {
		t.Errorf("a large body beside a stalled one: %d, Retry-After %q; want 503 with Retry-After", status, retry)
	}
	// A small one is served meanwhile.
	if a := do(t, "POST", "http://"+addr, "application/json", `{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`); a.status != 200 || a.body != `{"jsonrpc":"2.0","result":3,"id":1}` {
		t.Errorf("a small body beside the stalled ones: %d %s", a.status, a.body)
	}
	// The stalled bodies end and are answered (their echo is over the
	// response limit); their room is back.
	for _, c := range stalled {
		c.SetDeadline(time.Now().Add(wait))
		io.WriteString(c, "}")
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatalf("a stalled body, completed: %v", err)
		}
		resp.Body.Close()
	}
	if status, _ := sendAndRead(t, dial(), postOf(body)); status != http.StatusOK {
		t.Errorf("a large body after the stalled ones were answered: %d, want 200", status)
	}
}

// A Handler given a transport.Budget takes its bodies' room from it,
// whatever its MaxBuffered says: with the budget spent by another host, a
// large body is answered 503 with Retry-After; with the room back, it is
// served, and all it took is given back.
func TestSharedBudget(t *testing.T) {
	b := transport.NewBudget(1 << 20)
	h := &fasthttprpc.Handler{Server: demo.NewServer(), Budget: b}
	s := &fasthttp.Server{Handler: h.ServeFastHTTP, ErrorHandler: h.ErrorHandler, StreamRequestBody: true}
	addr := serveServer(t, s, nil)
	body := largeEcho(200 << 10)
	dial := dialer(t, addr)
	b.Take(b.Max())
	if status, retry := sendAndRead(t, dial(), postOf(body)); status != http.StatusServiceUnavailable || retry == "" {
		t.Errorf("a large body with the shared budget spent: %d, Retry-After %q; want 503 with Retry-After", status, retry)
	}
	b.Give(b.Max())
	if status, _ := sendAndRead(t, dial(), postOf(body)); status != http.StatusOK {
		t.Errorf("a large body with room in the shared budget: %d, want 200", status)
	}
	for deadline := time.Now().Add(wait); b.Used() != 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d bytes still taken after the body was answered", b.Used())
		}
	}
}
