package main

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestAllowedHosts: every HTTP host of jsonrpcd (/ of httprpc, /ws and
// /mcp) refuses, with 403, a request to its loopback address that names
// another host (DNS rebinding), unless -allowed-hosts names it, as a proxy
// reached by that name passes it on; and a browser's request of another
// origin, unless -allowed-origins names it (issue 34: / answered
// Host: evil.example, and /ws upgraded it when Origin named the same
// host).
func TestAllowedHosts(t *testing.T) {
	r := startRun(t, "-ws", "-allowed-hosts", "rpc.example.com, api.example.com", "-allowed-origins", "https://app.example.com")
	for _, c := range []struct {
		host, origin string
		ok           bool
	}{
		{"", "", true},
		{"rpc.example.com", "", true},
		{"API.example.com:443", "", true},
		{"evil.example.com", "", false},
		{"evil.example.com", "http://evil.example.com", false},
		{"", "https://app.example.com", true},
		{"", "https://evil.example.com", false},
		{"rpc.example.com", "http://rpc.example.com", true},
		{"", "null", false},
	} {
		for _, path := range []string{"", "mcp", "ws"} {
			var req *http.Request
			want := http.StatusOK
			if path == "ws" {
				req, _ = http.NewRequest(http.MethodGet, r.addr["http"]+path, nil)
				req.Header.Set("Connection", "Upgrade")
				req.Header.Set("Upgrade", "websocket")
				req.Header.Set("Sec-WebSocket-Version", "13")
				req.Header.Set("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==")
				want = http.StatusSwitchingProtocols
			} else {
				req, _ = http.NewRequest(http.MethodPost, r.addr["http"]+path, strings.NewReader(`{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
			}
			if !c.ok {
				want = http.StatusForbidden
			}
			if c.host != "" {
				req.Host = c.host
			}
			if c.origin != "" {
				req.Header.Set("Origin", c.origin)
			}
			resp, err := (&http.Client{Timeout: wait}).Do(req)
			if err != nil {
				t.Fatal(err)
			}
			var body []byte
			if resp.StatusCode != http.StatusSwitchingProtocols {
				body, _ = io.ReadAll(resp.Body)
			}
			resp.Body.Close()
			if resp.StatusCode != want {
				t.Errorf("/%s, Host %q, Origin %q: %d %s, want %d", path, c.host, c.origin, resp.StatusCode, body, want)
			}
			if want == http.StatusOK && string(body) != `{"jsonrpc":"2.0","result":3,"id":1}` {
				t.Errorf("/%s, Host %q, Origin %q: %s", path, c.host, c.origin, body)
			}
		}
	}
}
