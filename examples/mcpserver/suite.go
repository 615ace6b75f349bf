package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/mcpserver"
	"github.com/jsonrpc-go/jsonrpc/peer"
	"github.com/jsonrpc-go/jsonrpc/protocol/mcp"
	"github.com/jsonrpc-go/jsonrpc/protocol/progress"
	"github.com/jsonrpc-go/jsonrpc/streamhttp"
)

// The tools, resources and prompts below are those the official MCP
// conformance suite (@modelcontextprotocol/conformance) calls by name in
// its server scenarios, each answering what its scenario asks for.

// redPixel is a 1×1 red PNG, and silence a WAV of one silent sample.
var (
	redPixel, _ = base64.StdEncoding.DecodeString("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==")
	silence     = []byte("RIFF\x26\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x01\x00\x01\x00\x40\x1f\x00\x00\x80\x3e\x00\x00\x02\x00\x10\x00data\x02\x00\x00\x00\x00\x00")
)

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
	schema202012 = json.RawMessage(`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object",` +
		`"$defs":{"address":{"$anchor":"address","type":"object","properties":{"street":{"type":"string"},"city":{"type":"string"}}}},` +
		`"properties":{"name":{"type":"string"},"address":{"$ref":"#/$defs/address"},"country":{"type":"string"}},` +
		`"allOf":[{"anyOf":[{"required":["name"]},{"required":["address"]},{"not":{"required":["country"]}}]}],` +
		`"if":{"properties":{"country":{"const":"FR"}},"required":["country"]},"then":{"required":["address"]},"else":{},` +
		`"additionalProperties":false}`)
)

type none = struct{}

// answer returns a tool of no arguments that answers r.
func answer(r *mcpserver.Result) func(context.Context, none) (*mcpserver.Result, error) {
	return func(context.Context, none) (*mcpserver.Result, error) { return r, nil }
}

func content(c ...mcpserver.Content) *mcpserver.Result { return &mcpserver.Result{Content: c} }

