package streamhttp_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/internal/leaktest"
	"github.com/jsonrpc-go/jsonrpc/streamhttp"
)

// mcpServer is a server with methods of MCP's names: tools/call and
// prompts/get answer params.name, resources/read params.uri, and
// initialize begins a session.
func mcpServer(t *testing.T) (*jsonrpc.Server, *testState) {
	st := &testState{release: make(chan struct{}), started: make(chan struct{}, 16), cancelled: make(chan time.Time, 16)}
	srv := jsonrpc.NewServer(jsonrpc.AllowUnknownFields())
	srv.MustRegister("add", func(a, b float64) float64 { return a + b })
	srv.MustRegister("hold", func(ctx context.Context, _ struct{}) (string, error) {
		st.started <- struct{}{}
		select {
		case <-st.release:
			return "released", nil
		case <-ctx.Done():
			st.cancelled <- time.Now()
			return "", ctx.Err()
		}
	}, jsonrpc.Blocking())
	srv.MustRegister("initialize", func(struct{}) string { return "ready" })
	srv.MustRegister("tools/call", func(p struct{ Name string }) string { return "called " + p.Name })
	srv.MustRegister("prompts/get", func(p struct{ Name string }) string { return "prompt " + p.Name })
	srv.MustRegister("resources/read", func(p struct{ URI string }) string { return "read " + p.URI })
	return srv, st
}

const modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

