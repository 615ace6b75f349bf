package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/client"
	"github.com/jsonrpc-go/jsonrpc/framing"
	"github.com/jsonrpc-go/jsonrpc/internal/tap"
	"github.com/jsonrpc-go/jsonrpc/internal/testutil"
	"github.com/jsonrpc-go/jsonrpc/protocol/acp"
)

// An editor is the client side of a test: the methods ACP's client
// answers, and what the agent sent them.
type editor struct {
	c *client.Client
	w *tap.Tap

	// permit answers session/request_permission: "allow", "reject", or
	// "" to wait until the request is cancelled.
	permit string
	// files are the texts fs/read_text_file answers, by path.
	files map[string]string

	mu        sync.Mutex // protects the fields below
	updates   []json.RawMessage
	asked     []json.RawMessage // the params of each permission request
	read      []string          // the paths read
	cancelled int               // permission requests whose context ended
	updated   chan struct{}     // a value for each update
}

// newEditor starts the agent, in this process or as the built binary bin,
// and connects an editor to it over a pipe or the command's stdin and
// stdout, one message per line.
func newEditor(t *testing.T, bin string, permit string, files map[string]string) *editor {
	t.Helper()
	e := &editor{permit: permit, files: files, updated: make(chan struct{}, 1024)}
	srv := jsonrpc.NewServer(jsonrpc.AllowUnknownFields())
	srv.MustRegister(acp.MethodSessionUpdate, func(p struct {
		SessionID string          `json:"sessionId"`
		Update    json.RawMessage `json:"update"`
	}) {
		raw, _ := json.Marshal(p)
		e.mu.Lock()
		e.updates = append(e.updates, raw)
		e.mu.Unlock()
		e.updated <- struct{}{}
	})
	srv.MustRegister(acp.MethodRequestPermission, func(ctx context.Context, p struct {
		SessionID string          `json:"sessionId"`
		ToolCall  json.RawMessage `json:"toolCall"`
		Options   json.RawMessage `json:"options"`
	}) (map[string]any, error) {
		raw, _ := json.Marshal(p)
		e.mu.Lock()
		e.asked = append(e.asked, raw)
		e.mu.Unlock()
		if e.permit == "" {
			<-ctx.Done()
			e.mu.Lock()
			e.cancelled++
			e.mu.Unlock()
			return map[string]any{"outcome": map[string]string{"outcome": "cancelled"}}, nil
		}
		return map[string]any{"outcome": map[string]string{"outcome": "selected", "optionId": e.permit}}, nil
	}, jsonrpc.Blocking())
	srv.MustRegister(acp.MethodReadTextFile, func(p struct {
		SessionID string `json:"sessionId"`
		Path      string `json:"path"`
	}) (map[string]string, error) {
		e.mu.Lock()
		e.read = append(e.read, p.Path)
		e.mu.Unlock()
		text, ok := e.files[p.Path]
		if !ok {
			return nil, jsonrpc.NewError(acp.CodeResourceNotFound, "no such file")
		}
		return map[string]string{"content": text}, nil
	})

	var ch client.Channel
	if bin == "" {
		ce, ae := net.Pipe()
		done := make(chan int, 1)
		go func() { done <- run(ae, ae, os.Stderr) }()
		t.Cleanup(func() {
			ce.Close()
			select {
			case code := <-done:
				if code != 0 {
					t.Errorf("run returned %d", code)
				}
			case <-time.After(10 * time.Second):
				t.Error("run did not return when its input ended")
			}
		})
		ch = client.Stream(ce, framing.Line)
	} else {
		cmd := exec.Command(bin)
		cmd.Stderr = os.Stderr
		var err error
		if ch, err = client.Command(cmd, framing.Line); err != nil {
			t.Fatal(err)
		}
	}
	e.w = tap.New(t, ch)
	e.c = client.New(e.w.Channel(), client.UseProtocol(acp.Protocol()), client.Serve(srv))
	t.Cleanup(func() { e.c.Close() })
	return e
}

func call[T any](t *testing.T, e *editor, method string, params any) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	v, err := client.Call[T](ctx, e.c, method, params)
	if err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	return v
}

