package fasthttprpc_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/jsonrpc-go/jsonrpc/fasthttprpc"
	"github.com/jsonrpc-go/jsonrpc/internal/demo"
)

// TestAllowedHosts: on a loopback address the handler answers a Host that
// is no loopback name nor one of AllowedHosts with 403 (DNS rebinding),
// and a browser's Origin of another host not in AllowedOrigins too.
func TestAllowedHosts(t *testing.T) {
	h := &fasthttprpc.Handler{Server: demo.NewServer(), AllowedHosts: []string{"rpc.example.com"}, AllowedOrigins: []string{"https://app.example.com"}}
	url := serve(t, h.ServeFastHTTP)
	for _, c := range []struct {
		host, origin string
		status       int
	}{
		{"", "", http.StatusOK},
		{"localhost:1", "", http.StatusOK},
		{"rpc.example.com", "", http.StatusOK},
		{"evil.example", "", http.StatusForbidden},
		{"evil.example", "http://evil.example", http.StatusForbidden},
		{"", "https://app.example.com", http.StatusOK},
		{"", "https://evil.example", http.StatusForbidden},
	} {
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`))
		req.Header.Set("Content-Type", "application/json")
		if c.host != "" {
			req.Host = c.host
		}
		if c.origin != "" {
			req.Header.Set("Origin", c.origin)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != c.status {
			t.Errorf("Host %q, Origin %q: %d %s, want %d", c.host, c.origin, resp.StatusCode, body, c.status)
		}
	}
}
