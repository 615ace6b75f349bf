package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/jsonrpc-go/jsonrpc/peer"
	"github.com/jsonrpc-go/jsonrpc/protocol/mcp"
	"github.com/jsonrpc-go/jsonrpc/protocol/progress"
	"github.com/jsonrpc-go/jsonrpc/streamhttp"
)

// The tools, resources and prompts below are those the official MCP
// conformance suite (@modelcontextprotocol/conformance) calls by name in
// its server scenarios, each answering what its scenario asks for.

// redPixel is a 1×1 red PNG, and silence a WAV of one silent sample, for
// the image and audio contents.
var (
	redPixel = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
	silence  = base64.StdEncoding.EncodeToString([]byte("RIFF\x26\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x01\x00\x01\x00\x40\x1f\x00\x00\x80\x3e\x00\x00\x02\x00\x10\x00data\x02\x00\x00\x00\x00\x00"))
)

type (
	imageContent struct {
		Type     string `json:"type"` // "image" or "audio"
		Data     string `json:"data"`
		MIMEType string `json:"mimeType"`
	}
	embeddedResource struct {
		Type     string           `json:"type"` // "resource"
		Resource resourceContents `json:"resource"`
	}
)

// noArgs is the input schema of a tool without arguments.
var noArgs = json.RawMessage(`{"type":"object","properties":{}}`)

// suiteTools are the conformance suite's tools, after this server's own.
var suiteTools = []tool{
	{Name: "test_simple_text", Description: "Answers a simple text.", InputSchema: noArgs},
	{Name: "test_image_content", Description: "Answers an image.", InputSchema: noArgs},
	{Name: "test_audio_content", Description: "Answers a sound.", InputSchema: noArgs},
	{Name: "test_embedded_resource", Description: "Answers an embedded resource.", InputSchema: noArgs},
	{Name: "test_multiple_content_types", Description: "Answers a text, an image and a resource.", InputSchema: noArgs},
	{Name: "test_tool_with_logging", Description: "Logs three messages as it runs.", InputSchema: noArgs},
	{Name: "test_error_handling", Description: "Always fails, with a tool error.", InputSchema: noArgs},
	{Name: "test_tool_with_progress", Description: "Reports its progress three times.", InputSchema: noArgs},
	{Name: "test_sampling", Description: "Asks the client's model to complete a prompt.", InputSchema: json.RawMessage(`{"type":"object","properties":{"prompt":{"type":"string","description":"The prompt to send to the model."}},"required":["prompt"]}`)},
	{Name: "test_elicitation", Description: "Asks the user for a name and an email address.", InputSchema: json.RawMessage(`{"type":"object","properties":{"message":{"type":"string","description":"The message to show the user."}},"required":["message"]}`)},
	{Name: "test_elicitation_sep1034_defaults", Description: "Asks the user for values that have defaults.", InputSchema: noArgs},
	{Name: "test_elicitation_sep1330_enums", Description: "Asks the user to choose, in each of the enum forms.", InputSchema: noArgs},
	{Name: "json_schema_2020_12_tool", Description: "Tool with JSON Schema 2020-12 features", InputSchema: json.RawMessage(`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","$defs":{"address":{"type":"object","properties":{"street":{"type":"string"},"city":{"type":"string"}}}},"properties":{"name":{"type":"string"},"address":{"$ref":"#/$defs/address"}},"additionalProperties":false}`)},
	{Name: "test_reconnection", Description: "Closes its event stream before it answers, for the client to resume it.", InputSchema: noArgs},
}

// The schemas of the elicitations of the suite's tools.
var (
	elicitUserSchema = json.RawMessage(`{"type":"object","properties":{"username":{"type":"string","description":"User's response"},"email":{"type":"string","description":"User's email address"}},"required":["username","email"]}`)
	defaultsSchema   = json.RawMessage(`{"type":"object","properties":{"name":{"type":"string","description":"User name","default":"John Doe"},"age":{"type":"integer","description":"User age","default":30},"score":{"type":"number","description":"User score","default":95.5},"status":{"type":"string","description":"User status","enum":["active","inactive","pending"],"default":"active"},"verified":{"type":"boolean","description":"Verification status","default":true}}}`)
	enumsSchema      = json.RawMessage(`{"type":"object","properties":{` +
		`"untitledSingle":{"type":"string","description":"Pick one","enum":["option1","option2","option3"]},` +
		`"titledSingle":{"type":"string","description":"Pick one","oneOf":[{"const":"value1","title":"First Option"},{"const":"value2","title":"Second Option"},{"const":"value3","title":"Third Option"}]},` +
		`"legacyEnum":{"type":"string","description":"Pick one","enum":["opt1","opt2","opt3"],"enumNames":["Option One","Option Two","Option Three"]},` +
		`"untitledMulti":{"type":"array","description":"Pick some","items":{"type":"string","enum":["option1","option2","option3"]}},` +
		`"titledMulti":{"type":"array","description":"Pick some","items":{"anyOf":[{"const":"value1","title":"First Choice"},{"const":"value2","title":"Second Choice"},{"const":"value3","title":"Third Choice"}]}}` +
		`}}`)
)