// begin initializes the agent, as a client that can read files or not,
// and opens a session in dir.
func (e *editor) begin(t *testing.T, canRead bool, dir string) string {
	t.Helper()
	init := call[struct {
		ProtocolVersion int `json:"protocolVersion"`
		AgentInfo       struct{ Name string }
		AuthMethods     []any `json:"authMethods"`
	}](t, e, acp.MethodInitialize, map[string]any{
		"protocolVersion":    1,
		"clientCapabilities": map[string]any{"fs": map[string]bool{"readTextFile": canRead, "writeTextFile": false}, "terminal": false},
		"clientInfo":         map[string]string{"name": "test-editor", "version": "1"},
		"_meta":              map[string]any{"trace": true},
	})
	if init.ProtocolVersion != 1 || init.AgentInfo.Name != "acpagent" || init.AuthMethods == nil {
		t.Fatalf("initialize: %+v", init)
	}
	s := call[struct {
		SessionID string `json:"sessionId"`
	}](t, e, acp.MethodSessionNew, map[string]any{"cwd": dir, "mcpServers": []any{}})
	if !strings.HasPrefix(s.SessionID, "sess_") {
		t.Fatalf("session/new: %q", s.SessionID)
	}
	return s.SessionID
}

func prompt(session, text string) map[string]any {
	return map[string]any{"sessionId": session, "prompt": []map[string]string{{"type": "text", "text": text}}}
}

// update is one session/update, as the tests look at it.
type update struct {
	SessionID string `json:"sessionId"`
	Update    struct {
		SessionUpdate string `json:"sessionUpdate"`
		Content       json.RawMessage
		ToolCallID    string `json:"toolCallId"`
		Kind, Status  string
		Title         string
		Locations     []struct{ Path string }
	} `json:"update"`
}

func (e *editor) seen() []update {
	e.mu.Lock()
	defer e.mu.Unlock()
	us := make([]update, len(e.updates))
	for i, raw := range e.updates {
		json.Unmarshal(raw, &us[i])
	}
	return us
}

// kinds returns the kind of each update (its status, for a tool call's).
func kinds(us []update) []string {
	var ks []string
	for _, u := range us {
		k := u.Update.SessionUpdate
		if u.Update.Status != "" {
			k += ":" + u.Update.Status
		}
		ks = append(ks, k)
	}
	return ks
}

// TestReadTurn: a prompt turn that reads a file through the client: the
// tool call announced, permission asked and given, the file read, the
// tool call completed with its text, a message saying what it holds, and
// stopReason end_turn after every update, in this process and as the
// built command over its stdin and stdout.
func TestReadTurn(t *testing.T) {
	for _, mode := range []string{"in-process", "command"} {
		t.Run(mode, func(t *testing.T) {
			bin := ""
			if mode == "command" {
				bin = testutil.Build(t, ".", "acpagent")
			}
			dir := t.TempDir()
			path := filepath.Join(dir, "notes.txt")
			e := newEditor(t, bin, "allow", map[string]string{path: "first line\nsecond line\n"})
			sid := e.begin(t, true, dir)

			got := call[struct {
				StopReason string `json:"stopReason"`
			}](t, e, acp.MethodSessionPrompt, prompt(sid, "read notes.txt"))
			if got.StopReason != "end_turn" {
				t.Errorf("stopReason %q, want end_turn", got.StopReason)
			}
			us := e.seen()
			want := []string{"agent_message_chunk", "tool_call:pending", "tool_call_update:in_progress", "tool_call_update:completed", "agent_message_chunk"}
			if strings.Join(kinds(us), " ") != strings.Join(want, " ") {
				t.Fatalf("updates %v, want %v", kinds(us), want)
			}
			for _, u := range us {
				if u.SessionID != sid {
					t.Errorf("an update of session %q, want %q", u.SessionID, sid)
				}
			}
			if tc := us[1].Update; tc.Kind != "read" || tc.ToolCallID == "" || len(tc.Locations) != 1 || tc.Locations[0].Path != path {
				t.Errorf("tool_call: %+v", tc)
			}
			if !strings.Contains(string(us[3].Update.Content), `"text":"first line\nsecond line\n"`) {
				t.Errorf("completed tool call: content %s, want the file's text", us[3].Update.Content)
			}
			if !strings.Contains(string(us[4].Update.Content), "has 2 lines (23 bytes)") {
				t.Errorf("last message: %s", us[4].Update.Content)
			}
			e.mu.Lock()
			asked, read := e.asked, e.read
			e.mu.Unlock()
			if len(read) != 1 || read[0] != path {
				t.Errorf("read %v, want [%s]", read, path)
			}
			var perm struct {
				SessionID string `json:"sessionId"`
				ToolCall  struct{ ToolCallID string }
				Options   []struct{ OptionID, Kind string }
			}
			if len(asked) != 1 || json.Unmarshal(asked[0], &perm) != nil || perm.SessionID != sid || perm.ToolCall.ToolCallID != us[1].Update.ToolCallID ||
				len(perm.Options) != 2 || perm.Options[0].Kind != "allow_once" || perm.Options[1].Kind != "reject_once" {
				t.Errorf("permission asked: %s", asked)
			}

			// On the wire, every update of the turn comes before its answer.
			var last, answer int
			for i, raw := range e.w.All(func(m tap.Msg) bool { return !m.Out }) {
				switch m := tap.Decode(raw); {
				case m.Method == acp.MethodSessionUpdate:
					last = i
				case m.Method == "" && m.Result != nil && bytes.Contains(m.Result, []byte("stopReason")):
					answer = i
				}
			}
			if answer < last {
				t.Errorf("the answer came before the last update")
			}
		})
	}
}

