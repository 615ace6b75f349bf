package main

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// dialFrom connects to addr (host:port) from the local address ip, and
// skips the test when the machine cannot (127.0.0.2 is loopback on Linux
// alone).
func dialFrom(t *testing.T, ip, addr string) net.Conn {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: wait}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		t.Skipf("dial from %s: %v", ip, err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(wait))
	return c
}

// TestHTTPConnsPerClient: a client (127.0.0.1) holding its share of the
// HTTP listener's connections (-max-conns-per-client, half of -max-conns)
// has its next connection answered 429 with Retry-After, while a client
// of another address (127.0.0.2) connects and is served on / and /mcp
// (issue 34: 4,093 idle keep-alive connections of one address made a
// victim's new connections time out).
func TestHTTPConnsPerClient(t *testing.T) {
	r := startRun(t, "-ws", "-max-conns", "4")
	addr := strings.TrimSuffix(strings.TrimPrefix(r.addr["http"], "http://"), "/")
	add := "POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 54\r\n\r\n" + `{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`
	call := func(c net.Conn, req string) (*http.Response, string) {
		t.Helper()
		if _, err := io.WriteString(c, req); err != nil {
			t.Fatal(err)
		}
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp, string(b)
	}
	for range 2 {
		if resp, body := call(dialFrom(t, "127.0.0.1", addr), add); resp.StatusCode != 200 {
			t.Fatalf("the attacker's connection: %d %s", resp.StatusCode, body)
		}
	}
	resp, body := call(dialFrom(t, "127.0.0.1", addr), add)
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" {
		t.Errorf("past the share: %d %v %s", resp.StatusCode, resp.Header, body)
	}
	if resp, body := call(dialFrom(t, "127.0.0.2", addr), add); resp.StatusCode != 200 || body != `{"jsonrpc":"2.0","result":3,"id":1}` {
		t.Errorf("the victim on /: %d %s", resp.StatusCode, body)
	}
	mcp := "POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nAccept: application/json\r\nContent-Length: 54\r\n\r\n" + `{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`
	if resp, body := call(dialFrom(t, "127.0.0.2", addr), mcp); resp.StatusCode != 200 || body != `{"jsonrpc":"2.0","result":3,"id":1}` {
		t.Errorf("the victim on /mcp: %d %s", resp.StatusCode, body)
	}
}
