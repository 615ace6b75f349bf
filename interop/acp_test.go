package interop

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	acpsdk "github.com/coder/acp-go-sdk"
)

// A wireLog keeps the lines that pass one way between an ACP client and
// its agent, each with the time it passed. It is safe for concurrent use.
type wireLog struct {
	mu    sync.Mutex
	part  []byte
	lines []stamped
}

type stamped struct {
	at   time.Time
	line string
}

func (w *wireLog) add(p []byte) {
	now := time.Now()
	w.mu.Lock()
	defer w.mu.Unlock()
	w.part = append(w.part, p...)
	for {
		i := bytes.IndexByte(w.part, '\n')
		if i < 0 {
			return
		}
		w.lines = append(w.lines, stamped{now, string(w.part[:i])})
		w.part = w.part[i+1:]
	}
}

// find waits up to d for a line that match accepts, and returns it.
func (w *wireLog) find(d time.Duration, match func(m wireMsg) bool) (stamped, bool) {
	deadline := time.Now().Add(d)
	for {
		w.mu.Lock()
		for _, l := range w.lines {
			var m wireMsg
			if json.Unmarshal([]byte(l.line), &m) == nil && match(m) {
				w.mu.Unlock()
				return l, true
			}
		}
		w.mu.Unlock()
		if time.Now().After(deadline) {
			return stamped{}, false
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// wireMsg is any JSON-RPC message, as the tests look into it.
type wireMsg struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		RequestID json.RawMessage `json:"requestId"`
	} `json:"params"`
	Error *struct {
		Code int `json:"code"`
	} `json:"error"`
}

// A logWriter writes what the client sends to the agent, and keeps it in
// log. While held is set, it holds a session/cancel back until the next
// $/cancel_request has been written: the SDK's Prompt, when its context
// ends, sends both, $/cancel_request from a goroutine of its own, and the
// agent answers the one it reads first (-32800, or stopReason
// "cancelled"). It is safe for concurrent use.
type logWriter struct {
	w   io.Writer
	log *wireLog

	mu   sync.Mutex
	hold bool
	held []byte
}

func (l *logWriter) holdSessionCancel() {
	l.mu.Lock()
	l.hold = true
	l.mu.Unlock()
}

func (l *logWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.hold && bytes.Contains(p, []byte(`"method":"session/cancel"`)) {
		l.held = append([]byte(nil), p...)
		return len(p), nil
	}
	l.log.add(p)
	n, err := l.w.Write(p)
	if err == nil && l.hold && bytes.Contains(p, []byte(`"method":"$/cancel_request"`)) {
		l.hold = false
		if l.held != nil {
			l.log.add(l.held)
			_, err = l.w.Write(l.held)
			l.held = nil
		}
	}
	return n, err
}

type logReader struct {
	r   io.Reader
	log *wireLog
}

func (l logReader) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	l.log.add(p[:n])
	return n, err
}

// goClient is the Client of the ACP Go SDK the test runs: it keeps the
// updates, reads the files it is given, and answers a permission request
// as permit says ("" waits for the request to be cancelled).
type goClient struct {
	files map[string]string

	mu        sync.Mutex // protects the fields below
	permit    string
	updates   []json.RawMessage
	read      []string
	asked     int
	cancelled int // permission requests whose context ended
}

var _ acpsdk.Client = (*goClient)(nil)

func (c *goClient) setPermit(p string) {
	c.mu.Lock()
	c.permit = p
	c.mu.Unlock()
}

func (c *goClient) RequestPermission(ctx context.Context, p acpsdk.RequestPermissionRequest) (acpsdk.RequestPermissionResponse, error) {
	c.mu.Lock()
	c.asked++
	permit := c.permit
	c.mu.Unlock()
	if permit == "" {
		<-ctx.Done()
		c.mu.Lock()
		c.cancelled++
		c.mu.Unlock()
		return acpsdk.RequestPermissionResponse{Outcome: acpsdk.RequestPermissionOutcome{Cancelled: &acpsdk.RequestPermissionOutcomeCancelled{}}}, nil
	}
	for _, o := range p.Options {
		if string(o.OptionId) == permit {
			return acpsdk.RequestPermissionResponse{Outcome: acpsdk.RequestPermissionOutcome{Selected: &acpsdk.RequestPermissionOutcomeSelected{OptionId: o.OptionId}}}, nil
		}
	}
	return acpsdk.RequestPermissionResponse{}, errors.New("no option " + permit)
}

func (c *goClient) SessionUpdate(ctx context.Context, n acpsdk.SessionNotification) error {
	raw, err := json.Marshal(n.Update)
	if err != nil {
		return err
	}
	c.mu.Lock()
	c.updates = append(c.updates, raw)
	c.mu.Unlock()
	return nil
}