// TestReadRefused: a rejected permission, and a client that cannot read
// files, fail the tool call, read nothing and end the turn.
func TestReadRefused(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name    string
		canRead bool
		permit  string
		asked   int
	}{{"rejected", true, "reject", 1}, {"no fs capability", false, "allow", 0}} {
		t.Run(c.name, func(t *testing.T) {
			e := newEditor(t, "", c.permit, map[string]string{filepath.Join(dir, "a"): "x"})
			sid := e.begin(t, c.canRead, dir)
			got := call[struct{ StopReason string }](t, e, acp.MethodSessionPrompt, prompt(sid, "read a"))
			if got.StopReason != "end_turn" {
				t.Errorf("stopReason %q", got.StopReason)
			}
			want := "agent_message_chunk tool_call:pending tool_call_update:failed agent_message_chunk"
			if ks := strings.Join(kinds(e.seen()), " "); ks != want {
				t.Errorf("updates %s, want %s", ks, want)
			}
			e.mu.Lock()
			defer e.mu.Unlock()
			if len(e.read) != 0 || len(e.asked) != c.asked {
				t.Errorf("read %v, asked %d times, want nothing read, asked %d", e.read, len(e.asked), c.asked)
			}
		})
	}
}

// waitUpdates waits for n updates more.
func (e *editor) waitUpdates(t *testing.T, n int) {
	t.Helper()
	for range n {
		select {
		case <-e.updated:
		case <-time.After(10 * time.Second):
			t.Fatal("no update within 10 s")
		}
	}
}

