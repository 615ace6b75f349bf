// Command acpagent is a small coding agent of the Agent Client Protocol
// (ACP): it speaks ACP over its standard input and output, one JSON-RPC
// message per line, as an editor starts an agent.
//
//	$ go build -o acpagent ./examples/acpagent
//
// and configure the editor to run ./acpagent as an agent. It has no model:
// it answers each prompt turn by the text of the prompt.
//
//   - initialize: protocol version 1, no authentication, its name; it
//     keeps whether the client can read files (fs.readTextFile).
//   - session/new: a session for an absolute cwd, which relative paths
//     are taken from; at most maxSessions of them.
//   - session/prompt "read PATH": the turn reads the file through the
//     client. It announces a tool call (session/update "tool_call", kind
//     "read"), asks the user's permission (session/request_permission,
//     allow once or reject), reads the file (fs/read_text_file), reports
//     the tool call completed with the file's text, says how many lines
//     and bytes it has, and ends the turn with stopReason "end_turn". A
//     rejection, or a client that cannot read files, fails the tool call
//     and ends the turn the same way.
//   - session/prompt "wait" or "wait MS": the turn streams a thought every
//     100 ms for MS milliseconds (10 s by default, at most a minute), then
//     ends with "end_turn".
//   - session/prompt with any other text: the turn echoes it.
//   - session/cancel: the session's turn stops, its requests to the
//     client are cancelled ($/cancel_request), and it ends with stopReason
//     "cancelled".
//   - $/cancel_request of a pending request: the request is answered at
//     once with RequestCancelled (-32800); a prompt's turn stops with it.
//
// A prompt in a session the agent does not hold is answered with
// ResourceNotFound (-32002), a prompt while its session's turn runs with
// Invalid request. Every update of a turn is written before the turn's
// answer. The agent ends when its input ends.
//
// It is built on package stream (with framing.Line) and the profile of
// package protocol/acp.
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/framing"
	"github.com/jsonrpc-go/jsonrpc/peer"
	"github.com/jsonrpc-go/jsonrpc/protocol/acp"
	"github.com/jsonrpc-go/jsonrpc/stream"
	"github.com/jsonrpc-go/jsonrpc/transport"
)

func main() {
	os.Exit(run(os.Stdin, os.Stdout, os.Stderr))
}

// Bounds of the agent.
const (
	maxSessions = 1000             // sessions held at once
	defaultWait = 10 * time.Second // of "wait" without a duration
	maxWait     = time.Minute      // of "wait MS"
	tick        = 100 * time.Millisecond
)

// run serves the client on r and w until its input ends, and returns the
// exit status.
func run(r io.Reader, w io.Writer, stderr io.Writer) int {
	s := &stream.Server{
		Server:   newAgent().rpc,
		Framing:  framing.Line,
		Protocol: acp.Protocol(),
		Limits: transport.Limits{
			IdleTimeout: -1, // an editor may stay idle as long as it likes
			ReadTimeout: -1,
		},
	}
	if err := s.ServeConn(context.Background(), stream.ReadWriteCloser(r, w)); err != nil {
		fmt.Fprintln(stderr, "acpagent:", err)
		return 1
	}
	return 0
}

// An agent is the state of the agent process: it serves one client.
type agent struct {
	rpc *jsonrpc.Server

	mu       sync.Mutex // protects the fields below
	canRead  bool       // the client offers fs/read_text_file
	sessions map[string]*session
}

// A session is one conversation; its turns run one at a time.
type session struct {
	id, cwd string

	mu     sync.Mutex         // protects the fields below
	cancel context.CancelFunc // ends the running turn; nil between turns
	calls  int                // tool calls made, for their ids
}

