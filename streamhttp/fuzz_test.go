package streamhttp_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/streamhttp"
)

// FuzzMCPPost: whatever the body and the headers that mirror it, the MCP
// profile answers a POST with a status it documents and, when the body is
// JSON-RPC's, a JSON body or none; it never panics, and a later request
// is served.
func FuzzMCPPost(f *testing.F) {
	for _, seed := range [][4]string{
		{`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"name":"a"}}`, "2026-07-28", "tools/call", "a"},
		{`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"name":"a"}}`, "2026-07-28", "tools/call", "=?base64?YQ==?="},
		{`{"jsonrpc":"2.0","id":7,"method":"resources/read","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"1900-01-01"},"uri":"x"}}`, "1900-01-01", "resources/read", "x"},
		{`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`, "", "", ""},
		{`[{"jsonrpc":"2.0","id":1,"method":"x"}]`, "2026-07-28", "x", ""},
		{`{"jsonrpc":"2.0","result":1,"id":1}`, "2025-11-25", "", ""},
		{`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`, "", "", ""},
		{`{"jsonrpc":"2.0","id":1,"method":"tools\/call","params":{"_met\u0061":{"io.modelcontextprotocol/protocolVersion":20260728}}}`, "2026-07-28", "tools/call", "=?base64?!?="},
		{`not json`, "2026-07-28", "", ""},
	} {
		f.Add(seed[0], seed[1], seed[2], seed[3])
	}
	srv := jsonrpc.NewServer(jsonrpc.AllowUnknownFields())
	srv.MustRegister("initialize", func(struct{}) string { return "ready" })
	srv.MustRegister("tools/call", func(p struct{ Name string }) string { return p.Name })
	h := &streamhttp.Handler{Server: srv, MCP: &streamhttp.MCP{}, MaxSessions: 64, KeepAlive: -1}
	f.Cleanup(func() { h.Close() })
	f.Fuzz(func(t *testing.T, body, version, method, name string) {
		req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json")
		for k, v := range map[string]string{"Mcp-Protocol-Version": version, "Mcp-Method": method, "Mcp-Name": name} {
			if v != "" {
				req.Header.Set(k, v)
			}
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		switch rec.Code {
		case 200, 202, 400, 404, 503:
		default:
			t.Fatalf("status %d for %q", rec.Code, body)
		}
		if rec.Header().Get("Content-Type") == "application/json" && !json.Valid(rec.Body.Bytes()) {
			t.Fatalf("a body that is not JSON: %q", rec.Body)
		}
		if rec.Code == 200 && rec.Header().Get("Mcp-Session-Id") != "" {
			h.Close()
			h = &streamhttp.Handler{Server: srv, MCP: &streamhttp.MCP{}, MaxSessions: 64, KeepAlive: -1}
		}
	})
}