func (c *goClient) ReadTextFile(ctx context.Context, p acpsdk.ReadTextFileRequest) (acpsdk.ReadTextFileResponse, error) {
	c.mu.Lock()
	c.read = append(c.read, p.Path)
	c.mu.Unlock()
	text, ok := c.files[p.Path]
	if !ok {
		return acpsdk.ReadTextFileResponse{}, acpsdk.NewRequestError(-32002, "Resource not found", nil)
	}
	return acpsdk.ReadTextFileResponse{Content: text}, nil
}

func (c *goClient) WriteTextFile(context.Context, acpsdk.WriteTextFileRequest) (acpsdk.WriteTextFileResponse, error) {
	return acpsdk.WriteTextFileResponse{}, acpsdk.NewMethodNotFound(acpsdk.ClientMethodFsWriteTextFile)
}

func (c *goClient) CreateTerminal(context.Context, acpsdk.CreateTerminalRequest) (acpsdk.CreateTerminalResponse, error) {
	return acpsdk.CreateTerminalResponse{}, acpsdk.NewMethodNotFound(acpsdk.ClientMethodTerminalCreate)
}

func (c *goClient) KillTerminal(context.Context, acpsdk.KillTerminalRequest) (acpsdk.KillTerminalResponse, error) {
	return acpsdk.KillTerminalResponse{}, acpsdk.NewMethodNotFound(acpsdk.ClientMethodTerminalKill)
}

func (c *goClient) TerminalOutput(context.Context, acpsdk.TerminalOutputRequest) (acpsdk.TerminalOutputResponse, error) {
	return acpsdk.TerminalOutputResponse{}, acpsdk.NewMethodNotFound(acpsdk.ClientMethodTerminalOutput)
}

func (c *goClient) ReleaseTerminal(context.Context, acpsdk.ReleaseTerminalRequest) (acpsdk.ReleaseTerminalResponse, error) {
	return acpsdk.ReleaseTerminalResponse{}, acpsdk.NewMethodNotFound(acpsdk.ClientMethodTerminalRelease)
}

func (c *goClient) WaitForTerminalExit(context.Context, acpsdk.WaitForTerminalExitRequest) (acpsdk.WaitForTerminalExitResponse, error) {
	return acpsdk.WaitForTerminalExitResponse{}, acpsdk.NewMethodNotFound(acpsdk.ClientMethodTerminalWaitForExit)
}

func (c *goClient) CreateElicitation(context.Context, acpsdk.CreateElicitationRequest) (acpsdk.CreateElicitationResponse, error) {
	return acpsdk.CreateElicitationResponse{}, acpsdk.NewMethodNotFound(acpsdk.ClientMethodElicitationCreate)
}

func (c *goClient) CompleteElicitation(context.Context, acpsdk.CompleteElicitationNotification) error {
	return nil
}

// waitUpdates waits until the client holds n updates.
func (c *goClient) waitUpdates(t *testing.T, n int) {
	t.Helper()
	waitFor(t, func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		return len(c.updates) >= n
	})
}

// waitFor waits up to 10 s for cond to hold.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("not within 10 s")
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// kinds returns the kind of each update since from (a tool call's with
// its status), and the updates.
func (c *goClient) kinds(from int) ([]string, []json.RawMessage) {
	c.mu.Lock()
	us := c.updates[from:]
	c.mu.Unlock()
	var ks []string
	for _, raw := range us {
		var u struct {
			SessionUpdate string `json:"sessionUpdate"`
			Status        string `json:"status"`
		}
		json.Unmarshal(raw, &u)
		if u.Status != "" {
			u.SessionUpdate += ":" + u.Status
		}
		ks = append(ks, u.SessionUpdate)
	}
	return ks, us
}