func newAgent() *agent {
	a := &agent{sessions: map[string]*session{}}
	// Clients send members this agent does not model (_meta, and the
	// capabilities and fields of later versions).
	a.rpc = jsonrpc.NewServer(jsonrpc.AllowUnknownFields())
	a.rpc.MustRegister(acp.MethodInitialize, a.initialize)
	a.rpc.MustRegister(acp.MethodSessionNew, a.newSession)
	// A turn calls its client and waits for the answers: it runs on a
	// goroutine of its own (Blocking), so that the connection goes on
	// reading those answers, and session/cancel.
	a.rpc.MustRegister(acp.MethodSessionPrompt, a.prompt, jsonrpc.Blocking())
	a.rpc.MustRegister(acp.MethodSessionCancel, a.cancel)
	return a
}

type initializeParams struct {
	ProtocolVersion    int `json:"protocolVersion"`
	ClientCapabilities struct {
		FS struct {
			ReadTextFile bool `json:"readTextFile"`
		} `json:"fs"`
	} `json:"clientCapabilities"`
}

type implementation struct {
	Name    string `json:"name"`
	Title   string `json:"title,omitempty"`
	Version string `json:"version"`
}

type initializeResult struct {
	ProtocolVersion   int               `json:"protocolVersion"`
	AgentCapabilities agentCapabilities `json:"agentCapabilities"`
	AuthMethods       []struct{}        `json:"authMethods"`
	AgentInfo         implementation    `json:"agentInfo"`
}

type agentCapabilities struct {
	LoadSession        bool            `json:"loadSession"`
	PromptCapabilities map[string]bool `json:"promptCapabilities"`
}

// initialize answers with the one version of ACP the agent speaks, which
// is the client's to accept or not, and keeps the client's capabilities.
func (a *agent) initialize(p initializeParams) initializeResult {
	a.mu.Lock()
	a.canRead = p.ClientCapabilities.FS.ReadTextFile
	a.mu.Unlock()
	return initializeResult{
		ProtocolVersion: acp.ProtocolVersion,
		AgentCapabilities: agentCapabilities{
			PromptCapabilities: map[string]bool{"image": false, "audio": false, "embeddedContext": false},
		},
		AuthMethods: []struct{}{},
		AgentInfo:   implementation{Name: "acpagent", Title: "jsonrpc-go's example agent", Version: "1.0.0"},
	}
}

type newSessionParams struct {
	Cwd string `json:"cwd"`
}

type newSessionResult struct {
	SessionID string `json:"sessionId"`
}

func (a *agent) newSession(p newSessionParams) (newSessionResult, error) {
	if !filepath.IsAbs(p.Cwd) {
		return newSessionResult{}, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "cwd must be an absolute path").WithData(p.Cwd)
	}
	var b [8]byte
	rand.Read(b[:])
	s := &session{id: "sess_" + hex.EncodeToString(b[:]), cwd: p.Cwd}
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.sessions) >= maxSessions {
		return newSessionResult{}, jsonrpc.NewError(jsonrpc.CodeInternalError, "too many sessions").WithData(maxSessions)
	}
	a.sessions[s.id] = s
	return newSessionResult{SessionID: s.id}, nil
}

func (a *agent) session(id string) (*session, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if s := a.sessions[id]; s != nil {
		return s, nil
	}
	return nil, jsonrpc.NewError(acp.CodeResourceNotFound, "session not found").WithData(id)
}

type contentBlock struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type promptParams struct {
	SessionID string         `json:"sessionId"`
	Prompt    []contentBlock `json:"prompt"`
}

type promptResult struct {
	StopReason acp.StopReason `json:"stopReason"`
}