// suiteTool answers a call of one of the suite's tools, and reports
// whether name is one.
func (s *server) suiteTool(ctx context.Context, r *request, name string, args json.RawMessage) (any, error, bool) {
	switch name {
	case "test_simple_text":
		return text(r, "This is a simple text response for testing."), nil, true
	case "test_image_content":
		return &callToolResult{resultFields: r.complete(), Content: []any{imageContent{"image", redPixel, "image/png"}}}, nil, true
	case "test_audio_content":
		return &callToolResult{resultFields: r.complete(), Content: []any{imageContent{"audio", silence, "audio/wav"}}}, nil, true
	case "test_embedded_resource":
		return &callToolResult{resultFields: r.complete(), Content: []any{embeddedResource{"resource", resourceContents{URI: "test://embedded-resource", MIMEType: "text/plain", Text: "This is an embedded resource content."}}}}, nil, true
	case "test_multiple_content_types":
		return &callToolResult{resultFields: r.complete(), Content: []any{
			content{Type: "text", Text: "Multiple content types test:"},
			imageContent{"image", redPixel, "image/png"},
			embeddedResource{"resource", resourceContents{URI: "test://mixed-content-resource", MIMEType: "application/json", Text: `{"test":"data","value":123}`}},
		}}, nil, true
	case "test_tool_with_logging":
		for i, msg := range []string{"Tool execution started", "Tool processing data", "Tool execution completed"} {
			if i > 0 && pause(ctx, 50*time.Millisecond) != nil {
				return nil, ctx.Err(), true
			}
			s.log(ctx, "info", msg)
		}
		return text(r, "Tool with logging executed successfully"), nil, true
	case "test_error_handling":
		return &callToolResult{resultFields: r.complete(), Content: []any{content{Type: "text", Text: "This tool intentionally returns an error for testing"}}, IsError: true}, nil, true
	case "test_tool_with_progress":
		p := progress.Of(ctx) // nil without a progressToken: it reports nothing
		for i, v := range []float64{0, 50, 100} {
			if i > 0 && pause(ctx, 50*time.Millisecond) != nil {
				return nil, ctx.Err(), true
			}
			p.Report(ctx, mcp.Progress{Progress: v, Total: 100})
		}
		return text(r, "Tool with progress executed successfully"), nil, true
	case "test_sampling":
		var a struct {
			Prompt *string `json:"prompt"`
		}
		if json.Unmarshal(args, &a) != nil || a.Prompt == nil {
			res, err := badArguments(r, `test_sampling: the arguments must be {"prompt": string}`)
			return res, err, true
		}
		res, err := s.askClient(ctx, r, r.caps.sampling, "sampling/createMessage", map[string]any{
			"messages":  []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": *a.Prompt}}},
			"maxTokens": 100,
		}, func(raw json.RawMessage) string {
			var m struct {
				Content struct{ Text string } `json:"content"`
			}
			json.Unmarshal(raw, &m)
			return "LLM response: " + m.Content.Text
		})
		return res, err, true
	case "test_elicitation", "test_elicitation_sep1034_defaults", "test_elicitation_sep1330_enums":
		message, schema, prefix := "Please provide your information", elicitUserSchema, "User response: "
		switch name {
		case "test_elicitation":
			var a struct {
				Message *string `json:"message"`
			}
			if json.Unmarshal(args, &a) != nil || a.Message == nil {
				res, err := badArguments(r, `test_elicitation: the arguments must be {"message": string}`)
				return res, err, true
			}
			message = *a.Message
		case "test_elicitation_sep1034_defaults":
			message, schema, prefix = "Test client default value handling - please accept with defaults", defaultsSchema, "Elicitation completed: "
		default:
			message, schema, prefix = "Test enum schema forms - please choose", enumsSchema, "Elicitation completed: "
		}
		params := elicitRequest{Message: message, RequestedSchema: schema}
		if r.atLeast(version20251125) {
			params.Mode = "form"
		}
		res, err := s.askClient(ctx, r, r.caps.formElicitation(), "elicitation/create", params, func(raw json.RawMessage) string {
			var m struct {
				Action  string          `json:"action"`
				Content json.RawMessage `json:"content"`
			}
			json.Unmarshal(raw, &m)
			if len(m.Content) == 0 {
				m.Content = json.RawMessage("{}")
			}
			return fmt.Sprintf("%saction=%s, content=%s", prefix, m.Action, m.Content)
		})
		return res, err, true
	case "json_schema_2020_12_tool":
		return text(r, "json_schema_2020_12_tool called"), nil, true
	case "test_reconnection":
		// Over Streamable HTTP, in a session: end the connection of the
		// call's stream now; the answer waits in the stream for the
		// client to resume it.
		streamhttp.CloseStream(ctx)
		if pause(ctx, 100*time.Millisecond) != nil {
			return nil, ctx.Err(), true
		}
		return text(r, "Reconnection test completed successfully"), nil, true
	}
	return nil, nil, false
}

