package main

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/mcpserver"
	"github.com/jsonrpc-go/jsonrpc/peer"
	"github.com/jsonrpc-go/jsonrpc/protocol/mcp"
	"github.com/jsonrpc-go/jsonrpc/protocol/progress"
)

// noteURI is the resource the tool note sets.
const noteURI = "note://current"

type textArgs struct {
	Text string `json:"text" description:"The text."`
}

// addTools registers this server's own tools, and the note.
func addTools(s *mcpserver.Server) {
	var mu sync.Mutex
	note := "(empty)"
	signer := newSigner()

	mcpserver.AddTool(s, "echo", func(_ context.Context, in textArgs) (string, error) {
		return in.Text, nil
	}, mcpserver.Description("Answers the text it is given."))
	mcpserver.AddTool(s, "sleep", func(ctx context.Context, in struct {
		MS float64 `json:"ms" description:"How long to wait, in milliseconds, up to 600000."`
	}) (string, error) {
		if in.MS < 0 || in.MS > 600000 {
			return "", mcpserver.InvalidArguments("ms must be from 0 to 600000")
		}
		if err := sleep(ctx, in.MS); err != nil {
			return "", err
		}
		return fmt.Sprintf("slept %g ms", in.MS), nil
	}, mcpserver.Description("Waits for ms milliseconds, reporting progress, and can be cancelled."))
	mcpserver.AddTool(s, "note", func(ctx context.Context, in textArgs) (string, error) {
		mu.Lock()
		note = in.Text
		mu.Unlock()
		s.ResourceUpdated(ctx, noteURI)
		return fmt.Sprintf("%s is now %d bytes", noteURI, len(in.Text)), nil
	}, mcpserver.Description("Replaces the text of the resource "+noteURI+", whose subscribers are told."))
	mcpserver.AddTool(s, "confirm", func(ctx context.Context, in struct {
		Action string `json:"action" description:"What the user is asked to confirm."`
	}) (*mcpserver.Result, error) {
		if mcpserver.RequestOf(ctx).Stateless {
			return signer.confirm(ctx, in.Action)
		}
		return confirmByRequest(ctx, in.Action)
	}, mcpserver.Description("Asks the user to confirm an action, and answers whether they did."))

	s.AddResource(mcpserver.Resource{URI: noteURI, Name: "note", Description: "The text the tool note sets.", MIMEType: "text/plain"},
		func(_ context.Context, uri string) ([]mcpserver.ResourceContents, error) {
			mu.Lock()
			defer mu.Unlock()
			return []mcpserver.ResourceContents{{URI: uri, MIMEType: "text/plain", Text: note}}, nil
		})
}

// sleep waits for ms milliseconds, reporting its progress every 50 ms to
// a caller that asked for it, and returns ctx's error when ctx ends first.
func sleep(ctx context.Context, ms float64) error {
	p := progress.Of(ctx) // nil, reporting nothing, without a progressToken
	start := time.Now()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	done := time.NewTimer(time.Duration(ms * float64(time.Millisecond)))
	defer done.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-done.C:
			return nil
		case <-tick.C:
			if ctx.Err() != nil {
				return ctx.Err() // cancelled meanwhile: no more progress
			}
			slept := min(float64(time.Since(start).Milliseconds()), ms)
			p.Report(ctx, mcp.Progress{Progress: slept, Total: ms, Message: fmt.Sprintf("slept %g of %g ms", slept, ms)})
		}
	}
}

// confirmSchema is the form confirm asks the user to fill in.
var confirmSchema = json.RawMessage(`{"type":"object","properties":{"confirmed":{"type":"boolean","title":"Confirm","description":"Whether to go ahead."}},"required":["confirmed"]}`)

// elicitation is the elicitation/create request of confirm for action.
func elicitation(r *mcpserver.Request, action string) map[string]any {
	e := map[string]any{"message": "Confirm: " + action, "requestedSchema": confirmSchema}
	if r.AtLeast(mcpserver.Version20251125) {
		e["mode"] = "form" // 2025-06-18 has form mode alone, and no mode field
	}
	return e
}

// toolError is a tool's error result with the text msg.
func toolError(msg string) *mcpserver.Result {
	return &mcpserver.Result{Content: []mcpserver.Content{mcpserver.Text(msg)}, IsError: true}
}

// confirmByRequest is confirm before 2026-07-28: a request to the client,
// whose answer the call waits for.
func confirmByRequest(ctx context.Context, action string) (*mcpserver.Result, error) {
	r := mcpserver.RequestOf(ctx)
	if !r.Capabilities.FormElicitation() {
		return toolError("confirm needs a client that declares the elicitation capability"), nil
	}
	var raw json.RawMessage
	if err := peer.FromContext(ctx).Call(ctx, "elicitation/create", elicitation(r, action), &raw); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err() // cancelled: no answer
		}
		return toolError("confirm: the client's elicitation failed: " + err.Error()), nil
	}
	answer, err := parseElicitResult(raw)
	if err != nil {
		return toolError("confirm: the client's elicitation answered " + err.Error()), nil
	}
	if answer == "" {
		answer = "not confirmed" // accepted, without the field
	}
	return &mcpserver.Result{Content: []mcpserver.Content{mcpserver.Text(answer + ": " + action)}}, nil
}