// prompt runs a turn. ctx is the call's: it ends when the client cancels
// the request ($/cancel_request), and then the connection answers it with
// RequestCancelled whatever prompt returns. The turn's own context ends
// with it and with session/cancel, which the turn answers with
// stopReason "cancelled", as ACP asks, not with an error. The updates go
// under ctx, so that a turn cancelled by session/cancel may still send
// its last ones.
func (a *agent) prompt(ctx context.Context, p promptParams) (promptResult, error) {
	s, err := a.session(p.SessionID)
	if err != nil {
		return promptResult{}, err
	}
	turn, cancel := context.WithCancel(ctx)
	defer cancel()
	s.mu.Lock()
	if s.cancel != nil {
		s.mu.Unlock()
		return promptResult{}, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "a prompt turn is already running in this session")
	}
	s.cancel = cancel
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.cancel = nil
		s.mu.Unlock()
	}()

	var text strings.Builder
	for _, b := range p.Prompt {
		if b.Type == "text" {
			text.WriteString(b.Text)
		}
	}
	stop, err := a.turn(ctx, turn, s, strings.TrimSpace(text.String()))
	switch {
	case ctx.Err() != nil:
		return promptResult{}, ctx.Err() // answered RequestCancelled
	case turn.Err() != nil:
		return promptResult{StopReason: acp.StopCancelled}, nil
	case err != nil:
		return promptResult{}, err
	}
	return promptResult{StopReason: stop}, nil
}

// cancel ends the turn of the session, if one runs.
func (a *agent) cancel(p struct {
	SessionID string `json:"sessionId"`
}) {
	s, err := a.session(p.SessionID)
	if err != nil {
		return
	}
	s.mu.Lock()
	if s.cancel != nil {
		s.cancel()
	}
	s.mu.Unlock()
}

// turn runs the turn of text: its updates under ctx, its calls to the
// client under turn.
func (a *agent) turn(ctx, turn context.Context, s *session, text string) (acp.StopReason, error) {
	cmd, arg, _ := strings.Cut(text, " ")
	switch cmd {
	case "read":
		return a.read(ctx, turn, s, strings.TrimSpace(arg))
	case "wait":
		d := defaultWait
		if arg != "" {
			ms, err := strconv.Atoi(arg)
			if err != nil || ms < 0 {
				return "", jsonrpc.NewError(jsonrpc.CodeInvalidParams, "wait takes milliseconds").WithData(arg)
			}
			d = min(time.Duration(ms)*time.Millisecond, maxWait)
		}
		return wait(ctx, turn, s, d)
	}
	return acp.StopEndTurn, acp.Update(ctx, s.id, acp.AgentMessage("You said: "+text))
}

// A toolCall is the update that announces a tool call ("tool_call") or
// changes it ("tool_call_update"), fields left out unchanged.
type toolCall struct {
	SessionUpdate string            `json:"sessionUpdate,omitempty"`
	ToolCallID    string            `json:"toolCallId"`
	Title         string            `json:"title,omitempty"`
	Kind          string            `json:"kind,omitempty"`
	Status        string            `json:"status,omitempty"`
	Locations     []location        `json:"locations,omitempty"`
	Content       []toolCallContent `json:"content,omitempty"`
	RawInput      any               `json:"rawInput,omitempty"`
}

type location struct {
	Path string `json:"path"`
}

type toolCallContent struct {
	Type    string   `json:"type"` // "content"
	Content acp.Text `json:"content"`
}

func textContent(s string) []toolCallContent {
	return []toolCallContent{{Type: "content", Content: acp.TextBlock(s)}}
}

type permissionOption struct {
	OptionID string `json:"optionId"`
	Name     string `json:"name"`
	Kind     string `json:"kind"`
}

type permissionResult struct {
	Outcome struct {
		Outcome  string `json:"outcome"` // "selected" or "cancelled"
		OptionID string `json:"optionId"`
	} `json:"outcome"`
}