// addSuite registers the suite's tools, resources, prompts and
// completions.
func addSuite(s *mcpserver.Server) {
	text := mcpserver.Text
	mcpserver.AddTool(s, "test_simple_text", answer(content(text("This is a simple text response for testing."))), mcpserver.Description("Answers a simple text."))
	mcpserver.AddTool(s, "test_image_content", answer(content(mcpserver.Image(redPixel, "image/png"))), mcpserver.Description("Answers an image."))
	mcpserver.AddTool(s, "test_audio_content", answer(content(mcpserver.Audio(silence, "audio/wav"))), mcpserver.Description("Answers a sound."))
	mcpserver.AddTool(s, "test_embedded_resource", answer(content(mcpserver.Embedded(mcpserver.ResourceContents{URI: "test://embedded-resource", MIMEType: "text/plain", Text: "This is an embedded resource content."}))), mcpserver.Description("Answers an embedded resource."))
	mcpserver.AddTool(s, "test_multiple_content_types", answer(content(
		text("Multiple content types test:"),
		mcpserver.Image(redPixel, "image/png"),
		mcpserver.Embedded(mcpserver.ResourceContents{URI: "test://mixed-content-resource", MIMEType: "application/json", Text: `{"test":"data","value":123}`}),
	)), mcpserver.Description("Answers a text, an image and a resource."))
	mcpserver.AddTool(s, "test_tool_with_logging", func(ctx context.Context, _ none) (string, error) {
		for i, msg := range []string{"Tool execution started", "Tool processing data", "Tool execution completed"} {
			if i > 0 && pause(ctx, 50*time.Millisecond) != nil {
				return "", ctx.Err()
			}
			mcpserver.Log(ctx, mcpserver.LevelInfo, msg)
		}
		return "Tool with logging executed successfully", nil
	}, mcpserver.Description("Logs three messages as it runs."))
	mcpserver.AddTool(s, "test_error_handling", answer(&mcpserver.Result{Content: []mcpserver.Content{text("This tool intentionally returns an error for testing")}, IsError: true}), mcpserver.Description("Always fails, with a tool error."))
	mcpserver.AddTool(s, "test_tool_with_progress", func(ctx context.Context, _ none) (string, error) {
		p := progress.Of(ctx) // nil without a progressToken: it reports nothing
		for i, v := range []float64{0, 50, 100} {
			if i > 0 && pause(ctx, 50*time.Millisecond) != nil {
				return "", ctx.Err()
			}
			p.Report(ctx, mcp.Progress{Progress: v, Total: 100})
		}
		return "Tool with progress executed successfully", nil
	}, mcpserver.Description("Reports its progress three times."))
	mcpserver.AddTool(s, "test_sampling", func(ctx context.Context, in struct {
		Prompt string `json:"prompt" description:"The prompt to send to the model."`
	}) (*mcpserver.Result, error) {
		params := map[string]any{
			"messages":  []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": in.Prompt}}},
			"maxTokens": 100,
		}
		return askClient(ctx, "sampling", "sampling/createMessage", params, func(raw json.RawMessage) string {
			var m struct {
				Content struct{ Text string } `json:"content"`
			}
			json.Unmarshal(raw, &m)
			return "LLM response: " + m.Content.Text
		})
	}, mcpserver.Description("Asks the client's model to complete a prompt."))
	elicit := func(ctx context.Context, message string, schema json.RawMessage, prefix string) (*mcpserver.Result, error) {
		params := map[string]any{"message": message, "requestedSchema": schema}
		if mcpserver.RequestOf(ctx).AtLeast(mcpserver.Version20251125) {
			params["mode"] = "form"
		}
		return askClient(ctx, "elicitation", "elicitation/create", params, func(raw json.RawMessage) string {
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
	}
	mcpserver.AddTool(s, "test_elicitation", func(ctx context.Context, in struct {
		Message string `json:"message" description:"The message to show the user."`
	}) (*mcpserver.Result, error) {
		return elicit(ctx, in.Message, elicitUserSchema, "User response: ")
	}, mcpserver.Description("Asks the user for a name and an email address."))
	mcpserver.AddTool(s, "test_elicitation_sep1034_defaults", func(ctx context.Context, _ none) (*mcpserver.Result, error) {
		return elicit(ctx, "Test client default value handling - please accept with defaults", defaultsSchema, "Elicitation completed: ")
	}, mcpserver.Description("Asks the user for values that have defaults."))
	mcpserver.AddTool(s, "test_elicitation_sep1330_enums", func(ctx context.Context, _ none) (*mcpserver.Result, error) {
		return elicit(ctx, "Test enum schema forms - please choose", enumsSchema, "Elicitation completed: ")
	}, mcpserver.Description("Asks the user to choose, in each of the enum forms."))
	mcpserver.AddTool(s, "json_schema_2020_12_tool", func(context.Context, json.RawMessage) (string, error) {
		return "json_schema_2020_12_tool called", nil
	}, mcpserver.Description("Tool with JSON Schema 2020-12 features"), mcpserver.InputSchema(schema202012))
	mcpserver.AddTool(s, "test_reconnection", func(ctx context.Context, _ none) (string, error) {
		// Over Streamable HTTP, in a session: end the connection of the
		// call's stream now; the answer waits in the stream for the
		// client to resume it.
		streamhttp.CloseStream(ctx)
		if pause(ctx, 100*time.Millisecond) != nil {
			return "", ctx.Err()
		}
		return "Reconnection test completed successfully", nil
	}, mcpserver.Description("Closes its event stream before it answers, for the client to resume it."))

	// The diagnostic tools of the suite's scenario server-stateless
	// (2026-07-28): one that needs the sampling capability, one that asks
	// the user (input required, never a request on the call's stream), one
	// that logs (only at the level a request's _meta asks for).
	mcpserver.AddTool(s, "test_missing_capability", func(ctx context.Context, _ none) (string, error) {
		if !mcpserver.RequestOf(ctx).Capabilities.Has("sampling") {
			return "", jsonrpc.NewError(mcpserver.CodeMissingCapability, "Missing required client capability").
				WithData(map[string]any{"requiredCapabilities": map[string]any{"sampling": map[string]any{}}})
		}
		return "the client declared sampling", nil
	}, mcpserver.Description("Needs a client that declares sampling."))
	mcpserver.AddTool(s, "test_streaming_elicitation", func(ctx context.Context, _ none) (*mcpserver.Result, error) {
		if mcpserver.RequestOf(ctx).Stateless {
			return &mcpserver.Result{ResultType: "input_required", Extra: map[string]any{
				"inputRequests": map[string]any{"user": map[string]any{"method": "elicitation/create", "params": map[string]any{"mode": "form", "message": "Please provide your information", "requestedSchema": elicitUserSchema}}},
			}}, nil
		}
		return elicit(ctx, "Please provide your information", elicitUserSchema, "User response: ")
	}, mcpserver.Description("Asks the user, as input required under 2026-07-28."))
	mcpserver.AddTool(s, "test_logging_tool", func(ctx context.Context, _ none) (string, error) {
		mcpserver.Log(ctx, mcpserver.LevelInfo, "a message at info")
		return "logged at info", nil
	}, mcpserver.Description("Logs one message at info."))

	static := func(mime, text string, blob []byte) func(context.Context, string) ([]mcpserver.ResourceContents, error) {
		return func(_ context.Context, uri string) ([]mcpserver.ResourceContents, error) {
			return []mcpserver.ResourceContents{{URI: uri, MIMEType: mime, Text: text, Blob: blob}}, nil
		}
	}
	s.AddResource(mcpserver.Resource{URI: "test://static-text", Name: "static-text", Description: "A text that never changes.", MIMEType: "text/plain", TTL: time.Hour},
		static("text/plain", "This is the content of the static text resource.", nil))
	s.AddResource(mcpserver.Resource{URI: "test://static-binary", Name: "static-binary", Description: "A PNG image that never changes.", MIMEType: "image/png", TTL: time.Hour},
		static("image/png", "", redPixel))
	s.AddResource(mcpserver.Resource{URI: "test://watched-resource", Name: "watched-resource", Description: "A resource to subscribe to.", MIMEType: "text/plain"},
		static("text/plain", "A resource to watch.", nil))
	s.AddResourceTemplate(mcpserver.ResourceTemplate{URITemplate: "test://template/{id}/data", Name: "template-data", Description: "The data of an id.", MIMEType: "application/json"},
		func(_ context.Context, uri string, vars map[string]string) ([]mcpserver.ResourceContents, error) {
			b, _ := json.Marshal(map[string]any{"id": vars["id"], "templateTest": true, "data": "Data for ID: " + vars["id"]})
			return []mcpserver.ResourceContents{{URI: uri, MIMEType: "application/json", Text: string(b)}}, nil
		})

	user := func(c mcpserver.Content) mcpserver.PromptMessage {
		return mcpserver.PromptMessage{Role: "user", Content: c}
	}
	prompt := func(msgs ...mcpserver.PromptMessage) *mcpserver.PromptResult {
		return &mcpserver.PromptResult{Messages: msgs}
	}
	s.AddPrompt(mcpserver.Prompt{Name: "test_simple_prompt", Description: "A simple prompt without arguments."},
		func(context.Context, map[string]string) (*mcpserver.PromptResult, error) {
			return prompt(user(text("This is a simple prompt for testing."))), nil
		})
	s.AddPrompt(mcpserver.Prompt{Name: "test_prompt_with_arguments", Description: "A prompt with two arguments.", Arguments: []mcpserver.PromptArgument{
		{Name: "arg1", Description: "First test argument", Required: true},
		{Name: "arg2", Description: "Second test argument", Required: true},
	}}, func(_ context.Context, args map[string]string) (*mcpserver.PromptResult, error) {
		return prompt(user(text(fmt.Sprintf("Prompt with arguments: arg1='%s', arg2='%s'", args["arg1"], args["arg2"])))), nil
	})
	s.AddPrompt(mcpserver.Prompt{Name: "test_prompt_with_embedded_resource", Description: "A prompt that embeds a resource.", Arguments: []mcpserver.PromptArgument{
		{Name: "resourceUri", Description: "URI of the resource to embed", Required: true},
	}}, func(_ context.Context, args map[string]string) (*mcpserver.PromptResult, error) {
		return prompt(
			user(mcpserver.Embedded(mcpserver.ResourceContents{URI: args["resourceUri"], MIMEType: "text/plain", Text: "Embedded resource content for testing."})),
			user(text("Please process the embedded resource above.")),
		), nil
	})
	s.AddPrompt(mcpserver.Prompt{Name: "test_prompt_with_image", Description: "A prompt with an image."},
		func(context.Context, map[string]string) (*mcpserver.PromptResult, error) {
			return prompt(user(mcpserver.Image(redPixel, "image/png")), user(text("Please analyze the image above."))), nil
		})

	// The values completion/complete offers for an argument, by its name.
	completions := map[string][]string{
		"arg1":        {"paris", "park", "party", "test", "testValue1"},
		"arg2":        {"world", "testValue2"},
		"resourceUri": {"test://example-resource", "test://static-text"},
		"id":          {"123", "456"},
	}
	s.HandleCompletion(func(_ context.Context, req *mcpserver.CompleteRequest) (mcpserver.Completion, error) {
		return mcpserver.Complete(req.Argument.Value, completions[req.Argument.Name]...), nil
	})
}

// askClient sends the client a request, which it must have declared the
// capability for, and answers a text made of its answer by answer;
// 2026-07-28 has no requests to the client, so the tool answers a tool
// error then (confirm shows the input-required round trip instead).
func askClient(ctx context.Context, capability, method string, params any, answer func(json.RawMessage) string) (*mcpserver.Result, error) {
	r := mcpserver.RequestOf(ctx)
	declared := r.Capabilities.Has(capability)
	if capability == "elicitation" {
		declared = r.Capabilities.FormElicitation()
	}
	switch {
	case r.Stateless:
		return toolError(method + " is a request to the client, which MCP " + mcpserver.Version20260728 + " does not make: see the tool confirm"), nil
	case !declared:
		return toolError("this tool needs a client that declares the capability for " + method), nil
	}
	var raw json.RawMessage
	if err := peer.FromContext(ctx).Call(ctx, method, params, &raw); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return toolError(method + " failed: " + err.Error()), nil
	}
	return content(mcpserver.Text(answer(raw))), nil
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