// TestSessionCancel: session/cancel ends a turn with stopReason
// "cancelled", not an error: a turn that streams, and a turn waiting for
// the user's permission, whose request the agent cancels on the client
// ($/cancel_request).
func TestSessionCancel(t *testing.T) {
	dir := t.TempDir()
	for _, text := range []string{"wait", "read a"} {
		t.Run(text, func(t *testing.T) {
			e := newEditor(t, "", "", map[string]string{filepath.Join(dir, "a"): "x"})
			sid := e.begin(t, true, dir)
			type answer struct {
				StopReason string `json:"stopReason"`
			}
			done := make(chan answer, 1)
			go func() { done <- call[answer](t, e, acp.MethodSessionPrompt, prompt(sid, text)) }()
			e.waitUpdates(t, 2) // a message and a tick, or a message and the tool call
			if text == "read a" {
				if _, ok := e.w.Find(5*time.Second, func(m tap.Msg) bool { return !m.Out && tap.Decode(m.Raw).Method == acp.MethodRequestPermission }); !ok {
					t.Fatal("no permission asked")
				}
			}
			if err := e.c.Notify(context.Background(), acp.MethodSessionCancel, map[string]string{"sessionId": sid}); err != nil {
				t.Fatal(err)
			}
			select {
			case got := <-done:
				if got.StopReason != "cancelled" {
					t.Errorf("stopReason %q, want cancelled", got.StopReason)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("the turn did not end within 5 s of session/cancel")
			}
			if text == "read a" {
				// The agent cancels its permission request, which the
				// editor's side answers with RequestCancelled.
				if _, ok := e.w.Find(5*time.Second, func(m tap.Msg) bool { return !m.Out && tap.Decode(m.Raw).Method == acp.MethodCancelRequest }); !ok {
					t.Error("the agent did not cancel its permission request")
				}
				if _, ok := e.w.Find(5*time.Second, func(m tap.Msg) bool {
					d := tap.Decode(m.Raw)
					return m.Out && d.Error != nil && d.Error.Code == -32800
				}); !ok {
					t.Error("the permission request was not answered RequestCancelled")
				}
				e.mu.Lock()
				read, cancelled := e.read, e.cancelled
				e.mu.Unlock()
				if len(read) != 0 || cancelled != 1 {
					t.Errorf("read %v, %d permission requests cancelled; want nothing read, 1", read, cancelled)
				}
			}
			// The session takes a new turn.
			if got := call[answer](t, e, acp.MethodSessionPrompt, prompt(sid, "hello")); got.StopReason != "end_turn" {
				t.Errorf("the next turn: %q", got.StopReason)
			}
		})
	}
}

// TestCancelRequest: $/cancel_request of a pending prompt is answered with
// RequestCancelled (-32800) within 100 ms, and the session takes a new
// turn.
func TestCancelRequest(t *testing.T) {
	e := newEditor(t, "", "allow", nil)
	sid := e.begin(t, true, t.TempDir())
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := e.c.CallRaw(ctx, acp.MethodSessionPrompt, prompt(sid, "wait"))
		errc <- err
	}()
	e.waitUpdates(t, 2)
	start := time.Now()
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("the call: %v", err)
	}
	sent, ok := e.w.Find(5*time.Second, func(m tap.Msg) bool { return m.Out && tap.Decode(m.Raw).Method == acp.MethodCancelRequest })
	if !ok {
		t.Fatal("no $/cancel_request sent")
	}
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	json.Unmarshal(tap.Decode(sent).Params, &p)
	raw, ok := e.w.Find(5*time.Second, func(m tap.Msg) bool {
		d := tap.Decode(m.Raw)
		return !m.Out && d.Error != nil && string(d.ID) == string(p.RequestID)
	})
	elapsed := time.Since(start)
	if !ok {
		t.Fatal("the prompt was not answered")
	}
	if m := tap.Decode(raw); m.Error.Code != -32800 {
		t.Errorf("answered %s, want -32800", raw)
	}
	if elapsed > 100*time.Millisecond {
		t.Errorf("answered %v after the cancel, want within 100 ms", elapsed)
	}
	if got := call[struct{ StopReason string }](t, e, acp.MethodSessionPrompt, prompt(sid, "hi")); got.StopReason != "end_turn" {
		t.Errorf("the next turn: %q", got.StopReason)
	}
}

// TestErrors: the codes of ACP and JSON-RPC for what the agent refuses.
func TestErrors(t *testing.T) {
	e := newEditor(t, "", "allow", nil)
	sid := e.begin(t, true, t.TempDir())
	ctx := context.Background()
	code := func(method string, params any) jsonrpc.Code {
		t.Helper()
		_, err := e.c.CallRaw(ctx, method, params)
		var je *jsonrpc.Error
		if !errors.As(err, &je) {
			t.Fatalf("%s: %v, want an error answer", method, err)
		}
		return je.Code
	}
	if c := code(acp.MethodSessionPrompt, prompt("sess_none", "hi")); c != acp.CodeResourceNotFound {
		t.Errorf("a prompt of an unknown session: %d, want -32002", c)
	}
	if c := code(acp.MethodSessionNew, map[string]any{"cwd": "relative", "mcpServers": []any{}}); c != jsonrpc.CodeInvalidParams {
		t.Errorf("a relative cwd: %d, want -32602", c)
	}
	if c := code(acp.MethodSessionLoad, map[string]any{"sessionId": sid}); c != jsonrpc.CodeMethodNotFound {
		t.Errorf("session/load: %d, want -32601", c)
	}
	if c := code(acp.MethodSessionPrompt, prompt(sid, "wait soon")); c != jsonrpc.CodeInvalidParams {
		t.Errorf("wait without milliseconds: %d, want -32602", c)
	}
	// A second prompt while a turn runs.
	done := make(chan error, 1)
	go func() {
		_, err := e.c.CallRaw(ctx, acp.MethodSessionPrompt, prompt(sid, "wait"))
		done <- err
	}()
	e.waitUpdates(t, 1)
	if c := code(acp.MethodSessionPrompt, prompt(sid, "hi")); c != jsonrpc.CodeInvalidRequest {
		t.Errorf("a prompt while a turn runs: %d, want -32600", c)
	}
	e.c.Notify(ctx, acp.MethodSessionCancel, map[string]string{"sessionId": sid})
	if err := <-done; err != nil {
		t.Errorf("the running turn: %v", err)
	}
}
