package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/client"
	"github.com/jsonrpc-go/jsonrpc/framing"
	"github.com/jsonrpc-go/jsonrpc/internal/tap"
	"github.com/jsonrpc-go/jsonrpc/internal/testutil"
	"github.com/jsonrpc-go/jsonrpc/protocol/lsp"
	"github.com/jsonrpc-go/jsonrpc/protocol/progress"
)

// build builds the command into a temporary directory and returns the
// binary's path.
func build(t *testing.T) string {
	t.Helper()
	return testutil.Build(t, ".", "langserver")
}

// start runs the binary as an editor does, with LSP's Content-Length
// framing, and returns the client and its wire.
func start(t *testing.T, bin string) (*client.Client, *tap.Tap) {
	t.Helper()
	cmd := exec.Command(bin)
	cmd.Stderr = os.Stderr
	ch, err := client.Command(cmd, framing.Header)
	if err != nil {
		t.Fatal(err)
	}
	w := tap.New(t, ch)
	c := client.New(w.Channel(), client.UseProtocol(lsp.Protocol()))
	return c, w
}

func call[T any](t *testing.T, c *client.Client, method string, params any) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	v, err := client.Call[T](ctx, c, method, params)
	if err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	return v
}

func notify(t *testing.T, c *client.Client, method string, params any) {
	t.Helper()
	if err := c.Notify(context.Background(), method, params); err != nil {
		t.Fatalf("%s: %v", method, err)
	}
}

const docURI = "file:///notes/doc.txt"

// The document: ASCII on the first line, letters of the BMP (two bytes and
// three bytes in UTF-8, one UTF-16 unit each) on the second, a letter
// outside the BMP (a surrogate pair in UTF-16) on the third.
const docText = "hello world\r\nnaïve café 日本語 x\n𝄞 clef_sign end"

type hoverAnswer struct {
	Contents struct {
		Kind  string `json:"kind"`
		Value string `json:"value"`
	} `json:"contents"`
	Range struct {
		Start struct{ Line, Character int } `json:"start"`
		End   struct{ Line, Character int } `json:"end"`
	} `json:"range"`
}

func hoverAt(t *testing.T, c *client.Client, line, char int) *hoverAnswer {
	t.Helper()
	return call[*hoverAnswer](t, c, "textDocument/hover", map[string]any{
		"textDocument": map[string]any{"uri": docURI},
		"position":     map[string]any{"line": line, "character": char},
	})
}

func checkHover(t *testing.T, c *client.Client, line, char int, word string, start, end int) {
	t.Helper()
	h := hoverAt(t, c, line, char)
	if h == nil {
		t.Fatalf("hover at %d:%d: null, want %q", line, char, word)
	}
	if h.Contents.Value != word || h.Range.Start.Line != line || h.Range.Start.Character != start || h.Range.End.Character != end {
		t.Errorf("hover at %d:%d: %q at %d:%d-%d, want %q at %d:%d-%d", line, char,
			h.Contents.Value, h.Range.Start.Line, h.Range.Start.Character, h.Range.End.Character, word, line, start, end)
	}
}

