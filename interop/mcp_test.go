package interop

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestMCPGoSDK drives examples/mcpserver with the official MCP Go SDK's
// client over its CommandTransport: the handshake (the SDK tries
// server/discover first and, answered "Method not found", falls back to
// initialize), ping, tools/list, echo, sleep with a progress token, a
// sleep cancelled through its context, an unknown tool, and the close.
func TestMCPGoSDK(t *testing.T) {
	bin := buildExample(t, "mcpserver")

	var mu sync.Mutex
	progress := map[string][]float64{} // by token
	cl := mcp.NewClient(&mcp.Implementation{Name: "interop-test", Version: "1.0.0"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			defer mu.Unlock()
			tok := fmt.Sprint(req.Params.ProgressToken)
			progress[tok] = append(progress[tok], req.Params.Progress)
		},
	})
	progressOf := func(tok string) []float64 {
		mu.Lock()
		defer mu.Unlock()
		return append([]float64(nil), progress[tok]...)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.Command(bin)
	cmd.Stderr = os.Stderr
	cs, err := cl.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal("connect:", err)
	}
	closed := false
	defer func() {
		if !closed {
			cs.Close()
		}
	}()
	init := cs.InitializeResult()
	if init.ProtocolVersion != "2025-06-18" || init.ServerInfo == nil || init.ServerInfo.Name != "mcpserver" || init.Capabilities == nil || init.Capabilities.Tools == nil {
		t.Errorf("initialize result %+v, want protocol 2025-06-18, server mcpserver with tools", init)
	}

	if err := cs.Ping(ctx, nil); err != nil {
		t.Error("ping:", err)
	}

	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal("tools/list:", err)
	}
	if len(tools.Tools) != 2 || tools.Tools[0].Name != "echo" || tools.Tools[1].Name != "sleep" {
		t.Fatalf("tools/list: %+v, want echo and sleep", tools.Tools)
	}
	for _, tl := range tools.Tools {
		if tl.InputSchema == nil {
			t.Errorf("tool %s has no input schema", tl.Name)
		}
	}

	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hello from the SDK"}})
	if err != nil {
		t.Fatal("echo:", err)
	}
	if text := textOf(res); res.IsError || text != "hello from the SDK" {
		t.Errorf("echo answered %q (isError %v)", text, res.IsError)
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
	deadline := time.Now().Add(2 * time.Second)
	for len(progressOf("sleep-300")) < 2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if got := progressOf("sleep-300"); len(got) < 2 {
		t.Errorf("sleep 300 ms: progress %v, want at least 2 notifications", got)
	}

	// sleep 5000 ms, cancelled through the call's context after 150 ms:
	// the SDK sends notifications/cancelled, and the server stops
	// (its progress stops coming).
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
	if err := cs.Ping(ctx, nil); err != nil {
		t.Error("ping after the cancel:", err)
	}

	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "nope", Arguments: map[string]any{}}); err == nil {
		t.Error("an unknown tool was not refused")
	}

	// Close closes the server's input and waits for its exit.
	closed = true
	if err := cs.Close(); err != nil && !errors.Is(err, context.Canceled) {
		t.Errorf("close: %v", err)
	}
	if cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != 0 {
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
