package transport_test

import (
	"errors"
	"net"
	"testing"

	"github.com/jsonrpc-go/jsonrpc/transport"
)

func TestCheckHost(t *testing.T) {
	loop := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080}
	loop6 := &net.TCPAddr{IP: net.IPv6loopback, Port: 8080}
	public := &net.TCPAddr{IP: net.IPv4(192, 0, 2, 1), Port: 8080}
	allowed := []string{"rpc.example.com"}
	for _, c := range []struct {
		local net.Addr
		host  string
		ok    bool
	}{
		{loop, "127.0.0.1:8080", true},
		{loop, "127.3.2.1", true},
		{loop, "localhost:8080", true},
		{loop, "LocalHost", true},
		{loop, "app.localhost:8080", true},
		{loop, "[::1]:8080", true},
		{loop6, "::1", true},
		{loop, "RPC.example.com:443", true},
		{loop, "evil.example", false},
		{loop, "evil.example:8080", false},
		{loop, "128.0.0.1:8080", false},
		{loop, "1127.0.0.1", false},
		{loop, "127.0.0.1.evil.example", false},
		{loop, "localhost.evil.example", false},
		{loop, "", false},
		{public, "evil.example", true},
		{nil, "evil.example", true},
		{&net.UnixAddr{Name: "/run/rpc.sock", Net: "unix"}, "evil.example", true},
	} {
		err := transport.CheckHost(c.local, c.host, allowed)
		if (err == nil) != c.ok || err != nil && !errors.Is(err, transport.ErrHostNotAllowed) {
			t.Errorf("CheckHost(%v, %q) = %v, want ok %v", c.local, c.host, err, c.ok)
		}
	}
}

func TestCheckOrigin(t *testing.T) {
	allowed := []string{"https://app.example.com"}
	for _, c := range []struct {
		origin, host string
		ok           bool
	}{
		{"", "127.0.0.1:8080", true},
		{"http://127.0.0.1:8080", "127.0.0.1:8080", true},
		{"http://localhost:3000", "127.0.0.1:8080", true},
		{"https://rpc.example.com", "RPC.example.com", true},
		{"https://app.example.com", "127.0.0.1:8080", true},
		{"https://evil.example", "127.0.0.1:8080", false},
		{"http://localhost:3000", "rpc.example.com", false},
		{"null", "127.0.0.1:8080", false},
		{"file://", "127.0.0.1:8080", false},
	} {
		err := transport.CheckOrigin(c.origin, c.host, allowed)
		if (err == nil) != c.ok || err != nil && !errors.Is(err, transport.ErrOriginNotAllowed) {
			t.Errorf("CheckOrigin(%q, %q) = %v, want ok %v", c.origin, c.host, err, c.ok)
		}
	}
	if err := transport.CheckOrigin("https://evil.example", "127.0.0.1", []string{"*"}); err != nil {
		t.Errorf(`"*" refused an origin: %v`, err)
	}
}
