package interop

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jsonrpc-go/jsonrpc/internal/testutil"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// wire is what the SDK's LoggingTransport writes: the exchange, one
// "write: " or "read: " line per message. It is safe for concurrent use.
type wire struct{ testutil.Buffer }

// lines returns the lines of the exchange that start with prefix and hold
// each of parts.
func (w *wire) lines(prefix string, parts ...string) []string {
	var out []string
	for _, l := range strings.Split(w.String(), "\n") {
		if !strings.HasPrefix(l, prefix) {
			continue
		}
		ok := true
		for _, p := range parts {
			ok = ok && strings.Contains(l, p)
		}
		if ok {
			out = append(out, l)
		}
	}
	return out
}

// TestMCPGoSDK drives examples/mcpserver with the official MCP Go SDK's
// client over its CommandTransport, once for each version both speak:
// 2026-07-28 (the SDK's default: it probes with server/discover, carrying
// the version in _meta, and stays stateless), 2025-11-25 and 2025-06-18
// (the initialize handshake). Each run: the version agreed, ping (before
// 2026-07-28, which has none), tools/list, echo, arguments that do not fit
// (a protocol error under 2025-06-18, a tool error after), sleep with a
// progress token, a sleep cancelled through its context, confirm answered
// by the SDK's elicitation handler (through the input-required round trip
// under 2026-07-28, through an elicitation/create request before), a
// subscription to note://current told of the change the tool note makes
// (subscriptions/listen under 2026-07-28, resources/subscribe before),
// resources/read, an unknown tool, and the close, after which the server
// exits with status 0.
//
// The same runs go over Streamable HTTP too, to the example's -http, with
// the SDK's StreamableClientTransport: a session (Mcp-Session-Id, its GET
// stream) before 2026-07-28, a POST of its own for each request at
// 2026-07-28; there the server does not exit at the close.
func TestMCPGoSDK(t *testing.T) {
	bin := buildExample(t, "mcpserver")
	url := serveHTTP(t, bin)
	for _, version := range []string{"2026-07-28", "2025-11-25", "2025-06-18"} {
		t.Run(version, func(t *testing.T) { goSDKSession(t, bin, version, "") })
		t.Run("http/"+version, func(t *testing.T) { goSDKSession(t, bin, version, url) })
	}
}

