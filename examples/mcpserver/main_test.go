package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
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
	"github.com/jsonrpc-go/jsonrpc/protocol/mcp"
	"github.com/jsonrpc-go/jsonrpc/protocol/progress"
)

// build builds the command into a temporary directory and returns the
// binary's path.
func build(t *testing.T) string {
	t.Helper()
	return testutil.Build(t, ".", "mcpserver")
}

// start runs the binary as an agent does, newline-delimited, and returns
// the client and its wire.
func start(t *testing.T, bin string) (*client.Client, *tap.Tap) {
	t.Helper()
	cmd := exec.Command(bin)
	cmd.Stderr = os.Stderr
	ch, err := client.Command(cmd, framing.Line)
	if err != nil {
		t.Fatal(err)
	}
	w := tap.New(t, ch)
	return client.New(w.Channel(), client.UseProtocol(mcp.Protocol())), w
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

type toolResult struct {
	Content []struct{ Type, Text string } `json:"content"`
}

// TestAgentSession drives the built server as an agent does: initialize,
// ping, the tools, progress and cancellation; then closing its input makes
// it exit with status 0.
func TestAgentSession(t *testing.T) {
	bin := build(t)
	c, w := start(t, bin)
	defer c.Close()

	// The probe of a client that speaks both eras, without the _meta of
	// 2026-07-28: invalid params; an unknown method: method not found.
	if _, err := client.Call[json.RawMessage](context.Background(), c, "server/discover", map[string]any{}); jsonrpc.ErrorCode(err) != jsonrpc.CodeInvalidParams {
		t.Errorf("server/discover without _meta returned %v, want -32602", err)
	}
	if _, err := client.Call[json.RawMessage](context.Background(), c, "nope/nope", map[string]any{}); !errors.Is(err, jsonrpc.ErrMethodNotFound) {
		t.Errorf("an unknown method before initialize returned %v, want method not found", err)
	}
	// A request before initialize, without the _meta of 2026-07-28.
	if _, err := client.Call[json.RawMessage](context.Background(), c, "tools/list", map[string]any{}); jsonrpc.ErrorCode(err) != jsonrpc.CodeInvalidParams {
		t.Errorf("tools/list before initialize returned %v, want -32602", err)
	}

	init := call[json.RawMessage](t, c, "initialize", map[string]any{
		"protocolVersion": "2025-06-18",
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "test-agent", "version": "1.0.0"},
	})
	const wantInit = `{"protocolVersion":"2025-06-18","capabilities":{"tools":{},"resources":{"subscribe":true},"prompts":{},"logging":{},"completions":{}},"serverInfo":{"name":"mcpserver","version":"1.0.0"}}`
	if string(init) != wantInit {
		t.Errorf("initialize answered %s, want %s", init, wantInit)
	}
	if err := c.Notify(context.Background(), "notifications/initialized", nil); err != nil {
		t.Fatal(err)
	}
	if res := call[json.RawMessage](t, c, "ping", nil); string(res) != "{}" {
		t.Errorf("ping answered %s, want {}", res)
	}

	list := call[struct {
		Tools []struct {
			Name        string
			InputSchema struct {
				Type       string
				Properties map[string]struct{ Type string }
				Required   []string
			}
		}
	}](t, c, "tools/list", map[string]any{})
	// The server's own tools first, then the conformance suite's.
	if len(list.Tools) < 4 || list.Tools[0].Name != "echo" || list.Tools[1].Name != "sleep" || list.Tools[2].Name != "note" || list.Tools[3].Name != "confirm" {
		t.Fatalf("tools/list answered %+v, want echo, sleep, note and confirm first", list)
	}
	for _, tl := range list.Tools[:4] {
		if tl.InputSchema.Type != "object" || len(tl.InputSchema.Required) != 1 || tl.InputSchema.Properties[tl.InputSchema.Required[0]].Type == "" {
			t.Errorf("tool %s: input schema %+v, want an object with one required, typed property", tl.Name, tl.InputSchema)
		}
	}

	echo := call[toolResult](t, c, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"text": "héllo, 世界"}})
	if len(echo.Content) != 1 || echo.Content[0].Type != "text" || echo.Content[0].Text != "héllo, 世界" {
		t.Errorf("echo answered %+v", echo)
	}
	// Under 2025-06-18 arguments that do not fit are a protocol error.
	for _, p := range []map[string]any{
		{"name": "nope", "arguments": map[string]any{}},
		{"name": "echo", "arguments": map[string]any{"txt": "x"}},
		{"name": "sleep", "arguments": map[string]any{"ms": "long"}},
		{"name": "echo", "arguments": []any{"x"}},
		{"arguments": map[string]any{}},
	} {
		if _, err := client.Call[json.RawMessage](context.Background(), c, "tools/call", p); jsonrpc.ErrorCode(err) != jsonrpc.CodeInvalidParams {
			t.Errorf("tools/call %v returned %v, want -32602", p, err)
		}
	}

	// sleep 300 ms with a progress token: progress every 50 ms, rising.
	var mu sync.Mutex
	var reports []float64
	token, stop := progress.Watch(c.Conn(), func(params json.RawMessage) {
		var p mcp.Progress
		json.Unmarshal(params, &p)
		mu.Lock()
		reports = append(reports, p.Progress)
		mu.Unlock()
	})
	slept := call[toolResult](t, c, "tools/call", map[string]any{
		"name": "sleep", "arguments": map[string]any{"ms": 300}, "_meta": map[string]any{"progressToken": token},
	})
	stop()
	if len(slept.Content) != 1 || slept.Content[0].Text != "slept 300 ms" {
		t.Errorf("sleep answered %+v", slept)
	}
	mu.Lock()
	if len(reports) < 2 {
		t.Errorf("sleep 300 ms reported progress %v, want at least 2 notifications", reports)
	}
	for i := 1; i < len(reports); i++ {
		if reports[i] <= reports[i-1] {
			t.Errorf("progress %v does not rise", reports)
			break
		}
	}
	mu.Unlock()

	// sleep 5000 ms, cancelled after 150 ms: the call returns at once, the
	// client sends notifications/cancelled, the server stops reporting
	// progress and sends no answer for that id; a later ping is answered.
	var after int
	var cancelledAt time.Time
	token, stop = progress.Watch(c.Conn(), func(json.RawMessage) {
		mu.Lock()
		if !cancelledAt.IsZero() && time.Since(cancelledAt) > 200*time.Millisecond {
			after++
		}
		mu.Unlock()
	})
	defer stop()
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
	began := time.Now()
	_, err := client.Call[json.RawMessage](ctx, c, "tools/call", map[string]any{
		"name": "sleep", "arguments": map[string]any{"ms": 5000}, "_meta": map[string]any{"progressToken": token},
	})
	mu.Lock()
	cancelledAt = time.Now()
	mu.Unlock()
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(began) > 2*time.Second {
		t.Fatalf("cancelled sleep returned %v after %v, want the context's error at once", err, time.Since(began))
	}
	reqs := w.All(func(m tap.Msg) bool { return m.Out && strings.Contains(string(m.Raw), `"ms":5000`) })
	if len(reqs) != 1 {
		t.Fatalf("%d requests of the cancelled sleep on the wire", len(reqs))
	}
	id := string(tap.Decode(reqs[0]).ID)
	time.Sleep(500 * time.Millisecond) // time for an answer, if one were to come
	if res := call[json.RawMessage](t, c, "ping", nil); string(res) != "{}" {
		t.Errorf("ping after the cancel answered %s", res)
	}
	if cancels := w.All(func(m tap.Msg) bool {
		msg := tap.Decode(m.Raw)
		return m.Out && msg.Method == "notifications/cancelled" && strings.Contains(string(msg.Params), `"requestId":`+id)
	}); len(cancels) != 1 {
		t.Errorf("the client sent %d notifications/cancelled for id %s, want 1", len(cancels), id)
	}
	if answers := w.All(func(m tap.Msg) bool { return !m.Out && string(tap.Decode(m.Raw).ID) == id }); len(answers) > 0 {
		t.Errorf("the cancelled call was answered %s; MCP sends no answer", answers)
	}
	mu.Lock()
	if after > 0 {
		t.Errorf("%d progress notifications came more than 200 ms after the cancel", after)
	}
	mu.Unlock()

	// The end of its input makes the server exit, with status 0.
	if err := c.Close(); err != nil {
		t.Errorf("closing the server's input: %v, want exit status 0", err)
	}
}