// read is the turn that reads the file at path through the client, with
// the user's permission.
func (a *agent) read(ctx, turn context.Context, s *session, path string) (acp.StopReason, error) {
	if path == "" {
		return acp.StopEndTurn, acp.Update(ctx, s.id, acp.AgentMessage("Which file? Say: read PATH."))
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(s.cwd, path)
	}
	s.mu.Lock()
	s.calls++
	id := "read_" + strconv.Itoa(s.calls)
	s.mu.Unlock()
	a.mu.Lock()
	canRead := a.canRead
	a.mu.Unlock()

	if err := acp.Update(ctx, s.id, acp.AgentMessage("I'll read "+path+".")); err != nil {
		return "", err
	}
	call := toolCall{ToolCallID: id, Title: "Read " + path, Kind: "read", Status: "pending", Locations: []location{{path}}}
	announce := call
	announce.SessionUpdate, announce.RawInput = "tool_call", map[string]string{"path": path}
	if err := acp.Update(ctx, s.id, announce); err != nil {
		return "", err
	}
	fail := func(why string) (acp.StopReason, error) {
		if err := acp.Update(ctx, s.id, toolCall{SessionUpdate: "tool_call_update", ToolCallID: id, Status: "failed", Content: textContent(why)}); err != nil {
			return "", err
		}
		return acp.StopEndTurn, acp.Update(ctx, s.id, acp.AgentMessage(why))
	}
	if !canRead {
		return fail("The client does not offer to read files (fs.readTextFile).")
	}

	c := peer.FromContext(ctx)
	var perm permissionResult
	err := c.Call(turn, acp.MethodRequestPermission, map[string]any{
		"sessionId": s.id,
		"toolCall":  call,
		"options": []permissionOption{
			{OptionID: "allow", Name: "Allow", Kind: "allow_once"},
			{OptionID: "reject", Name: "Reject", Kind: "reject_once"},
		},
	}, &perm)
	switch {
	case err != nil && turn.Err() != nil:
		return "", err
	case err != nil:
		return fail("Could not ask for permission: " + err.Error())
	case perm.Outcome.Outcome == "cancelled":
		return acp.StopCancelled, nil
	case perm.Outcome.OptionID != "allow":
		return fail("Permission denied: " + path + " was not read.")
	}

	if err := acp.Update(ctx, s.id, toolCall{SessionUpdate: "tool_call_update", ToolCallID: id, Status: "in_progress"}); err != nil {
		return "", err
	}
	var file struct {
		Content string `json:"content"`
	}
	if err := c.Call(turn, acp.MethodReadTextFile, map[string]any{"sessionId": s.id, "path": path}, &file); err != nil {
		if turn.Err() != nil {
			return "", err
		}
		return fail("Could not read " + path + ": " + err.Error())
	}
	if err := acp.Update(ctx, s.id, toolCall{SessionUpdate: "tool_call_update", ToolCallID: id, Status: "completed", Content: textContent(file.Content)}); err != nil {
		return "", err
	}
	lines := strings.Count(file.Content, "\n")
	if file.Content != "" && !strings.HasSuffix(file.Content, "\n") {
		lines++
	}
	first, _, _ := strings.Cut(file.Content, "\n")
	msg := fmt.Sprintf("%s has %d lines (%d bytes); the first reads %q.", path, lines, len(file.Content), first)
	return acp.StopEndTurn, acp.Update(ctx, s.id, acp.AgentMessage(msg))
}

// wait is the turn that thinks for d, a thought every tick, until the
// turn is cancelled.
func wait(ctx, turn context.Context, s *session, d time.Duration) (acp.StopReason, error) {
	if err := acp.Update(ctx, s.id, acp.AgentMessage(fmt.Sprintf("Waiting %v.", d))); err != nil {
		return "", err
	}
	end := time.NewTimer(d)
	defer end.Stop()
	t := time.NewTicker(tick)
	defer t.Stop()
	for n := 1; ; n++ {
		select {
		case <-turn.Done():
			return "", turn.Err()
		case <-end.C:
			return acp.StopEndTurn, acp.Update(ctx, s.id, acp.AgentMessage("Done waiting."))
		case <-t.C:
			if err := acp.Update(ctx, s.id, acp.AgentThought(fmt.Sprintf("tick %d", n))); err != nil {
				return "", err
			}
		}
	}
}
