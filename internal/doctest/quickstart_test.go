package doctest

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/client"
	"github.com/jsonrpc-go/jsonrpc/framing"
	"github.com/jsonrpc-go/jsonrpc/protocol/lsp"
	"github.com/jsonrpc-go/jsonrpc/protocol/mcp"
	"github.com/jsonrpc-go/jsonrpc/ws"
)

// The README's quick starts: the heading of each, and the programs its Go
// blocks are, in order. Each is written into a module of a user's, which
// names the repository with a replace line as the README's Install does,
// and built with `go mod tidy` and `go build`.
var quickStarts = []struct {
	heading  string
	programs []string
}{
	{"### A service over HTTP and TCP", []string{"service", "callit"}},
	{"### An MCP server with two tools", []string{"tools"}},
	{"### A language server with hover", []string{"hover"}},
	{"### An Ethereum-style API with subscriptions", []string{"eth"}},
}

// buildQuickStarts builds the README's quick starts, as written, and returns
// their binaries by program name.
func buildQuickStarts(t *testing.T) map[string]string {
	t.Helper()
	dir := root(t)
	text, err := os.ReadFile(filepath.Join(dir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	bs, err := blocks("README.md", text)
	if err != nil {
		t.Fatal(err)
	}
	mod := filepath.Join(t.TempDir(), "hello")
	write := func(name, data string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, qs := range quickStarts {
		var progs []block
		for _, b := range bs {
			if b.heading == qs.heading && b.isGo() && strings.HasPrefix(b.code, "package main\n") {
				progs = append(progs, b)
			}
		}
		if len(progs) != len(qs.programs) {
			t.Fatalf("README.md: %d whole programs under %q, want %d (%s)", len(progs), qs.heading, len(qs.programs), strings.Join(qs.programs, ", "))
		}
		for i, p := range progs {
			write(filepath.Join(mod, qs.programs[i], "main.go"), p.code)
		}
	}
	write(filepath.Join(mod, "go.mod"), "module example.com/hello\n\ngo 1.26.0\n\nrequire github.com/jsonrpc-go/jsonrpc v0.0.0\n\nreplace github.com/jsonrpc-go/jsonrpc => "+dir+"\n")
	// The checksums of the library's own requirements, which `go mod tidy`
	// would otherwise fetch from the checksum database.
	sum, err := os.ReadFile(filepath.Join(dir, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	write(filepath.Join(mod, "go.sum"), string(sum))
	bin := filepath.Join(filepath.Dir(mod), "bin")
	env := []string{"GOWORK=off", "GOFLAGS=-mod=mod"}
	run(t, goCmd(t, mod, env, "mod", "tidy"))
	run(t, goCmd(t, mod, env, "build", "-o", bin+string(filepath.Separator), "./..."))
	out := map[string]string{}
	for _, qs := range quickStarts {
		for _, p := range qs.programs {
			out[p] = filepath.Join(bin, p)
		}
	}
	return out
}

// startServer starts bin with args and returns what its first log line
// that matches re captured (the addresses it listens on); the process is
// killed when t ends.
func startServer(t *testing.T, re *regexp.Regexp, bin string, args ...string) []string {
	t.Helper()
	cmd := exec.Command(bin, args...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var (
		mu  sync.Mutex
		log strings.Builder
	)
	found := make(chan []string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			mu.Lock()
			log.WriteString(sc.Text() + "\n")
			mu.Unlock()
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case found <- m[1:]:
				default:
				}
			}
		}
		close(found)
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		if t.Failed() {
			mu.Lock()
			t.Logf("%s's log:\n%s", filepath.Base(bin), log.String())
			mu.Unlock()
		}
	})
	select {
	case m, ok := <-found:
		if !ok {
			t.Fatalf("%s ended before it said where it listens", filepath.Base(bin))
		}
		return m
	case <-time.After(30 * time.Second):
		t.Fatalf("%s did not say where it listens within 30 s", filepath.Base(bin))
	}
	return nil
}

// TestQuickStarts builds the README's quick starts as written and drives
// each as its user would: the service with its own client and with others,
// the MCP server as an agent, the language server as an editor, the
// Ethereum-style API as a subscriber.
func TestQuickStarts(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the README's quick starts")
	}
	goTool(t)
	bins := buildQuickStarts(t)
	t.Run("service", func(t *testing.T) { testService(t, bins["service"], bins["callit"]) })
	t.Run("mcp", func(t *testing.T) { testMCP(t, bins["tools"]) })
	t.Run("lsp", func(t *testing.T) { testLSP(t, bins["hover"]) })
	t.Run("ethereum", func(t *testing.T) { testEthereum(t, bins["eth"]) })
}

// testService: the service answers its client over HTTP and TCP, and its
// struct param takes an object or an array.
func testService(t *testing.T, service, callit string) {
	addrs := startServer(t, regexp.MustCompile(`HTTP on (\S+), TCP on (\S+)`), service, "-http", "127.0.0.1:0", "-tcp", "127.0.0.1:0")
	url, tcp := addrs[0], addrs[1]
	out, err := exec.Command(callit, "-http", url, "-tcp", tcp).CombinedOutput()
	if err != nil || string(out) != "3\n19\n" {
		t.Fatalf("the client printed %q (%v), want 3 and 19", out, err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := client.New(client.HTTP(url, nil))
	defer c.Close()
	if got, err := client.Call[float64](ctx, c, "subtract", map[string]any{"minuend": 42, "subtrahend": 23}); err != nil || got != 19 {
		t.Errorf("subtract by name over HTTP: %v, %v", got, err)
	}
	ch, err := client.Dial(ctx, "tcp", tcp, framing.Line)
	if err != nil {
		t.Fatal(err)
	}
	tc := client.New(ch)
	defer tc.Close()
	if got, err := client.Call[float64](ctx, tc, "subtract", []any{42, 23}); err != nil || got != 19 {
		t.Errorf("subtract by position over TCP: %v, %v", got, err)
	}
	if _, err := client.Call[float64](ctx, tc, "divide", []any{1, 2}); !errors.Is(err, jsonrpc.ErrMethodNotFound) {
		t.Errorf("divide: %v, want Method not found", err)
	}
}

// testMCP: an agent's session with the MCP server over Streamable HTTP
// (2025-11-25: initialize, then the session's calls): the two tools
// listed with their schemas, each called, one with structured content.
func testMCP(t *testing.T, tools string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	cmd := exec.Command(tools, "-http", addr)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	for {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("the MCP server does not listen on %s: %v", addr, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	c := client.New(client.HTTP("http://"+addr+"/mcp", nil, client.HTTPHeader(http.Header{"MCP-Protocol-Version": {"2025-11-25"}})),
		client.UseProtocol(mcp.Protocol()))
	defer c.Close()
	var init struct {
		ProtocolVersion string
		Capabilities    struct{ Tools json.RawMessage }
		ServerInfo      struct{ Name string }
	}
	if err := c.Conn().Call(ctx, "initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "test-agent", "version": "1.0.0"}}, &init); err != nil ||
		init.ProtocolVersion != "2025-11-25" || init.Capabilities.Tools == nil || init.ServerInfo.Name != "quickstart" {
		t.Fatalf("initialize: %+v, %v", init, err)
	}
	if err := c.Notify(ctx, "notifications/initialized", nil); err != nil {
		t.Fatal(err)
	}
	list, err := client.Call[struct {
		Tools []struct {
			Name         string
			InputSchema  struct{ Type string }
			OutputSchema *struct{ Type string }
		}
	}](ctx, c, "tools/list", map[string]any{})
	if err != nil || len(list.Tools) != 2 || list.Tools[0].Name != "upper" || list.Tools[1].Name != "count" ||
		list.Tools[0].InputSchema.Type != "object" || list.Tools[1].OutputSchema == nil {
		t.Fatalf("tools/list: %+v, %v", list, err)
	}
	type result struct {
		Content           []struct{ Type, Text string }
		StructuredContent map[string]int
		IsError           bool
	}
	up, err := client.Call[result](ctx, c, "tools/call", map[string]any{"name": "upper", "arguments": map[string]any{"text": "hello, 世界"}})
	if err != nil || len(up.Content) != 1 || up.Content[0].Text != "HELLO, 世界" || up.IsError {
		t.Errorf("tools/call upper: %+v, %v", up, err)
	}
	n, err := client.Call[result](ctx, c, "tools/call", map[string]any{"name": "count", "arguments": map[string]any{"text": "one two three"}})
	if err != nil || n.StructuredContent["words"] != 3 || n.IsError {
		t.Errorf("tools/call count: %+v, %v", n, err)
	}
}

// testLSP: an editor's session with the language server: initialize, a
// document opened and changed, hovers (positions in UTF-16 code units),
// shutdown and exit, with status 0.
func testLSP(t *testing.T, hover string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ch, err := client.Command(exec.Command(hover), framing.Header)
	if err != nil {
		t.Fatal(err)
	}
	c := client.New(ch, client.UseProtocol(lsp.Protocol()))
	var init struct {
		Capabilities struct {
			HoverProvider    bool
			TextDocumentSync int
		}
	}
	if err := c.Conn().Call(ctx, "initialize", map[string]any{"processId": nil, "rootUri": nil,
		"capabilities": map[string]any{"textDocument": map[string]any{"hover": map[string]any{}}}}, &init); err != nil ||
		!init.Capabilities.HoverProvider || init.Capabilities.TextDocumentSync != 1 {
		t.Fatalf("initialize: %+v, %v", init, err)
	}
	notify := func(method string, params any) {
		t.Helper()
		if err := c.Notify(ctx, method, params); err != nil {
			t.Fatal(err)
		}
	}
	notify("initialized", map[string]any{})
	const uri = "file:///notes/doc.txt"
	notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "plaintext",
		"version": 1, "text": "hello world\r\nnaïve café 日本語 x\n𝄞 clef_sign end"}})
	hoverAt := func(line, char int) string {
		t.Helper()
		var h *struct{ Contents struct{ Kind, Value string } }
		if err := c.Conn().Call(ctx, "textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": uri},
			"position": map[string]any{"line": line, "character": char}}, &h); err != nil {
			t.Fatalf("hover at %d:%d: %v", line, char, err)
		}
		if h == nil {
			return ""
		}
		return h.Contents.Value
	}
	for _, tc := range []struct {
		line, char int
		want       string
	}{
		{0, 2, "`hello`"},
		{1, 12, "`日本語`"},      // ï and é are one code unit each
		{2, 3, "`clef_sign`"}, // 𝄞 is two UTF-16 code units
		{0, 5, "`hello`"},     // the end of a word
		{2, 99, "`end`"},      // past the line's end: its length, as LSP says
		{7, 0, ""},            // past the text's end
	} {
		if got := hoverAt(tc.line, tc.char); got != tc.want {
			t.Errorf("hover at %d:%d: %q, want %q", tc.line, tc.char, got, tc.want)
		}
	}
	notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": uri, "version": 2},
		"contentChanges": []any{map[string]any{"text": "goodbye"}}})
	if got := hoverAt(0, 3); got != "`goodbye`" {
		t.Errorf("hover after a change: %q", got)
	}
	if err := c.Conn().Call(ctx, "shutdown", nil, nil); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	notify("exit", nil)
	if err := c.Close(); err != nil {
		t.Errorf("exit after shutdown: %v, want status 0", err)
	}
}