// goSDKSession runs the session of TestMCPGoSDK with the server bin over
// stdio, or over Streamable HTTP at url when it is not "".
func goSDKSession(t *testing.T, bin, version, url string) {
	modern := version >= "2026-07-28"
	var mu sync.Mutex
	progress := map[string][]float64{} // by token
	var elicited []string
	updated := make(chan string, 16)
	cl := mcp.NewClient(&mcp.Implementation{Name: "interop-test", Version: "1.0.0"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			defer mu.Unlock()
			tok := fmt.Sprint(req.Params.ProgressToken)
			progress[tok] = append(progress[tok], req.Params.Progress)
		},
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			mu.Lock()
			elicited = append(elicited, req.Params.Message)
			mu.Unlock()
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirmed": true}}, nil
		},
		ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
			updated <- req.Params.URI
		},
	})
	progressOf := func(tok string) []float64 {
		mu.Lock()
		defer mu.Unlock()
		return append([]float64(nil), progress[tok]...)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.Command(bin)
	cmd.Stderr = os.Stderr
	var tr mcp.Transport = &mcp.CommandTransport{Command: cmd}
	if url != "" {
		tr = &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1}
	}
	w := &wire{}
	cs, err := cl.Connect(ctx, &mcp.LoggingTransport{Transport: tr, Writer: w}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal("connect:", err)
	}
	closed := false
	defer func() {
		if !closed {
			cs.Close()
		}
		if t.Failed() {
			t.Logf("the exchange:\n%s", w.String())
		}
	}()
	init := cs.InitializeResult()
	if init.ProtocolVersion != version || init.ServerInfo == nil || init.ServerInfo.Name != "mcpserver" || init.Capabilities == nil || init.Capabilities.Tools == nil {
		t.Errorf("the session: %+v, want protocol %s, server mcpserver with tools", init, version)
	}
	discover := w.lines("write: ", `"method":"server/discover"`, `"io.modelcontextprotocol/protocolVersion":"2026-07-28"`)
	initialize := w.lines("write: ", `"method":"initialize"`)
	if modern && (len(discover) != 1 || len(initialize) != 0) || !modern && len(initialize) != 1 {
		t.Errorf("%d server/discover and %d initialize sent", len(discover), len(initialize))
	}

	if !modern {
		if err := cs.Ping(ctx, nil); err != nil {
			t.Error("ping:", err)
		}
	}

	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal("tools/list:", err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
		if tl.InputSchema == nil {
			t.Errorf("tool %s has no input schema", tl.Name)
		}
	}
	if !strings.HasPrefix(strings.Join(names, " "), "echo sleep note confirm ") {
		t.Fatalf("tools/list: %v, want echo, sleep, note and confirm first", names)
	}

	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hello from the SDK"}})
	if err != nil {
		t.Fatal("echo:", err)
	}
	if text := textOf(res); res.IsError || text != "hello from the SDK" {
		t.Errorf("echo answered %q (isError %v)", text, res.IsError)
	}
	if modern && len(w.lines("read: ", `"resultType":"complete"`, `"hello from the SDK"`, `"io.modelcontextprotocol/serverInfo"`)) != 1 {
		t.Error("the echo's result on the wire has no resultType or serverInfo")
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"txt": "x"}})
	if version == "2025-06-18" {
		if err == nil {
			t.Error("echo with arguments that do not fit: no error, want -32602 under 2025-06-18")
		}
	} else if err != nil || !res.IsError {
		t.Errorf("echo with arguments that do not fit: %v, %+v; want a tool execution error", err, res)
	}

	// sleep 300 ms with a progress token: the SDK's handler sees it.
	p := &mcp.CallToolParams{Name: "sleep", Arguments: map[string]any{"ms": 300}}
	p.SetProgressToken("sleep-300")
	res, err = cs.CallTool(ctx, p)
	if err != nil {
		t.Fatal("sleep:", err)
	}
	if text := textOf(res); text != "slept 300 ms" {
		t.Errorf("sleep answered %q", text)
	}
	// Notifications and the answer travel on one stream, but the SDK may
	// hand them to the handler after the call returns.
	deadline := time.Now().Add(30 * time.Second)
	for len(progressOf("sleep-300")) < 2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if got := progressOf("sleep-300"); len(got) < 2 {
		t.Errorf("sleep 300 ms: progress %v, want at least 2 notifications", got)
	}

	// sleep 5000 ms, cancelled through the call's context after 150 ms:
	// the SDK sends notifications/cancelled, and the server stops (its
	// progress stops coming) and sends no answer.
	p = &mcp.CallToolParams{Name: "sleep", Arguments: map[string]any{"ms": 5000}}
	p.SetProgressToken("sleep-5000")
	cctx, ccancel := context.WithTimeout(ctx, 150*time.Millisecond)
	began := time.Now()
	_, err = cs.CallTool(cctx, p)
	ccancel()
	if err == nil || time.Since(began) > 2*time.Second {
		t.Fatalf("cancelled sleep returned %v after %v, want an error at once", err, time.Since(began))
	}
	time.Sleep(300 * time.Millisecond)
	n := len(progressOf("sleep-5000"))
	time.Sleep(300 * time.Millisecond)
	if got := progressOf("sleep-5000"); len(got) != n || n == 0 {
		t.Errorf("cancelled sleep: %d progress notifications 300 ms after the cancel, %d 300 ms later; want some, then none", n, len(got))
	}
	if cancels := len(w.lines("write: ", `"method":"notifications/cancelled"`)); cancels != 1 && !(modern && url != "") {
		t.Errorf("the SDK sent %d notifications/cancelled, want 1", cancels)
	}

	// confirm: the SDK's elicitation handler answers for the user.
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "confirm", Arguments: map[string]any{"action": "delete the draft"}})
	if err != nil {
		t.Fatal("confirm:", err)
	}
	mu.Lock()
	asked := strings.Join(elicited, "|")
	mu.Unlock()
	if text := textOf(res); res.IsError || text != "confirmed: delete the draft" || asked != "Confirm: delete the draft" {
		t.Errorf("confirm answered %q (isError %v), the handler was asked %q", text, res.IsError, asked)
	}
	inputRequired := w.lines("read: ", `"resultType":"input_required"`, `"elicitation/create"`, `"requestState"`)
	retried := w.lines("write: ", `"inputResponses"`, `"requestState"`, `"confirmed":true`)
	requested := w.lines("read: ", `,"method":"elicitation/create"`) // a request, not a result that holds one ({"method":...)
	if modern && (len(inputRequired) != 1 || len(retried) != 1 || len(requested) != 0) || !modern && (len(requested) != 1 || len(inputRequired) != 0) {
		t.Errorf("confirm: %d input-required results, %d retries, %d elicitation requests to the client", len(inputRequired), len(retried), len(requested))
	}

	// A subscription to the note, and a change.
	if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "note://current"}); err != nil {
		t.Fatal("subscribe:", err)
	}
	if modern {
		// The SDK's Subscribe does not wait for the acknowledgment.
		deadline := time.Now().Add(30 * time.Second)
		for len(w.lines("read: ", `"notifications/subscriptions/acknowledged"`)) == 0 && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "note", Arguments: map[string]any{"text": "from the SDK"}}); err != nil {
		t.Fatal("note:", err)
	}
	select {
	case uri := <-updated:
		if uri != "note://current" {
			t.Errorf("updated %s", uri)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no notifications/resources/updated after the note changed")
	}
	if modern && len(w.lines("read: ", `"notifications/resources/updated"`, `"io.modelcontextprotocol/subscriptionId"`)) != 1 {
		t.Error("the update on the wire has no subscription id")
	}
	read, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "note://current"})
	if err != nil || len(read.Contents) != 1 || read.Contents[0].Text != "from the SDK" {
		t.Errorf("resources/read: %v, %+v", err, read)
	}

	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "nope", Arguments: map[string]any{}}); err == nil {
		t.Error("an unknown tool was not refused")
	}
	if modern {
		for _, l := range w.lines("read: ", `"result":`) {
			if !strings.Contains(l, `"resultType":`) {
				t.Errorf("a result without resultType: %s", l)
			}
		}
	}

	// Close closes the server's input and waits for its exit.
	closed = true
	if err := cs.Close(); err != nil && !errors.Is(err, context.Canceled) {
		t.Errorf("close: %v", err)
	}
	if url == "" && (cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != 0) {
		t.Errorf("the server's exit: %v, want status 0", cmd.ProcessState)
	}
}

// textOf returns the text of a tool result's single text content, or "".
func textOf(res *mcp.CallToolResult) string {
	if len(res.Content) != 1 {
		return ""
	}
	if tc, ok := res.Content[0].(*mcp.TextContent); ok {
		return tc.Text
	}
	return ""
}
