package main

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestAllowedHosts: /mcp refuses, with 403, a request to its loopback
// address that names another host (DNS rebinding), unless -allowed-hosts
// names it, as a proxy reached by that name passes it on; -allowed-origins
// lets the pages of an origin call it.
func TestAllowedHosts(t *testing.T) {
	r := startRun(t, "-allowed-hosts", "rpc.example.com, api.example.com", "-allowed-origins", "https://app.example.com")
	url := r.addr["http"] + "mcp"
	for _, c := range []struct {
		host, origin string
		status       int
	}{
		{"", "", http.StatusOK},
		{"rpc.example.com", "", http.StatusOK},
		{"API.example.com:443", "", http.StatusOK},
		{"evil.example.com", "", http.StatusForbidden},
		{"", "https://app.example.com", http.StatusOK},
		{"", "https://evil.example.com", http.StatusForbidden},
	} {
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
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
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != c.status {
			t.Errorf("Host %q, Origin %q: %d %s, want %d", c.host, c.origin, resp.StatusCode, body, c.status)
		}
		if c.status == http.StatusOK && string(body) != `{"jsonrpc":"2.0","result":3,"id":1}` {
			t.Errorf("Host %q, Origin %q: %s", c.host, c.origin, body)
		}
	}
}