// TestEditorSession drives the built server as an editor does, from
// initialize to exit.
func TestEditorSession(t *testing.T) {
	bin := build(t)
	c, w := start(t, bin)
	defer c.Close()

	// initialize: the capabilities, as sent.
	init := call[json.RawMessage](t, c, "initialize", map[string]any{
		"processId":    os.Getpid(),
		"rootUri":      nil,
		"clientInfo":   map[string]any{"name": "test-editor"},
		"capabilities": map[string]any{"window": map[string]any{"workDoneProgress": true}},
	})
	var got struct {
		Capabilities json.RawMessage `json:"capabilities"`
		ServerInfo   struct{ Name string }
	}
	if err := json.Unmarshal(init, &got); err != nil {
		t.Fatal(err)
	}
	const wantCaps = `{"textDocumentSync":{"openClose":true,"change":1},"hoverProvider":true,"workspaceSymbolProvider":true,"executeCommandProvider":{"commands":["wait"]}}`
	if string(got.Capabilities) != wantCaps || got.ServerInfo.Name != "langserver" {
		t.Errorf("initialize answered %s, want capabilities %s and serverInfo langserver", init, wantCaps)
	}
	notify(t, c, "initialized", map[string]any{})

	notify(t, c, "textDocument/didOpen", map[string]any{
		"textDocument": map[string]any{"uri": docURI, "languageId": "plaintext", "version": 1, "text": docText},
	})
	checkHover(t, c, 0, 7, "world", 6, 11)
	checkSymbols(t, c)
	checkHover(t, c, 0, 10, "world", 6, 11)
	checkHover(t, c, 1, 2, "naïve", 0, 5)
	checkHover(t, c, 1, 9, "café", 6, 10)
	checkHover(t, c, 1, 12, "日本語", 11, 14)
	checkHover(t, c, 1, 15, "x", 15, 16)
	checkHover(t, c, 2, 3, "clef_sign", 3, 12) // after 𝄞, two UTF-16 units
	checkHover(t, c, 2, 13, "end", 13, 16)
	for _, p := range [][2]int{{0, 5}, {0, 11}, {1, 5}, {2, 0}, {2, 1}, {2, 16}, {3, 0}} {
		if h := hoverAt(t, c, p[0], p[1]); h != nil {
			t.Errorf("hover at %d:%d: %q, want null", p[0], p[1], h.Contents.Value)
		}
	}

	// didChange, full sync: the hover reads the new text.
	notify(t, c, "textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": docURI, "version": 2},
		"contentChanges": []any{map[string]any{"text": "goodbye moon"}},
	})
	checkHover(t, c, 0, 9, "moon", 8, 12)

	// executeCommand wait 300 ms with a workDoneToken: begin, reports, end.
	var mu sync.Mutex
	var kinds []string
	token, stop := progress.Watch(c.Conn(), func(params json.RawMessage) {
		var p struct {
			Value struct{ Kind string } `json:"value"`
		}
		json.Unmarshal(params, &p)
		mu.Lock()
		kinds = append(kinds, p.Value.Kind)
		mu.Unlock()
	})
	res := call[json.RawMessage](t, c, "workspace/executeCommand", map[string]any{
		"command": "wait", "arguments": []any{300}, "workDoneToken": token,
	})
	stop()
	if string(res) != `{"waited":300}` {
		t.Errorf("wait 300 answered %s", res)
	}
	mu.Lock()
	reports := strings.Count(strings.Join(kinds, " "), "report")
	if len(kinds) < 2 || kinds[0] != "begin" || kinds[len(kinds)-1] != "end" || reports < 2 {
		t.Errorf("progress kinds %v, want begin, at least 2 reports, end", kinds)
	}
	mu.Unlock()

	// executeCommand wait 5000 ms, cancelled after 150 ms: the call
	// returns at once, the client sends $/cancelRequest, and the server
	// stops (its progress ends "cancelled") and answers -32800.
	ended := make(chan string, 1)
	token, stop = progress.Watch(c.Conn(), func(params json.RawMessage) {
		var p struct {
			Value struct{ Kind, Message string } `json:"value"`
		}
		json.Unmarshal(params, &p)
		if p.Value.Kind == "end" {
			ended <- p.Value.Message
		}
	})
	defer stop()
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
	began := time.Now()
	_, err := client.Call[json.RawMessage](ctx, c, "workspace/executeCommand", map[string]any{
		"command": "wait", "arguments": []any{5000}, "workDoneToken": token,
	})
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(began) > 2*time.Second {
		t.Fatalf("cancelled wait returned %v after %v, want the context's error at once", err, time.Since(began))
	}
	req, ok := w.Find(time.Second, func(m tap.Msg) bool {
		return m.Out && strings.Contains(string(m.Raw), `"arguments":[5000]`)
	})
	if !ok {
		t.Fatal("the request of the cancelled wait is not on the wire")
	}
	id := string(tap.Decode(req).ID)
	if _, ok := w.Find(2*time.Second, func(m tap.Msg) bool {
		msg := tap.Decode(m.Raw)
		return m.Out && msg.Method == "$/cancelRequest" && strings.Contains(string(msg.Params), `"id":`+id)
	}); !ok {
		t.Error("the client sent no $/cancelRequest for id", id)
	}
	answer, ok := w.Find(2*time.Second, func(m tap.Msg) bool { return !m.Out && string(tap.Decode(m.Raw).ID) == id })
	if !ok {
		t.Fatal("no answer to the cancelled wait within 2s of its cancel")
	}
	if e := tap.Decode(answer).Error; e == nil || e.Code != jsonrpc.CodeCancelled {
		t.Errorf("the cancelled wait was answered %s, want error -32800", answer)
	}
	select {
	case msg := <-ended:
		if msg != "cancelled" {
			t.Errorf("the cancelled wait's progress ended %q, want \"cancelled\"", msg)
		}
	case <-time.After(2 * time.Second):
		t.Error("the cancelled wait's progress did not end")
	}
	if time.Since(began) > 3*time.Second {
		t.Errorf("the cancelled wait ran %v", time.Since(began))
	}

	// shutdown, exit: the process exits by itself, with status 0.
	if res := call[json.RawMessage](t, c, "shutdown", nil); string(res) != "null" {
		t.Errorf("shutdown answered %s, want null", res)
	}
	if _, err := client.Call[json.RawMessage](context.Background(), c, "textDocument/hover", map[string]any{
		"textDocument": map[string]any{"uri": docURI}, "position": map[string]any{"line": 0, "character": 0},
	}); jsonrpc.ErrorCode(err) != jsonrpc.CodeInvalidRequest {
		t.Errorf("a request after shutdown returned %v, want InvalidRequest", err)
	}
	notify(t, c, "exit", nil)
	select {
	case <-w.EOF():
	case <-time.After(5 * time.Second):
		t.Fatal("the server did not exit within 5s of exit")
	}
	if err := c.Close(); err != nil {
		t.Errorf("exit after shutdown: %v, want exit status 0", err)
	}
}