// TestACPGoSDK: the client of github.com/coder/acp-go-sdk spawns
// examples/acpagent and drives it over its stdin and stdout: initialize, a
// session, a prompt whose turn reads a file through the client with the
// user's permission and streams its updates, a prompt cancelled by
// $/cancel_request (answered -32800 on the wire within 100 ms of the
// cancel), and prompts cancelled by session/cancel, one of them while the
// user is asked for permission (the agent cancels that request).
func TestACPGoSDK(t *testing.T) {
	bin := buildExample(t, "acpagent")
	cmd := exec.Command(bin)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close()
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("acpagent: %v, want exit status 0 when its input ends", err)
			}
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			t.Error("acpagent did not exit within 10 s of the end of its input")
		}
	})
	var sent, received wireLog
	dir := t.TempDir()
	path := filepath.Join(dir, "notes.txt")
	cl := &goClient{files: map[string]string{path: "first line\nsecond line\n"}, permit: "allow"}
	toAgent := &logWriter{w: stdin, log: &sent}
	conn := acpsdk.NewClientSideConnection(cl, toAgent, logReader{stdout, &received})

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	init, err := conn.Initialize(ctx, acpsdk.InitializeRequest{
		ProtocolVersion:    acpsdk.ProtocolVersionNumber,
		ClientCapabilities: acpsdk.ClientCapabilities{Fs: acpsdk.FileSystemCapabilities{ReadTextFile: true}},
		ClientInfo:         &acpsdk.Implementation{Name: "interop", Version: "1"},
	})
	if err != nil {
		t.Fatal("initialize:", err)
	}
	if init.ProtocolVersion != acpsdk.ProtocolVersionNumber || init.AgentInfo == nil || init.AgentInfo.Name != "acpagent" {
		t.Errorf("initialize: %+v", init)
	}
	sess, err := conn.NewSession(ctx, acpsdk.NewSessionRequest{Cwd: dir, McpServers: []acpsdk.McpServer{}})
	if err != nil {
		t.Fatal("session/new:", err)
	}
	prompt := func(ctx context.Context, text string) (acpsdk.PromptResponse, error) {
		return conn.Prompt(ctx, acpsdk.PromptRequest{SessionId: sess.SessionId, Prompt: []acpsdk.ContentBlock{acpsdk.TextBlock(text)}})
	}

	// A turn that reads a file through the client.
	resp, err := prompt(ctx, "read notes.txt")
	if err != nil || resp.StopReason != acpsdk.StopReasonEndTurn {
		t.Fatalf("read: %+v, %v", resp, err)
	}
	ks, us := cl.kinds(0)
	want := "agent_message_chunk tool_call:pending tool_call_update:in_progress tool_call_update:completed agent_message_chunk"
	if strings.Join(ks, " ") != want {
		t.Fatalf("updates %v, want %s", ks, want)
	}
	if !strings.Contains(string(us[3]), `first line\nsecond line\n`) || !strings.Contains(string(us[4]), "has 2 lines (23 bytes)") {
		t.Errorf("updates: %s", us)
	}
	cl.mu.Lock()
	read, asked := cl.read, cl.asked
	cl.mu.Unlock()
	if len(read) != 1 || read[0] != path || asked != 1 {
		t.Errorf("read %v, asked %d times; want [%s], once", read, asked, path)
	}

	// $/cancel_request of a running prompt: the SDK sends it when the
	// call's context ends, and session/cancel too, and returns at once;
	// the agent's answer is on the wire.
	before := len(ks)
	toAgent.holdSessionCancel()
	pctx, pcancel := context.WithCancel(ctx)
	errc := make(chan error, 1)
	go func() { _, err := prompt(pctx, "wait"); errc <- err }()
	cl.waitUpdates(t, before+2)
	pcancel()
	<-errc
	cancelLine, ok := sent.find(5*time.Second, func(m wireMsg) bool { return m.Method == "$/cancel_request" })
	if !ok {
		t.Fatal("the SDK sent no $/cancel_request")
	}
	var cm wireMsg
	json.Unmarshal([]byte(cancelLine.line), &cm)
	answer, ok := received.find(5*time.Second, func(m wireMsg) bool {
		return m.Method == "" && string(m.ID) == string(cm.Params.RequestID)
	})
	if !ok {
		t.Fatalf("no answer to the cancelled prompt %s", cm.Params.RequestID)
	}
	var am wireMsg
	json.Unmarshal([]byte(answer.line), &am)
	if am.Error == nil || am.Error.Code != -32800 {
		t.Errorf("the cancelled prompt was answered %s, want the error -32800", answer.line)
	}
	if d := answer.at.Sub(cancelLine.at); d > 100*time.Millisecond {
		t.Errorf("answered %v after $/cancel_request, want within 100 ms", d)
	}

	// session/cancel: the turn ends with stopReason cancelled, while it
	// streams and while the user is asked for permission.
	for _, text := range []string{"wait", "read notes.txt"} {
		cl.mu.Lock()
		from := len(cl.updates)
		cl.mu.Unlock()
		cl.setPermit("")
		done := make(chan acpsdk.PromptResponse, 1)
		go func() {
			resp, err := prompt(ctx, text)
			if err != nil {
				t.Errorf("%s: %v", text, err)
			}
			done <- resp
		}()
		cl.waitUpdates(t, from+2)
		if text != "wait" {
			waitFor(t, func() bool {
				cl.mu.Lock()
				defer cl.mu.Unlock()
				return cl.asked == 2
			})
		}
		if err := conn.Cancel(ctx, acpsdk.CancelNotification{SessionId: sess.SessionId}); err != nil {
			t.Fatal(err)
		}
		select {
		case resp := <-done:
			if resp.StopReason != acpsdk.StopReasonCancelled {
				t.Errorf("%s after session/cancel: %q, want cancelled", text, resp.StopReason)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: no answer within 10 s of session/cancel", text)
		}
		if ks, _ := cl.kinds(from); len(ks) < 2 {
			t.Errorf("%s: updates %v", text, ks)
		}
	}
	// The agent cancelled its permission request: the SDK ended the
	// handler's context.
	if _, ok := received.find(5*time.Second, func(m wireMsg) bool { return m.Method == "$/cancel_request" }); !ok {
		t.Error("the agent did not cancel its permission request")
	}
	waitFor(t, func() bool {
		cl.mu.Lock()
		defer cl.mu.Unlock()
		return cl.cancelled == 1
	})
	cl.setPermit("allow")
	if resp, err := prompt(ctx, "hello"); err != nil || resp.StopReason != acpsdk.StopReasonEndTurn {
		t.Errorf("a turn after the cancelled ones: %+v, %v", resp, err)
	}
}

