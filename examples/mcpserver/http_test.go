package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/jsonrpc-go/jsonrpc/internal/testutil"
)

// serveHTTPBin runs the binary with -http on a loopback port and returns
// its endpoint's URL; at the test's end it is interrupted, and must exit
// with status 0.
func serveHTTPBin(t *testing.T, bin string) string {
	t.Helper()
	testutil.SkipOnWasm(t, "starts a process")
	cmd := exec.Command(bin, "-http", "127.0.0.1:0")
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("mcpserver -http after an interrupt: %v, want status 0", err)
			}
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			t.Error("mcpserver -http did not exit after an interrupt")
		}
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	url, ok := strings.CutPrefix(strings.TrimSpace(line), "mcpserver: Streamable HTTP on ")
	if err != nil || !ok || !strings.HasPrefix(url, "http://127.0.0.1:") || !strings.HasSuffix(url, "/mcp") {
		t.Fatalf("mcpserver -http said %q (%v), want its URL", line, err)
	}
	return url
}

// postMCP POSTs body to url with the headers h (key, value, ...) and
// returns the status, the response's headers and its body.
func postMCP(t *testing.T, url, body string, h ...string) (int, http.Header, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for i := 0; i+1 < len(h); i += 2 {
		if h[i] == "Host" {
			req.Host = h[i+1]
			continue
		}
		req.Header.Set(h[i], h[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, string(b)
}

// dataLines returns the data of the events of an event stream.
func dataLines(body string) []string {
	var out []string
	for _, l := range strings.Split(body, "\n") {
		if d, ok := strings.CutPrefix(l, "data: "); ok {
			out = append(out, d)
		}
	}
	return out
}

// TestHTTP: the built server with -http serves both eras of MCP at /mcp.
// A session of 2025-11-25: initialize mints it (Mcp-Session-Id), a request
// without it is 400, a tool's progress comes as an event stream (its
// priming event first, then the progress, then the answer), DELETE ends
// it (404 after). A request of 2026-07-28: its headers mirror its body, a
// mismatch is 400 with -32020, its result carries resultType; GET is 405
// for it. A Host that is not loopback is 403.
func TestHTTP(t *testing.T) {
	url := serveHTTPBin(t, build(t))

	code, hd, body := postMCP(t, url, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"test-agent","version":"1.0.0"}}}`)
	sid := hd.Get("Mcp-Session-Id")
	if code != 200 || sid == "" || !strings.Contains(body, `"protocolVersion":"2025-11-25"`) {
		t.Fatalf("initialize: %d %v %s", code, hd, body)
	}
	if code, _, _ := postMCP(t, url, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, "Mcp-Session-Id", sid, "Mcp-Protocol-Version", "2025-11-25"); code != 202 {
		t.Errorf("notifications/initialized: %d, want 202", code)
	}
	if code, _, _ := postMCP(t, url, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`); code != 400 {
		t.Errorf("tools/list without a session: %d, want 400", code)
	}
	code, hd, body = postMCP(t, url, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"test_tool_with_progress","arguments":{},"_meta":{"progressToken":"p"}}}`, "Mcp-Session-Id", sid, "Mcp-Protocol-Version", "2025-11-25")
	data := dataLines(body)
	if code != 200 || hd.Get("Content-Type") != "text/event-stream" || len(data) != 5 || data[0] != "" ||
		!strings.Contains(data[1], `"progress":0,"progressToken":"p","total":100`) || !strings.Contains(data[3], `"progress":100,`) || !strings.Contains(data[4], `"id":3`) {
		t.Errorf("a tool with progress: %d %s\n%s", code, hd.Get("Content-Type"), body)
	}
	req, _ := http.NewRequest(http.MethodDelete, url, nil)
	req.Header.Set("Mcp-Session-Id", sid)
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != 200 {
		t.Errorf("DELETE: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}
	if code, _, _ := postMCP(t, url, `{"jsonrpc":"2.0","id":4,"method":"ping"}`, "Mcp-Session-Id", sid); code != 404 {
		t.Errorf("a request of an ended session: %d, want 404", code)
	}

	const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	echo := `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{` + meta + `,"name":"echo","arguments":{"text":"over HTTP"}}}`
	code, hd, body = postMCP(t, url, echo, "Mcp-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call", "Mcp-Name", "echo")
	var m struct {
		Result struct {
			ResultType string
			Content    []struct{ Text string }
		}
	}
	if json.Unmarshal([]byte(body), &m) != nil || code != 200 || hd.Get("Mcp-Session-Id") != "" || m.Result.ResultType != "complete" || len(m.Result.Content) != 1 || m.Result.Content[0].Text != "over HTTP" {
		t.Errorf("echo at 2026-07-28: %d %v %s", code, hd, body)
	}
	if code, _, body := postMCP(t, url, echo, "Mcp-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call", "Mcp-Name", "rm"); code != 400 || !strings.Contains(body, `"code":-32020`) {
		t.Errorf("a Mcp-Name that is not the body's: %d %s, want 400 and -32020", code, body)
	}
	if code, _, body := postMCP(t, url, `{"jsonrpc":"2.0","id":6,"method":"nope","params":{`+meta+`}}`, "Mcp-Protocol-Version", "2026-07-28", "Mcp-Method", "nope"); code != 404 || !strings.Contains(body, `"code":-32601`) {
		t.Errorf("an unknown method at 2026-07-28: %d %s, want 404 and -32601", code, body)
	}
	req, _ = http.NewRequest(http.MethodGet, url, nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != 405 {
		t.Errorf("GET at 2026-07-28: %v %v, want 405", resp, err)
	} else {
		resp.Body.Close()
	}
	if code, _, _ := postMCP(t, url, echo, "Host", "evil.example.com"); code != 403 {
		t.Errorf("a Host that is not loopback: %d, want 403", code)
	}
}