// TestExitWithoutShutdown checks LSP's exit status 1 for an exit without
// shutdown, and the answer to a request before initialize.
func TestExitWithoutShutdown(t *testing.T) {
	bin := build(t)
	c, w := start(t, bin)
	defer c.Close()

	_, err := client.Call[json.RawMessage](context.Background(), c, "textDocument/hover", map[string]any{})
	if jsonrpc.ErrorCode(err) != codeServerNotInitialized {
		t.Errorf("hover before initialize returned %v, want -32002", err)
	}
	call[json.RawMessage](t, c, "initialize", map[string]any{"capabilities": map[string]any{}})
	if _, err := client.Call[json.RawMessage](context.Background(), c, "textDocument/definition", map[string]any{}); !errors.Is(err, jsonrpc.ErrMethodNotFound) {
		t.Errorf("an unknown method returned %v, want method not found", err)
	}
	notify(t, c, "exit", nil)
	select {
	case <-w.EOF():
	case <-time.After(5 * time.Second):
		t.Fatal("the server did not exit within 5s of exit")
	}
	var exit *exec.ExitError
	if err := c.Close(); !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Errorf("exit without shutdown: %v, want exit status 1", err)
	}
}

func TestWordAt(t *testing.T) {
	for _, tt := range []struct {
		line       string
		char       int
		word       string
		start, end int
	}{
		{"abc def", 0, "abc", 0, 3},
		{"abc def", 2, "abc", 0, 3},
		{"abc def", 3, "", 0, 0},
		{"abc def", 4, "def", 4, 7},
		{"abc def", 7, "", 0, 0},
		{"été x", 2, "été", 0, 3},
		{"€uro", 0, "", 0, 0},
		{"€uro", 1, "uro", 1, 4},
		{"😀 a😀b", 1, "", 0, 0},
		{"😀 a😀b", 3, "a", 3, 4},
		{"😀 a😀b", 6, "b", 6, 7},
		{"𝒳y z", 0, "𝒳y", 0, 3}, // a letter outside the BMP
		{"𝒳y z", 1, "𝒳y", 0, 3},
		{"𝒳y z", 2, "𝒳y", 0, 3},
	} {
		word, start, end, ok := wordAt(tt.line, 0, tt.char)
		if word != tt.word || ok != (tt.word != "") || ok && (start != tt.start || end != tt.end) {
			t.Errorf("wordAt(%q, 0, %d) = %q, %d, %d, %v; want %q, %d, %d", tt.line, tt.char, word, start, end, ok, tt.word, tt.start, tt.end)
		}
	}
}

// checkSymbols: workspace/symbol yields the words of the document that
// hold the query, with their UTF-16 ranges, read by client.CallSeq (which
// under LSP sends a partialResultToken of its own), and as partial
// results on the test's token: $/progress batches, then the empty
// answer.
func checkSymbols(t *testing.T, c *client.Client) {
	t.Helper()
	type symbol struct {
		Name     string
		Kind     int
		Location struct {
			URI   string
			Range struct{ Start, End struct{ Line, Character int } }
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var got []string
	for s, err := range client.CallSeq[symbol](ctx, c, "workspace/symbol", map[string]any{"query": "E"}) {
		if err != nil {
			t.Fatal(err)
		}
		r := s.Location.Range
		got = append(got, fmt.Sprintf("%s@%d:%d-%d", s.Name, r.Start.Line, r.Start.Character, r.End.Character))
		if s.Kind != 13 || s.Location.URI != docURI {
			t.Errorf("symbol %+v", s)
		}
	}
	if want := "hello@0:0-5 naïve@1:0-5 clef_sign@2:3-12 end@2:13-16"; strings.Join(got, " ") != want {
		t.Errorf("workspace/symbol E: %s, want %s", strings.Join(got, " "), want)
	}

	var mu sync.Mutex
	var partial []json.RawMessage
	token, stop := progress.Watch(c.Conn(), func(params json.RawMessage) {
		var p struct{ Value []json.RawMessage }
		json.Unmarshal(params, &p)
		mu.Lock()
		partial = append(partial, p.Value...)
		mu.Unlock()
	})
	defer stop()
	final := call[json.RawMessage](t, c, "workspace/symbol", map[string]any{"query": "", "partialResultToken": token})
	mu.Lock()
	n := len(partial)
	mu.Unlock()
	if string(final) != "[]" || n != 8 {
		t.Errorf("workspace/symbol with a partialResultToken: %d partial results and %s, want the 8 words then []", n, final)
	}
}
