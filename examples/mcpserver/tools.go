package main

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/peer"
	"github.com/jsonrpc-go/jsonrpc/protocol/mcp"
	"github.com/jsonrpc-go/jsonrpc/protocol/progress"
)

// progressEvery is how often sleep reports its progress.
const progressEvery = 50 * time.Millisecond

// stateTTL is how long a requestState of confirm stays good.
const stateTTL = 10 * time.Minute

type (
	tool struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		InputSchema json.RawMessage `json:"inputSchema"`
	}
	listToolsResult struct {
		resultFields
		Tools []tool `json:"tools"`
		cacheFields
	}

	callToolParams struct {
		Name           *string                    `json:"name"`
		Arguments      json.RawMessage            `json:"arguments"`
		InputResponses map[string]json.RawMessage `json:"inputResponses"`
		RequestState   *string                    `json:"requestState"`
	}
	content struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	callToolResult struct {
		resultFields
		Content []any `json:"content"`
		IsError bool  `json:"isError,omitempty"`
	}
	// inputRequiredResult is 2026-07-28's interim result of a call that
	// needs input from the client first.
	inputRequiredResult struct {
		resultFields
		InputRequests map[string]inputRequest `json:"inputRequests"`
		RequestState  string                  `json:"requestState"`
	}
	inputRequest struct {
		Method string        `json:"method"`
		Params elicitRequest `json:"params"`
	}
	elicitRequest struct {
		Mode            string          `json:"mode,omitempty"`
		Message         string          `json:"message"`
		RequestedSchema json.RawMessage `json:"requestedSchema"`
	}
)

// tools are the tools of tools/list, in a fixed order.
var tools = []tool{
	{
		Name:        "echo",
		Description: "Answers the text it is given.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string","description":"The text to answer."}},"required":["text"],"additionalProperties":false}`),
	},
	{
		Name:        "sleep",
		Description: "Waits for ms milliseconds, reporting progress, and can be cancelled.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"ms":{"type":"number","minimum":0,"maximum":600000,"description":"How long to wait, in milliseconds."}},"required":["ms"],"additionalProperties":false}`),
	},
	{
		Name:        "note",
		Description: "Replaces the text of the resource " + noteURI + ", whose subscribers are told.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string","description":"The new text of the note."}},"required":["text"],"additionalProperties":false}`),
	},
	{
		Name:        "confirm",
		Description: "Asks the user to confirm an action, and answers whether they did.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"action":{"type":"string","description":"What the user is asked to confirm."}},"required":["action"],"additionalProperties":false}`),
	},
}

// allTools are those of tools/list: this server's own, then the
// conformance suite's.
var allTools = append(append([]tool(nil), tools...), suiteTools...)

// confirmSchema is the form confirm asks the user to fill in.
var confirmSchema = json.RawMessage(`{"type":"object","properties":{"confirmed":{"type":"boolean","title":"Confirm","description":"Whether to go ahead."}},"required":["confirmed"]}`)

func (s *server) listTools(ctx context.Context, _ struct{}) listToolsResult {
	r := requestOf(ctx)
	return listToolsResult{resultFields: r.complete(), Tools: allTools, cacheFields: r.cache(discoverTTL)}
}

// badArguments is the answer to arguments that do not fit a tool's
// schema: a protocol error under 2025-06-18, and from 2025-11-25 on a tool
// execution error, which the model sees and can correct.
func badArguments(r *request, format string, args ...any) (any, error) {
	if !r.atLeast(version20251125) {
		return nil, invalidParams(format, args...)
	}
	return &callToolResult{resultFields: r.complete(), Content: []any{content{Type: "text", Text: fmt.Sprintf(format, args...)}}, IsError: true}, nil
}

// text returns the complete result of r with the text t.
func text(r *request, t string) *callToolResult {
	return &callToolResult{resultFields: r.complete(), Content: []any{content{Type: "text", Text: t}}}
}