// TestVersionNegotiation: initialize answers the version the client asks
// for when it is one of the handshake's that the server speaks
// (2025-11-25, 2025-06-18), and the newest of them, 2025-11-25, for any
// other: older, newer, unknown, or 2026-07-28, which has no initialize.
// An initialize without a version, or with capabilities that are not an
// object, is invalid params, and the server goes on.
func TestVersionNegotiation(t *testing.T) {
	bin := build(t)
	c, _ := start(t, bin)
	defer c.Close()
	for _, tc := range []struct{ ask, want string }{
		{"2025-06-18", "2025-06-18"},
		{"2025-11-25", "2025-11-25"},
		{"2025-03-26", "2025-11-25"},
		{"2024-11-05", "2025-11-25"},
		{"2026-07-28", "2025-11-25"},
		{"2099-01-01", "2025-11-25"},
		{"draft", "2025-11-25"},
	} {
		res := call[struct{ ProtocolVersion string }](t, c, "initialize", map[string]any{
			"protocolVersion": tc.ask, "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "x", "version": "1"},
		})
		if res.ProtocolVersion != tc.want {
			t.Errorf("initialize asking for %s answered %s, want %s", tc.ask, res.ProtocolVersion, tc.want)
		}
	}
	for _, p := range []map[string]any{
		{"capabilities": map[string]any{}},
		{"protocolVersion": "2025-11-25", "capabilities": []any{}},
		{"protocolVersion": "2025-11-25", "capabilities": map[string]any{"elicitation": true}},
	} {
		if _, err := client.Call[json.RawMessage](context.Background(), c, "initialize", p); jsonrpc.ErrorCode(err) != jsonrpc.CodeInvalidParams {
			t.Errorf("initialize %v returned %v, want -32602", p, err)
		}
	}
	if res := call[json.RawMessage](t, c, "ping", nil); string(res) != "{}" {
		t.Errorf("ping after bad initializes answered %s", res)
	}
}