// testEthereum: the API answers over HTTP, and a subscriber over WebSocket
// gets new heads under its subscription's id.
func testEthereum(t *testing.T, eth string) {
	addrs := startServer(t, regexp.MustCompile(`HTTP on (\S+), WebSocket on (\S+)`), eth, "-addr", "127.0.0.1:0")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	hc := client.New(client.HTTP(addrs[0], nil))
	defer hc.Close()
	if n, err := client.Call[string](ctx, hc, "eth_blockNumber", nil); err != nil || !strings.HasPrefix(n, "0x") {
		t.Errorf("eth_blockNumber: %q, %v", n, err)
	}
	if _, err := client.Call[string](ctx, hc, "eth_subscribe", []any{"newHeads"}); err == nil {
		t.Error("eth_subscribe over plain HTTP: no error")
	}

	type head struct {
		Subscription string
		Result       struct{ Number string }
	}
	heads := make(chan head, 16)
	notes := jsonrpc.NewServer()
	notes.MustRegister("eth_subscription", func(h head) {
		select {
		case heads <- h:
		default:
		}
	})
	ch, err := ws.Dial(ctx, addrs[1], nil)
	if err != nil {
		t.Fatal(err)
	}
	c := client.New(ch, client.Serve(notes))
	defer c.Close()
	id, err := client.Call[string](ctx, c, "eth_subscribe", []any{"newHeads"})
	if err != nil || id == "" {
		t.Fatalf("eth_subscribe: %q, %v", id, err)
	}
	if _, err := client.Call[string](ctx, c, "eth_subscribe", []any{"logs"}); jsonrpc.ErrorCode(err) != jsonrpc.CodeInvalidParams {
		t.Errorf("eth_subscribe logs: %v, want -32602", err)
	}
	select {
	case h := <-heads:
		if h.Subscription != id || !strings.HasPrefix(h.Result.Number, "0x") {
			t.Errorf("notification %+v, want the subscription %s and a hex number", h, id)
		}
	case <-ctx.Done():
		t.Fatal("no new head within 30 s")
	}
	if ok, err := client.Call[bool](ctx, c, "eth_unsubscribe", []any{id}); err != nil || !ok {
		t.Errorf("eth_unsubscribe: %v, %v", ok, err)
	}
}
