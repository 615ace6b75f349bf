package transport_test

import (
	"errors"
	"io"
	"net/http/httptest"
	"testing"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/transport"
)

// TestResourceMetadataURL: the metadata is published where RFC 9728
// puts it, the well-known path between the resource's host and its path.
func TestResourceMetadataURL(t *testing.T) {
	for _, tc := range []struct{ resource, url, path string }{
		{"https://example.com/mcp", "https://example.com/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource/mcp"},
		{"https://example.com/mcp/", "https://example.com/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource/mcp"},
		{"https://example.com", "https://example.com/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource"},
		{"https://example.com:8443/a/b?tenant=1", "https://example.com:8443/.well-known/oauth-protected-resource/a/b?tenant=1", "/.well-known/oauth-protected-resource/a/b"},
		{"not a url", "", "/.well-known/oauth-protected-resource"},
	} {
		m := &transport.ResourceMetadata{Resource: tc.resource}
		if got := m.URL(); got != tc.url {
			t.Errorf("URL of %q: %q, want %q", tc.resource, got, tc.url)
		}
		if got := m.Path(); got != tc.path {
			t.Errorf("Path of %q: %q, want %q", tc.resource, got, tc.path)
		}
		if !m.Serves(tc.path) || !m.Serves(transport.WellKnownResourcePath) || m.Serves("/mcp") || m.Serves(tc.path+"x") {
			t.Errorf("Serves of %q", tc.resource)
		}
	}
	var none *transport.ResourceMetadata
	if none.URL() != "" || none.Serves(transport.WellKnownResourcePath) {
		t.Error("a nil ResourceMetadata is published")
	}
}

func TestResourceMetadataServeHTTP(t *testing.T) {
	m := &transport.ResourceMetadata{
		Resource:               "https://example.com/mcp",
		AuthorizationServers:   []string{"https://auth.example.com"},
		ScopesSupported:        []string{"files:read", "files:write"},
		BearerMethodsSupported: []string{"header"},
	}
	for _, tc := range []struct {
		method string
		status int
		body   string
	}{
		{"GET", 200, `{"resource":"https://example.com/mcp","authorization_servers":["https://auth.example.com"],"scopes_supported":["files:read","files:write"],"bearer_methods_supported":["header"]}`},
		{"HEAD", 200, ""},
		{"OPTIONS", 204, ""},
		{"POST", 405, "jsonrpc: method not allowed; use GET\n"},
	} {
		w := httptest.NewRecorder()
		m.ServeHTTP(w, httptest.NewRequest(tc.method, m.Path(), nil))
		body, _ := io.ReadAll(w.Result().Body)
		if w.Code != tc.status || string(body) != tc.body || w.Header().Get("Access-Control-Allow-Origin") != "*" {
			t.Errorf("%s: %d %s (%v), want %d %s", tc.method, w.Code, body, w.Header(), tc.status, tc.body)
		}
		if tc.status == 200 && w.Header().Get("Content-Type") != "application/json" {
			t.Errorf("%s: Content-Type %q", tc.method, w.Header().Get("Content-Type"))
		}
	}
}

// TestCheckAudience: a token is taken only by the resource it was issued
// for (RFC 8707); URLs match as URLs.
func TestCheckAudience(t *testing.T) {
	for _, tc := range []struct {
		aud      []string
		accepted []string
		ok       bool
	}{
		{[]string{"https://example.com/mcp"}, []string{"https://example.com/mcp"}, true},
		{[]string{"https://EXAMPLE.com:443/mcp/"}, []string{"https://example.com/mcp"}, true},
		{[]string{"HTTPS://example.com/mcp"}, []string{"https://example.com/mcp"}, true},
		{[]string{"http://example.com:80/mcp"}, []string{"http://example.com/mcp"}, true},
		{[]string{"other", "https://example.com/mcp"}, []string{"https://example.com/mcp"}, true},
		{[]string{"api"}, []string{"https://example.com/mcp", "api"}, true},
		{[]string{"https://example.com/other"}, []string{"https://example.com/mcp"}, false},
		{[]string{"https://example.com/MCP"}, []string{"https://example.com/mcp"}, false},
		{[]string{"https://example.com:8443/mcp"}, []string{"https://example.com/mcp"}, false},
		{[]string{"http://example.com/mcp"}, []string{"https://example.com/mcp"}, false},
		{[]string{"Api"}, []string{"api"}, false},
		{nil, []string{"https://example.com/mcp"}, false},
		{[]string{"https://example.com/mcp"}, nil, false},
	} {
		err := transport.CheckAudience(&jsonrpc.Principal{Audience: tc.aud}, tc.accepted...)
		if (err == nil) != tc.ok || err != nil && !errors.Is(err, transport.ErrAudience) {
			t.Errorf("audience %q, accepted %q: %v, want ok %v", tc.aud, tc.accepted, err, tc.ok)
		}
	}
	if err := transport.CheckAudience(nil, "x"); !errors.Is(err, transport.ErrAudience) {
		t.Errorf("nil Principal: %v", err)
	}
}
