package main

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/internal/demo"
	"github.com/jsonrpc-go/jsonrpc/internal/testutil"
)

// closedWithin reads c until it ends and fails unless the server closed it
// (EOF or a reset) within wait; what came before is returned.
func closedWithin(t *testing.T, what string, c net.Conn) string {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(wait))
	b, err := io.ReadAll(c)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("%s: the connection is still open after %v", what, wait)
	}
	return string(b)
}

func dial(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, wait)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// TestTimeouts: every timeout of the HTTP and TCP servers follows its flag.
func TestTimeouts(t *testing.T) {
	const d = 300 * time.Millisecond
	srv := demo.NewServer()
	srv.MustRegister("slow", func() string { time.Sleep(3 * d); return "late" }, jsonrpc.Blocking())
	s := startServing(t, srv, "-read-timeout", d.String(), "-write-timeout", d.String(), "-idle-timeout", d.String())
	req := `{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`
	want := `{"jsonrpc":"2.0","result":3,"id":1}`

	t.Run("HTTP idle", func(t *testing.T) {
		c := dial(t, s.httpAddr)
		io.WriteString(c, postRequest(req))
		c.SetReadDeadline(time.Now().Add(wait))
		br := bufio.NewReader(c)
		if b, err := readHTTPAnswer(br); err != nil || string(b) != want {
			t.Fatalf("%s, %v", b, err)
		}
		// Then nothing: the keep-alive connection is closed.
		c.SetReadDeadline(time.Now().Add(wait))
		if _, err := br.ReadByte(); errors.Is(err, os.ErrDeadlineExceeded) {
			t.Errorf("an idle keep-alive connection is still open after %v", wait)
		}
	})
	t.Run("HTTP headers", func(t *testing.T) {
		c := dial(t, s.httpAddr)
		io.WriteString(c, "POST / HTTP/1.1\r\nHost: localhost\r\n")
		closedWithin(t, "headers never finished", c)
	})
	t.Run("HTTP body", func(t *testing.T) {
		c := dial(t, s.httpAddr)
		io.WriteString(c, "POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 4194303\r\n\r\n"+req[:20])
		got := closedWithin(t, "a body never finished", c)
		if !strings.HasPrefix(got, "HTTP/1.1 408 ") {
			t.Errorf("answer %q, want 408", got)
		}
	})
	t.Run("HTTP header size", func(t *testing.T) {
		c := dial(t, s.httpAddr)
		io.WriteString(c, "POST / HTTP/1.1\r\nHost: localhost\r\nX-Big: "+strings.Repeat("x", maxHeaderBytes+8<<10)+"\r\n\r\n")
		c.SetReadDeadline(time.Now().Add(wait))
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
			t.Errorf("status %d, want 431", resp.StatusCode)
		}
	})
	t.Run("HTTP write", func(t *testing.T) {
		// A call that outlasts the write timeout loses its answer.
		c := dial(t, s.httpAddr)
		io.WriteString(c, postRequest(`{"jsonrpc":"2.0","method":"slow","id":1}`))
		if got := closedWithin(t, "a call past the write timeout", c); got != "" {
			t.Errorf("answer %q past the write timeout", got)
		}
	})
	t.Run("TCP idle", func(t *testing.T) {
		c := dial(t, s.tcpAddr)
		io.WriteString(c, req+"\n")
		if got := closedWithin(t, "an idle TCP connection", c); got != want+"\n" {
			t.Errorf("answer %q", got)
		}
	})
	t.Run("TCP message", func(t *testing.T) {
		c := dial(t, s.tcpAddr)
		io.WriteString(c, req[:20])
		closedWithin(t, "a message never finished", c)
	})
}

// TestTimeoutsDisabled: with every timeout 0 (none), each host still serves.
func TestTimeoutsDisabled(t *testing.T) {
	testutil.SkipOnJS(t, "calls over WebSocket too, and coder/websocket on js dials with the host's WebSocket, which cannot reach the program's in-memory network")
	s := startServing(t, demo.NewServer(), "-read-timeout", "0", "-write-timeout", "0", "-idle-timeout", "0")
	req := `{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`
	want := `{"jsonrpc":"2.0","result":3,"id":1}`

	c := dial(t, s.httpAddr)
	c.SetDeadline(time.Now().Add(wait))
	io.WriteString(c, postRequest(req))
	if b, err := readHTTPAnswer(bufio.NewReader(c)); err != nil || string(b) != want {
		t.Errorf("HTTP: %s, %v", b, err)
	}

	tc := dial(t, s.tcpAddr)
	tc.SetDeadline(time.Now().Add(wait))
	io.WriteString(tc, req+"\n")
	if line, err := bufio.NewReader(tc).ReadString('\n'); err != nil || line != want+"\n" {
		t.Errorf("TCP: %q, %v", line, err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	wc, _, err := websocket.Dial(ctx, s.wsURL, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer wc.CloseNow()
	wc.Write(ctx, websocket.MessageText, []byte(req))
	if _, msg, err := wc.Read(ctx); err != nil || string(msg) != want {
		t.Errorf("WebSocket: %s, %v", msg, err)
	}
}
