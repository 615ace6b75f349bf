package transport_test

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/jsonrpc-go/jsonrpc/internal/testutil"
	"github.com/jsonrpc-go/jsonrpc/transport"
)

// TestLimitListenerPerClient: one client (127.0.0.1) holding its share of
// an HTTP listener's connections has its next refused with 429 and
// Retry-After, while a client of another address (127.0.0.2) connects
// and is served (issue 34: 4,093 idle keep-alive connections of one
// address locked every other client out).
func TestLimitListenerPerClient(t *testing.T) {
	testutil.SkipOnWasm(t, "no listeners")
	nl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := make(chan string, 1)
	l := transport.LimitListener(nl, transport.ListenerLimits{
		MaxConns: 4,
		Refusal:  transport.HTTPRefusal,
		OnRefuse: func(c net.Conn) { refused <- c.RemoteAddr().String() },
	})
	hs := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })}
	go hs.Serve(l)
	t.Cleanup(func() { hs.Close() })

	dialFrom := func(ip string) net.Conn {
		d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: 10 * time.Second}
		c, err := d.Dial("tcp", l.Addr().String())
		if err != nil {
			t.Skipf("dial from %s: %v", ip, err)
		}
		t.Cleanup(func() { c.Close() })
		c.SetDeadline(time.Now().Add(10 * time.Second))
		return c
	}
	get := func(c net.Conn) (*http.Response, string) {
		t.Helper()
		if _, err := io.WriteString(c, "GET / HTTP/1.1\r\nHost: localhost\r\n\r\n"); err != nil {
			t.Fatal(err)
		}
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		return resp, string(b)
	}
	// The attacker's share, held open as keep-alive connections.
	for range 2 {
		if resp, body := get(dialFrom("127.0.0.1")); resp.StatusCode != 200 || body != "ok" {
			t.Fatalf("the first client's connection: %d %s", resp.StatusCode, body)
		}
	}
	if n := l.Clients("127.0.0.1"); n != 2 {
		t.Errorf("Clients(127.0.0.1) = %d, want 2", n)
	}
	over := dialFrom("127.0.0.1")
	resp, body := get(over)
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" || !strings.Contains(body, "too many connections") {
		t.Errorf("a connection past the share: %d %v %q", resp.StatusCode, resp.Header, body)
	}
	if got := <-refused; !strings.HasPrefix(got, "127.0.0.1:") {
		t.Errorf("OnRefuse got %s", got)
	}
	if resp, body := get(dialFrom("127.0.0.2")); resp.StatusCode != 200 || body != "ok" {
		t.Errorf("another client: %d %s", resp.StatusCode, body)
	}
}

func TestHTTPRefusal(t *testing.T) {
	resp, err := http.ReadResponse(bufio.NewReader(strings.NewReader(transport.HTTPRefusal)), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != 429 || int64(len(b)) != resp.ContentLength || !resp.Close {
		t.Errorf("%d, %d bytes of %d, close %v, %v", resp.StatusCode, len(b), resp.ContentLength, resp.Close, err)
	}
}