func (s *server) callTool(ctx context.Context, p callToolParams) (any, error) {
	r := requestOf(ctx)
	if p.Name == nil {
		return nil, invalidParams("tools/call: name is required")
	}
	if p.Arguments != nil && !isObjectOrNull(p.Arguments) {
		return nil, invalidParams("tools/call: arguments must be an object")
	}
	switch *p.Name {
	case "echo":
		var args struct {
			Text *string `json:"text"`
		}
		if err := json.Unmarshal(p.Arguments, &args); err != nil || args.Text == nil {
			return badArguments(r, `echo: the arguments must be {"text": string}`)
		}
		return text(r, *args.Text), nil
	case "sleep":
		var args struct {
			MS *float64 `json:"ms"`
		}
		if err := json.Unmarshal(p.Arguments, &args); err != nil || args.MS == nil || *args.MS < 0 || *args.MS > 600000 {
			return badArguments(r, `sleep: the arguments must be {"ms": number from 0 to 600000}`)
		}
		if err := sleep(ctx, *args.MS); err != nil {
			return nil, err
		}
		return text(r, fmt.Sprintf("slept %g ms", *args.MS)), nil
	case "note":
		var args struct {
			Text *string `json:"text"`
		}
		if err := json.Unmarshal(p.Arguments, &args); err != nil || args.Text == nil {
			return badArguments(r, `note: the arguments must be {"text": string}`)
		}
		s.notes.set(*args.Text)
		s.updated(ctx, noteURI)
		return text(r, fmt.Sprintf("%s is now %d bytes", noteURI, len(*args.Text))), nil
	case "confirm":
		var args struct {
			Action *string `json:"action"`
		}
		if err := json.Unmarshal(p.Arguments, &args); err != nil || args.Action == nil {
			return badArguments(r, `confirm: the arguments must be {"action": string}`)
		}
		if r.modern {
			return s.confirmModern(r, *args.Action, p)
		}
		return s.confirmLegacy(ctx, r, *args.Action)
	}
	if res, err, ok := s.suiteTool(ctx, r, *p.Name, p.Arguments); ok {
		return res, err
	}
	return nil, invalidParams("Unknown tool: %s", *p.Name)
}

// isObjectOrNull reports whether v is a JSON object or null.
func isObjectOrNull(v json.RawMessage) bool {
	var m map[string]json.RawMessage
	return json.Unmarshal(v, &m) == nil
}

// sleep waits for ms milliseconds, reporting its progress to the caller
// when it asked for it (peer.ProgressOf), and returns ctx's error when ctx
// ends first: cancelled by the client, the call gets no answer.
func sleep(ctx context.Context, ms float64) error {
	p := progress.Of(ctx) // nil, reporting nothing, without a progressToken
	d := time.Duration(ms * float64(time.Millisecond))
	start := time.Now()
	tick := time.NewTicker(progressEvery)
	defer tick.Stop()
	done := time.NewTimer(d)
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
			elapsed := float64(time.Since(start).Milliseconds())
			p.Report(ctx, mcp.Progress{
				Progress: min(elapsed, ms),
				Total:    ms,
				Message:  fmt.Sprintf("slept %g of %g ms", min(elapsed, ms), ms),
			})
		}
	}
}

// confirmRequest is the elicitation confirm asks the client for.
func confirmRequest(r *request, action string) elicitRequest {
	e := elicitRequest{Message: "Confirm: " + action, RequestedSchema: confirmSchema}
	if r.atLeast(version20251125) {
		e.Mode = "form" // 2025-06-18 has form mode alone, and no mode field
	}
	return e
}