// askClient sends the client a request, which it must have declared the
// capability for, and answers a tool result made of its answer by answer;
// 2026-07-28 has no requests to the client, so the tool answers a tool
// error then (confirm shows the input-required round trip instead).
func (s *server) askClient(ctx context.Context, r *request, declared bool, method string, params any, answer func(json.RawMessage) string) (any, error) {
	toolError := func(msg string) (any, error) {
		return &callToolResult{resultFields: r.complete(), Content: []any{content{Type: "text", Text: msg}}, IsError: true}, nil
	}
	if r.modern {
		return toolError(method + " is a request to the client, which MCP " + version20260728 + " does not make: see the tool confirm")
	}
	if !declared {
		return toolError("this tool needs a client that declares the capability for " + method)
	}
	var raw json.RawMessage
	if err := peer.FromContext(ctx).Call(ctx, method, params, &raw); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return toolError(method + " failed: " + err.Error())
	}
	return text(r, answer(raw)), nil
}

// pause waits for d, or until ctx ends.
func pause(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// The log levels of MCP, least severe first (logging/setLevel).
var logLevels = []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

func levelOf(name string) int {
	for i, l := range logLevels {
		if l == name {
			return i
		}
	}
	return -1
}

// log sends the caller a notifications/message at level, unless its
// session asked for more severe ones only (logging/setLevel).
func (s *server) log(ctx context.Context, level, msg string) {
	least := 0
	if ss := s.sessionOf(ctx, false); ss != nil && !requestOf(ctx).modern {
		ss.mu.Lock()
		least = ss.logLevel
		ss.mu.Unlock()
	}
	if levelOf(level) < least {
		return
	}
	if c := peer.FromContext(ctx); c != nil {
		c.Notify(ctx, "notifications/message", map[string]any{"level": level, "logger": "mcpserver", "data": msg})
	}
}

// setLevel is logging/setLevel (before 2026-07-28).
func (s *server) setLevel(ctx context.Context, p struct {
	Level *string `json:"level"`
}) (emptyResult, error) {
	if p.Level == nil || levelOf(*p.Level) < 0 {
		return emptyResult{}, invalidParams("logging/setLevel: level must be one of %s", strings.Join(logLevels, ", "))
	}
	ss := s.sessionOf(ctx, true)
	ss.mu.Lock()
	ss.logLevel = levelOf(*p.Level)
	ss.mu.Unlock()
	return emptyResult{}, nil
}

type (
	promptArgument struct {
		Name        string `json:"name"`
		Description string `json:"description"`
		Required    bool   `json:"required"`
	}
	prompt struct {
		Name        string           `json:"name"`
		Description string           `json:"description"`
		Arguments   []promptArgument `json:"arguments,omitempty"`
	}
	listPromptsResult struct {
		resultFields
		Prompts []prompt `json:"prompts"`
		cacheFields
	}
	promptMessage struct {
		Role    string `json:"role"`
		Content any    `json:"content"`
	}
	getPromptResult struct {
		resultFields
		Description string          `json:"description,omitempty"`
		Messages    []promptMessage `json:"messages"`
	}
)

// prompts are those of prompts/list.
var prompts = []prompt{
	{Name: "test_simple_prompt", Description: "A simple prompt without arguments."},
	{Name: "test_prompt_with_arguments", Description: "A prompt with two arguments.", Arguments: []promptArgument{
		{Name: "arg1", Description: "First test argument", Required: true},
		{Name: "arg2", Description: "Second test argument", Required: true},
	}},
	{Name: "test_prompt_with_embedded_resource", Description: "A prompt that embeds a resource.", Arguments: []promptArgument{
		{Name: "resourceUri", Description: "URI of the resource to embed", Required: true},
	}},
	{Name: "test_prompt_with_image", Description: "A prompt with an image."},
}

func (s *server) listPrompts(ctx context.Context, _ struct{}) listPromptsResult {
	r := requestOf(ctx)
	return listPromptsResult{resultFields: r.complete(), Prompts: prompts, cacheFields: r.cache(discoverTTL)}
}

func (s *server) getPrompt(ctx context.Context, p struct {
	Name      *string           `json:"name"`
	Arguments map[string]string `json:"arguments"`
}) (*getPromptResult, error) {
	r := requestOf(ctx)
	if p.Name == nil {
		return nil, invalidParams("prompts/get: name is required")
	}
	user := func(c any) promptMessage { return promptMessage{Role: "user", Content: c} }
	need := func(names ...string) error {
		for _, n := range names {
			if _, ok := p.Arguments[n]; !ok {
				return invalidParams("prompts/get %s: the argument %s is required", *p.Name, n)
			}
		}
		return nil
	}
	res := &getPromptResult{resultFields: r.complete()}
	switch *p.Name {
	case "test_simple_prompt":
		res.Messages = []promptMessage{user(content{Type: "text", Text: "This is a simple prompt for testing."})}
	case "test_prompt_with_arguments":
		if err := need("arg1", "arg2"); err != nil {
			return nil, err
		}
		res.Messages = []promptMessage{user(content{Type: "text", Text: fmt.Sprintf("Prompt with arguments: arg1='%s', arg2='%s'", p.Arguments["arg1"], p.Arguments["arg2"])})}
	case "test_prompt_with_embedded_resource":
		if err := need("resourceUri"); err != nil {
			return nil, err
		}
		res.Messages = []promptMessage{
			user(embeddedResource{"resource", resourceContents{URI: p.Arguments["resourceUri"], MIMEType: "text/plain", Text: "Embedded resource content for testing."}}),
			user(content{Type: "text", Text: "Please process the embedded resource above."}),
		}
	case "test_prompt_with_image":
		res.Messages = []promptMessage{
			user(imageContent{"image", redPixel, "image/png"}),
			user(content{Type: "text", Text: "Please analyze the image above."}),
		}
	default:
		return nil, invalidParams("Unknown prompt: %s", *p.Name)
	}
	return res, nil
}

// completions are the values completion/complete offers for an argument,
// by its name; a value is offered when it begins with what the user typed.
var completions = map[string][]string{
	"arg1":        {"paris", "park", "party", "test", "testValue1"},
	"arg2":        {"world", "testValue2"},
	"resourceUri": {"test://example-resource", "test://static-text"},
	"id":          {"123", "456"},
}

type completeResult struct {
	resultFields
	Completion struct {
		Values  []string `json:"values"`
		Total   int      `json:"total"`
		HasMore bool     `json:"hasMore"`
	} `json:"completion"`
}

func (s *server) complete(ctx context.Context, p struct {
	Ref *struct {
		Type string `json:"type"`
		Name string `json:"name"`
		URI  string `json:"uri"`
	} `json:"ref"`
	Argument *struct {
		Name  string `json:"name"`
		Value string `json:"value"`
	} `json:"argument"`
}) (*completeResult, error) {
	if p.Ref == nil || p.Argument == nil {
		return nil, invalidParams("completion/complete: ref and argument are required")
	}
	switch {
	case p.Ref.Type == "ref/prompt" && p.Ref.Name != "":
	case p.Ref.Type == "ref/resource" && p.Ref.URI != "":
	default:
		return nil, invalidParams(`completion/complete: ref must be {"type": "ref/prompt", "name"} or {"type": "ref/resource", "uri"}`)
	}
	res := &completeResult{resultFields: requestOf(ctx).complete()}
	res.Completion.Values = []string{}
	for _, v := range completions[p.Argument.Name] {
		if strings.HasPrefix(v, p.Argument.Value) {
			res.Completion.Values = append(res.Completion.Values, v)
		}
	}
	res.Completion.Total = len(res.Completion.Values)
	return res, nil
}