// TestMCPHeaders: under MCP 2026-07-28 a request's headers mirror its
// body, compared as HTTP says, the body read as JSON: a missing, repeated
// or different MCP-Protocol-Version, Mcp-Method or Mcp-Name is 400 with
// HeaderMismatch (-32020) and the request's id (a version header with no
// version in the _meta, or no clientCapabilities there, 400 with -32602);
// Mcp-Name may be Base64 in
// the sentinel form; an unsupported version is 400 with -32022 and the
// supported list; an unknown method 404 with -32601.
func TestMCPHeaders(t *testing.T) {
	leaktest.Check(t)
	srv, _ := mcpServer(t)
	url := sessionServer(t, &streamhttp.Handler{Server: srv, MCP: &streamhttp.MCP{}})
	b64 := func(s string) string { return "=?base64?" + base64.StdEncoding.EncodeToString([]byte(s)) + "?=" }
	call := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{` + modernMeta + `,"name":"get_weather"}}`
	hv, hm, hn := "Mcp-Protocol-Version", "Mcp-Method", "Mcp-Name"
	for _, tc := range []struct {
		name   string
		body   string
		header []string
		status int
		code   int    // 0: a result
		result string // when code is 0
	}{
		{"all three", call, []string{hv, "2026-07-28", hm, "tools/call", hn, "get_weather"}, 200, 0, `"called get_weather"`},
		{"names in lower case", call, []string{"mcp-protocol-version", "2026-07-28", "mcp-method", "tools/call", "mcp-name", "get_weather"}, 200, 0, `"called get_weather"`},
		{"name in Base64", call, []string{hv, "2026-07-28", hm, "tools/call", hn, b64("get_weather")}, 200, 0, `"called get_weather"`},
		{"non-ASCII name in Base64", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{` + modernMeta + `,"name":"météo"}}`, []string{hv, "2026-07-28", hm, "tools/call", hn, b64("météo")}, 200, 0, `"called météo"`},
		{"escaped body", `{"jsonrpc":"2.0","id":7,"method":"tools\/call","params":{"_met\u0061":{"io.modelcontextprotocol/protocolVersion":"2026-07-2\u0038","io.modelcontextprotocol/clientCapabilities":{}},"n\u0061me":"get_\u0077eather"}}`, []string{hv, "2026-07-28", hm, "tools/call", hn, "get_weather"}, 200, 0, `"called get_weather"`},
		{"resources/read by uri", `{"jsonrpc":"2.0","id":7,"method":"resources/read","params":{` + modernMeta + `,"uri":"file:///a.txt"}}`, []string{hv, "2026-07-28", hm, "resources/read", hn, "file:///a.txt"}, 200, 0, `"read file:///a.txt"`},
		{"prompts/get by name", `{"jsonrpc":"2.0","id":7,"method":"prompts/get","params":{` + modernMeta + `,"name":"p"}}`, []string{hv, "2026-07-28", hm, "prompts/get", hn, "p"}, 200, 0, `"prompt p"`},
		{"no Mcp-Name needed", `{"jsonrpc":"2.0","id":7,"method":"add","params":{` + modernMeta + `}}`, []string{hv, "2026-07-28", hm, "add"}, 200, -32602, ""},
		{"no version header", call, []string{hm, "tools/call", hn, "get_weather"}, 400, -32020, ""},
		{"version header differs", call, []string{hv, "2025-11-25", hm, "tools/call", hn, "get_weather"}, 400, -32020, ""},
		{"version header without _meta", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"get_weather"}}`, []string{hv, "2026-07-28", hm, "tools/call", hn, "get_weather"}, 400, -32602, ""},
		{"no clientCapabilities", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"name":"get_weather"}}`, []string{hv, "2026-07-28", hm, "tools/call", hn, "get_weather"}, 400, -32602, ""},
		{"clientCapabilities not an object", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":[]},"name":"get_weather"}}`, []string{hv, "2026-07-28", hm, "tools/call", hn, "get_weather"}, 400, -32602, ""},
		{"no Mcp-Method", call, []string{hv, "2026-07-28", hn, "get_weather"}, 400, -32020, ""},
		{"Mcp-Method of another case", call, []string{hv, "2026-07-28", hm, "Tools/Call", hn, "get_weather"}, 400, -32020, ""},
		{"no Mcp-Name", call, []string{hv, "2026-07-28", hm, "tools/call"}, 400, -32020, ""},
		{"Mcp-Name differs", call, []string{hv, "2026-07-28", hm, "tools/call", hn, "delete_all"}, 400, -32020, ""},
		{"Mcp-Name in bad Base64", call, []string{hv, "2026-07-28", hm, "tools/call", hn, "=?base64?!!!?="}, 400, -32020, ""},
		{"Base64 of another name", call, []string{hv, "2026-07-28", hm, "tools/call", hn, b64("delete_all")}, 400, -32020, ""},
		{"unsupported version", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"1900-01-01"},"name":"x"}}`, []string{hv, "1900-01-01", hm, "tools/call", hn, "x"}, 400, -32022, ""},
		{"unknown method", `{"jsonrpc":"2.0","id":7,"method":"nope","params":{` + modernMeta + `}}`, []string{hv, "2026-07-28", hm, "nope"}, 404, -32601, ""},
		{"session id ignored", call, []string{hv, "2026-07-28", hm, "tools/call", hn, "get_weather", "Mcp-Session-Id", "no-such-session"}, 200, 0, `"called get_weather"`},
	} {
		resp := post(t, url, both, tc.body, tc.header...)
		got := readAll(t, resp)
		var m struct {
			Result json.RawMessage
			Error  *struct {
				Code int
				Data json.RawMessage
			}
			ID json.RawMessage
		}
		if err := json.Unmarshal([]byte(got), &m); err != nil {
			t.Errorf("%s: %d %q, not JSON", tc.name, resp.StatusCode, got)
			continue
		}
		switch {
		case resp.StatusCode != tc.status:
			t.Errorf("%s: status %d (%s), want %d", tc.name, resp.StatusCode, got, tc.status)
		case tc.code == 0 && (m.Error != nil || string(m.Result) != tc.result):
			t.Errorf("%s: %s, want the result %s", tc.name, got, tc.result)
		case tc.code != 0 && (m.Error == nil || m.Error.Code != tc.code || string(m.ID) != "7"):
			t.Errorf("%s: %s, want error %d with id 7", tc.name, got, tc.code)
		case tc.code == -32022 && string(m.Error.Data) != `{"supported":["2026-07-28","2025-11-25","2025-06-18"],"requested":"1900-01-01"}`:
			t.Errorf("%s: %s, want the supported versions and the one requested", tc.name, got)
		case resp.Header.Get("Mcp-Session-Id") != "":
			t.Errorf("%s: a session id minted for a request of 2026-07-28", tc.name)
		}
	}
	// Two values of one header are malformed.
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(call))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", both)
	req.Header["Mcp-Protocol-Version"] = []string{"2026-07-28"}
	req.Header["Mcp-Method"] = []string{"tools/call", "tools/call"}
	req.Header["Mcp-Name"] = []string{"get_weather"}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if got := readAll(t, resp); resp.StatusCode != 400 || !strings.Contains(got, `"code":-32020`) {
		t.Errorf("Mcp-Method twice: %d %s, want 400 and -32020", resp.StatusCode, got)
	}
}

// TestMCPEras: requests of 2026-07-28 are POSTs of one message with no
// session (GET and DELETE are 405, batches and responses 400, a
// notification 202); the handshake era's requests need a session (400
// without), begun by initialize; batches are 400 in both eras.
func TestMCPEras(t *testing.T) {
	leaktest.Check(t)
	srv, _ := mcpServer(t)
	h := &streamhttp.Handler{Server: srv, MCP: &streamhttp.MCP{}}
	url := sessionServer(t, h)
	modern := []string{"Mcp-Protocol-Version", "2026-07-28"}
	send := func(method, body string, header ...string) (int, string, http.Header) {
		t.Helper()
		req, _ := http.NewRequest(method, url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", both)
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { resp.Body.Close() })
		return resp.StatusCode, readAll(t, resp), resp.Header
	}
	for _, m := range []string{http.MethodGet, http.MethodDelete} {
		if code, _, hd := send(m, "", modern...); code != 405 || hd.Get("Allow") != "POST" {
			t.Errorf("%s at 2026-07-28: %d Allow %q, want 405 Allow: POST", m, code, hd.Get("Allow"))
		}
	}
	if code, got, _ := send(http.MethodPost, `[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{`+modernMeta+`,"name":"a"}}]`, modern...); code != 400 || !strings.Contains(got, `"code":-32600`) {
		t.Errorf("a batch at 2026-07-28: %d %s, want 400 and -32600", code, got)
	}
	if code, got, _ := send(http.MethodPost, `[{"jsonrpc":"2.0","id":1,"method":"initialize"}]`); code != 400 || !strings.Contains(got, `"code":-32600`) {
		t.Errorf("a batch of the handshake era: %d %s, want 400 and -32600", code, got)
	}
	if code, _, _ := send(http.MethodPost, `{"jsonrpc":"2.0","result":{},"id":1}`, modern...); code != 400 {
		t.Errorf("a response at 2026-07-28: %d, want 400", code)
	}
	if code, _, _ := send(http.MethodPost, `{"jsonrpc":"2.0","method":"notifications/x","params":{`+modernMeta+`}}`, modern...); code != 202 {
		t.Errorf("a notification at 2026-07-28: %d, want 202", code)
	}
	// The handshake era.
	if code, _, _ := send(http.MethodPost, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a"}}`); code != 400 {
		t.Errorf("a request without a session: %d, want 400", code)
	}
	if code, _, _ := send(http.MethodPost, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`); code != 202 {
		t.Errorf("a notification without a session: %d, want 202", code)
	}
	if code, _, _ := send(http.MethodGet, ""); code != 400 {
		t.Errorf("GET without a session: %d, want 400", code)
	}
	code, got, hd := send(http.MethodPost, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}`, "Mcp-Protocol-Version", "2025-11-25")
	sid := hd.Get("Mcp-Session-Id")
	if code != 200 || sid == "" {
		t.Fatalf("initialize: %d %s %v, want a session", code, got, hd)
	}
	for _, v := range []string{"2025-11-25", "2025-06-18", "2025-03-26", ""} {
		hdr := []string{"Mcp-Session-Id", sid}
		if v != "" {
			hdr = append(hdr, "Mcp-Protocol-Version", v)
		}
		if code, got, _ := send(http.MethodPost, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a"}}`, hdr...); code != 200 || got != `{"jsonrpc":"2.0","result":"called a","id":1}` {
			t.Errorf("a call of the session with version %q: %d %s", v, code, got)
		}
	}
	if code, got, _ := send(http.MethodPost, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a"}}`, "Mcp-Session-Id", sid, "Mcp-Protocol-Version", "1900-01-01"); code != 400 || !strings.Contains(got, `"code":-32022`) {
		t.Errorf("a session's call with an unknown version header: %d %s, want 400 and -32022", code, got)
	}
	if h.Sessions() != 1 {
		t.Errorf("%d sessions, want 1", h.Sessions())
	}
}

// TestMCPClosedStreamCancels: at 2026-07-28, closing a call's stream
// cancels its method, within 100 ms.
func TestMCPClosedStreamCancels(t *testing.T) {
	leaktest.Check(t)
	srv, st := mcpServer(t)
	url := sessionServer(t, &streamhttp.Handler{Server: srv, MCP: &streamhttp.MCP{}})
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","method":"hold","params":{`+modernMeta+`},"id":1}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", both)
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "hold")
	errc := make(chan error, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		errc <- err
	}()
	select {
	case <-st.started:
	case <-time.After(wait):
		t.Fatal("the method did not start")
	}
	closed := time.Now()
	cancel()
	select {
	case at := <-st.cancelled:
		if d := at.Sub(closed); d > 100*time.Millisecond {
			t.Errorf("the method's context ended %v after the stream closed, want within 100 ms", d)
		}
	case <-time.After(wait):
		t.Fatal("the method's context was not cancelled")
	}
	<-errc
}