// parseElicitResult reads the user's answer to confirm's elicitation:
// "confirmed", "not confirmed", "declined" or "cancelled", or "" for an
// accepted form without the field "confirmed" (to be asked again).
func parseElicitResult(raw json.RawMessage) (string, error) {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil || m == nil {
		return "", errors.New("not an ElicitResult object")
	}
	switch string(m["action"]) {
	case `"decline"`:
		return "declined", nil
	case `"cancel"`:
		return "cancelled", nil
	case `"accept"`:
	default:
		return "", errors.New(`its action is not "accept", "decline" or "cancel"`)
	}
	var c map[string]json.RawMessage
	if raw, ok := m["content"]; ok && (json.Unmarshal(raw, &c) != nil || c == nil) {
		return "", errors.New("its content is not an object")
	}
	switch string(c["confirmed"]) {
	case "true":
		return "confirmed", nil
	case "false":
		return "not confirmed", nil
	case "":
		return "", nil
	}
	return "", errors.New("its content.confirmed is not a boolean")
}

// A signer signs and checks the requestState of confirm, with a key the
// process makes when it starts.
type signer struct{ key []byte }

func newSigner() *signer {
	s := &signer{key: make([]byte, 32)}
	rand.Read(s.key)
	return s
}

// state is what a requestState of confirm holds.
type state struct {
	Tool    string `json:"tool"`
	Action  string `json:"action"`
	Expires int64  `json:"exp"` // Unix seconds
}

// confirm is confirm under 2026-07-28: the first call is answered with an
// InputRequiredResult, the retry with the user's answer.
func (s *signer) confirm(ctx context.Context, action string) (*mcpserver.Result, error) {
	r := mcpserver.RequestOf(ctx)
	if !r.Capabilities.FormElicitation() {
		return nil, jsonrpc.NewError(mcpserver.CodeMissingCapability, "Missing required client capability").
			WithData(map[string]any{"requiredCapabilities": map[string]any{"elicitation": map[string]any{"form": map[string]any{}}}})
	}
	var p struct {
		InputResponses map[string]json.RawMessage `json:"inputResponses"`
		RequestState   *string                    `json:"requestState"`
	}
	if err := json.Unmarshal(jsonrpc.CallOf(ctx).Params(), &p); err != nil {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "confirm: "+err.Error())
	}
	if p.RequestState != nil {
		if err := s.verify(*p.RequestState, action); err != nil {
			return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "confirm: requestState: "+err.Error())
		}
		if raw, ok := p.InputResponses["confirm"]; ok {
			answer, err := parseElicitResult(raw)
			if err != nil {
				return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "confirm: inputResponses.confirm: "+err.Error())
			}
			if answer != "" {
				return &mcpserver.Result{Content: []mcpserver.Content{mcpserver.Text(answer + ": " + action)}}, nil
			}
		}
	}
	// A first call, or a retry without the answer: ask (again).
	return &mcpserver.Result{ResultType: "input_required", Extra: map[string]any{
		"inputRequests": map[string]any{"confirm": map[string]any{"method": "elicitation/create", "params": elicitation(r, action)}},
		"requestState":  s.sign(state{Tool: "confirm", Action: action, Expires: time.Now().Add(10 * time.Minute).Unix()}),
	}}, nil
}

// sign returns the state as base64url JSON, a dot, and its HMAC-SHA256.
func (s *signer) sign(st state) string {
	b, _ := json.Marshal(st)
	body := base64.RawURLEncoding.EncodeToString(b)
	return body + "." + base64.RawURLEncoding.EncodeToString(s.mac(body))
}

func (s *signer) mac(body string) []byte {
	h := hmac.New(sha256.New, s.key)
	h.Write([]byte(body))
	return h.Sum(nil)
}

// verify checks a requestState the client echoed: signed by this
// process, not expired, and for a call of confirm for action.
func (s *signer) verify(rs, action string) error {
	body, sig, ok := strings.Cut(rs, ".")
	mac, err := base64.RawURLEncoding.DecodeString(sig)
	if !ok || err != nil || !hmac.Equal(mac, s.mac(body)) {
		return errors.New("not one this server made")
	}
	b, err := base64.RawURLEncoding.DecodeString(body)
	var st state
	if err != nil || json.Unmarshal(b, &st) != nil {
		return errors.New("malformed")
	}
	switch {
	case time.Now().Unix() > st.Expires:
		return errors.New("expired")
	case st.Tool != "confirm" || st.Action != action:
		return errors.New("made for another call")
	}
	return nil
}