// TestRawCancel writes the lines of a session to the server's input
// itself and reads its output: nothing ever comes for a cancelled call,
// a later ping is answered, and the server, whose call stopped, exits with
// status 0 at once when its input ends.
func TestRawCancel(t *testing.T) {
	bin := build(t)
	cmd := exec.Command(bin)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 64)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	send := func(s string) {
		t.Log("--> " + s)
		if _, err := io.WriteString(in, s+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	next := func() (tap.Message, bool) {
		select {
		case l, ok := <-lines:
			if ok {
				t.Log("<-- " + l)
				got = append(got, l)
			}
			return tap.Decode([]byte(l)), ok
		case <-time.After(5 * time.Second):
			t.Fatal("no line from the server in 5s")
		}
		return tap.Message{}, false
	}

	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if m, _ := next(); string(m.ID) != "1" || m.Result == nil {
		t.Fatalf("initialize answered %s", got)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	began := time.Now()
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":5000},"_meta":{"progressToken":"t2"}}}`)
	// Progress comes, then the cancel.
	if m, _ := next(); m.Method != "notifications/progress" || !strings.Contains(string(m.Params), `"progressToken":"t2"`) {
		t.Fatalf("sleep sent %s, want its progress", got[len(got)-1])
	}
	send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"the user stopped it"}}`)
	time.Sleep(300 * time.Millisecond)
	send(`{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	for {
		m, ok := next()
		if !ok {
			t.Fatal("the output ended before the ping's answer")
		}
		if string(m.ID) == "3" {
			break
		}
	}
	in.Close()
	for {
		if _, ok := next(); !ok {
			break
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("the server's exit: %v, want status 0", err)
	}
	if d := time.Since(began); d > 3*time.Second {
		t.Errorf("the server exited %v after the 5 s sleep began: the cancelled sleep did not stop", d)
	}
	for _, l := range got {
		if string(tap.Decode([]byte(l)).ID) == "2" {
			t.Errorf("the cancelled call was answered: %s", l)
		}
	}
}