// TestACPTypeScript drives examples/acpagent with the official ACP
// TypeScript SDK from npm (npm ci in acpts/), which spawns it: its client
// app (@agentclientprotocol/sdk 2.4.0, client().connectWith) and its
// ClientSideConnection (1.9.0, the last line that has it). Each:
// initialize, a session, a turn that reads a file through the client with
// its permission and streams its updates (checked against the SDK's
// schemas as it reads them), a prompt cancelled through an AbortSignal
// ($/cancel_request), answered -32800 within 100 ms, session/cancel while
// the turn streams and while the user is asked for permission (the app's
// handler sees the agent's $/cancel_request abort its signal), a turn
// after them, and the agent's exit when its input ends.
func TestACPTypeScript(t *testing.T) {
	node, dir := needNode(t, "acpts", "@agentclientprotocol/sdk", "acp-sdk-1")
	bin := buildExample(t, "acpagent")
	for _, mode := range []string{"app", "conn"} {
		t.Run(mode, func(t *testing.T) {
			work := t.TempDir()
			steps, order := runSteps(t, node, filepath.Join(dir, "client.mjs"), mode, bin, work)
			want := []string{"initialize", "session", "read", "cancel_request", "session_cancel", "permission_cancel", "after", "exit"}
			if strings.Join(order, " ") != strings.Join(want, " ") {
				t.Fatalf("steps %v, want %v", order, want)
			}
			var init struct {
				ProtocolVersion int
				Agent           string
			}
			step(t, steps, "initialize", &init)
			if init.ProtocolVersion != 1 || init.Agent != "acpagent" {
				t.Errorf("initialize: %s", steps["initialize"])
			}
			var read struct {
				StopReason string
				Updates    []string
				Read       []string
				ToolCall   bool
				Options    []string
				Content    string
				Last       string
			}
			step(t, steps, "read", &read)
			if read.StopReason != "end_turn" ||
				strings.Join(read.Updates, " ") != "agent_message_chunk tool_call:pending tool_call_update:in_progress tool_call_update:completed agent_message_chunk" ||
				len(read.Read) != 1 || read.Read[0] != filepath.Join(work, "notes.txt") || !read.ToolCall ||
				strings.Join(read.Options, " ") != "allow_once reject_once" || read.Content != "first line\nsecond line\n" ||
				!strings.Contains(read.Last, "has 2 lines (23 bytes)") {
				t.Errorf("the read turn: %s", steps["read"])
			}
			var cr struct {
				Code int
				MS   float64
			}
			step(t, steps, "cancel_request", &cr)
			if cr.Code != -32800 || cr.MS > 100 {
				t.Errorf("$/cancel_request: %s, want the error -32800 within 100 ms", steps["cancel_request"])
			}
			var sc struct {
				StopReason string
				Updates    int
			}
			step(t, steps, "session_cancel", &sc)
			if sc.StopReason != "cancelled" || sc.Updates < 2 {
				t.Errorf("session/cancel: %s", steps["session_cancel"])
			}
			var pc struct {
				StopReason string
				Read       int
				Aborted    int
			}
			step(t, steps, "permission_cancel", &pc)
			wantAborted := 0
			if mode == "app" {
				wantAborted = 1
			}
			if pc.StopReason != "cancelled" || pc.Read != 1 || pc.Aborted != wantAborted {
				t.Errorf("session/cancel while permission is asked: %s, want cancelled, nothing more read, %d aborted", steps["permission_cancel"], wantAborted)
			}
			if string(steps["after"]) != `{"step":"after","stopReason":"end_turn","last":"You said: hello"}` {
				t.Errorf("the turn after: %s", steps["after"])
			}
			if string(steps["exit"]) != `{"step":"exit","code":0,"signal":null}` {
				t.Errorf("exit: %s, want status 0", steps["exit"])
			}
		})
	}
}