// confirmModern is confirm under 2026-07-28: the first call is answered
// with an InputRequiredResult, the retry with the user's answer.
func (s *server) confirmModern(r *request, action string, p callToolParams) (any, error) {
	if !r.caps.formElicitation() {
		return nil, jsonrpc.NewError(codeMissingCapability, "Missing required client capability").
			WithData(map[string]any{"requiredCapabilities": map[string]any{"elicitation": map[string]any{"form": map[string]any{}}}})
	}
	if p.RequestState != nil {
		if err := s.verifyState(*p.RequestState, action); err != nil {
			return nil, invalidParams("confirm: requestState: %v", err)
		}
		if raw, ok := p.InputResponses["confirm"]; ok {
			answer, err := parseElicitResult(raw)
			if err != nil {
				return nil, invalidParams("confirm: inputResponses.confirm: %v", err)
			}
			if answer != "" {
				return text(r, answer+": "+action), nil
			}
		}
	}
	// A first call, or a retry without the answer: ask (again).
	return &inputRequiredResult{
		resultFields:  r.fields("input_required"),
		InputRequests: map[string]inputRequest{"confirm": {Method: "elicitation/create", Params: confirmRequest(r, action)}},
		RequestState:  s.signState(action),
	}, nil
}

// confirmLegacy is confirm before 2026-07-28: a request to the client,
// whose answer the call waits for.
func (s *server) confirmLegacy(ctx context.Context, r *request, action string) (any, error) {
	if !r.caps.formElicitation() {
		return &callToolResult{Content: []any{content{Type: "text", Text: "confirm needs a client that declares the elicitation capability"}}, IsError: true}, nil
	}
	var raw json.RawMessage
	if err := peer.FromContext(ctx).Call(ctx, "elicitation/create", confirmRequest(r, action), &raw); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err() // cancelled: no answer
		}
		return &callToolResult{Content: []any{content{Type: "text", Text: "confirm: the client's elicitation failed: " + err.Error()}}, IsError: true}, nil
	}
	answer, err := parseElicitResult(raw)
	if err != nil {
		return &callToolResult{Content: []any{content{Type: "text", Text: "confirm: the client's elicitation answered " + err.Error()}}, IsError: true}, nil
	}
	if answer == "" {
		answer = "not confirmed" // accepted, without the field
	}
	return text(r, answer+": "+action), nil
}

// parseElicitResult reads the user's answer to confirm's elicitation:
// "confirmed", "not confirmed", "declined" or "cancelled", or "" for an
// accepted form without the field "confirmed" (to be asked again).
func parseElicitResult(raw json.RawMessage) (string, error) {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil || m == nil {
		return "", errors.New("not an ElicitResult object")
	}
	action, _ := stringOf(m["action"])
	switch action {
	case "decline":
		return "declined", nil
	case "cancel":
		return "cancelled", nil
	case "accept":
	default:
		return "", errors.New(`its action is not "accept", "decline" or "cancel"`)
	}
	var c map[string]json.RawMessage
	if raw, ok := m["content"]; ok && (json.Unmarshal(raw, &c) != nil || c == nil) {
		return "", errors.New("its content is not an object")
	}
	switch v := string(c["confirmed"]); v {
	case "true":
		return "confirmed", nil
	case "false":
		return "not confirmed", nil
	case "":
		return "", nil
	}
	return "", errors.New("its content.confirmed is not a boolean")
}

// state is what a requestState of confirm holds.
type state struct {
	Tool    string `json:"tool"`
	Action  string `json:"action"`
	Expires int64  `json:"exp"` // Unix seconds
}

// signState returns the requestState of a call of confirm for action: the
// state as base64url JSON, a dot, and its HMAC-SHA256 under the process's
// key.
func (s *server) signState(action string) string {
	b, _ := json.Marshal(state{Tool: "confirm", Action: action, Expires: time.Now().Add(stateTTL).Unix()})
	body := base64.RawURLEncoding.EncodeToString(b)
	return body + "." + base64.RawURLEncoding.EncodeToString(s.mac(body))
}

func (s *server) mac(body string) []byte {
	h := hmac.New(sha256.New, s.key)
	h.Write([]byte(body))
	return h.Sum(nil)
}

// verifyState checks a requestState the client echoed: signed by this
// process, not expired, and for a call of confirm for action.
func (s *server) verifyState(rs, action string) error {
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
