package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/openrpc"
)

// A Tool is a tool as tools/list describes it.
type Tool struct {
	Name        string          `json:"name"`
	Title       string          `json:"title,omitempty"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"inputSchema"`
	// OutputSchema, when set, is the schema of the tool's
	// structuredContent.
	OutputSchema json.RawMessage  `json:"outputSchema,omitempty"`
	Annotations  *ToolAnnotations `json:"annotations,omitempty"`
	Meta         map[string]any   `json:"_meta,omitempty"`
}

// ToolAnnotations are hints about a tool's behaviour, for clients; no
// client may rely on them for safety.
type ToolAnnotations struct {
	Title           string `json:"title,omitempty"`
	ReadOnlyHint    *bool  `json:"readOnlyHint,omitempty"`
	DestructiveHint *bool  `json:"destructiveHint,omitempty"`
	IdempotentHint  *bool  `json:"idempotentHint,omitempty"`
	OpenWorldHint   *bool  `json:"openWorldHint,omitempty"`
}

// A ToolOption sets a field of a Tool that AddTool registers. Later
// options win.
type ToolOption func(*Tool)

// Description sets the tool's description, which the model reads to
// decide when to call it.
func Description(text string) ToolOption { return func(t *Tool) { t.Description = text } }

// Title sets the tool's title, its name for people.
func Title(title string) ToolOption { return func(t *Tool) { t.Title = title } }

// Annotations sets the tool's annotations.
func Annotations(a ToolAnnotations) ToolOption { return func(t *Tool) { t.Annotations = &a } }

// InputSchema sets the tool's input schema to schema, a JSON Schema
// object, passed through whole in place of the one inferred from the
// tool's input type: for what Go types do not say (JSON Schema 2020-12's
// allOf, if/then/else, $anchor, formats, bounds). Its "required" members
// are checked before the tool runs.
func InputSchema(schema json.RawMessage) ToolOption {
	return func(t *Tool) { t.InputSchema = schema }
}

// OutputSchema sets the tool's output schema to schema, passed through
// whole in place of the one inferred from the tool's output type.
func OutputSchema(schema json.RawMessage) ToolOption {
	return func(t *Tool) { t.OutputSchema = schema }
}

// An ArgumentError reports a tool's arguments that do not fit it. Under
// 2025-06-18 it is answered as a protocol error (-32602); from
// 2025-11-25 on, as a tool's error (isError), which the model sees and
// can correct. AddTool reports arguments that its input type or its
// schema refuse with one; a tool returns one with InvalidArguments.
type ArgumentError struct {
	Tool string // the tool's name
	Msg  string
}

func (e *ArgumentError) Error() string { return e.Tool + ": invalid arguments: " + e.Msg }

// InvalidArguments returns an ArgumentError, for a tool whose arguments
// fit its input type but not what it does with them (a number out of its
// range). The tool's name is filled in.
func InvalidArguments(format string, args ...any) error {
	return &ArgumentError{Msg: fmt.Sprintf(format, args...)}
}

// A tool is a registered tool: its description, and its call.
type tool struct {
	Tool
	call func(ctx context.Context, args json.RawMessage) (*Result, error)
}

var (
	rawType     = reflect.TypeFor[json.RawMessage]()
	resultType  = reflect.TypeFor[*Result]()
	resultValue = reflect.TypeFor[Result]()
	contentType = reflect.TypeFor[Content]()
	contentList = reflect.TypeFor[[]Content]()
	stringType  = reflect.TypeFor[string]()
)

// AddTool registers fn as the tool name, for tools/list and tools/call.
// It panics, as init code should, for a name that is not a valid tool
// name (1 to 128 letters, digits, '_', '-' or '.'), a name registered
// already, or an input type that is not an object.
//
// The tool's input schema is inferred from In, as package openrpc infers
// a param's (openrpc.SchemaOf: json tags name the properties, a field
// without omitempty or omitzero is required, a tag description:"..."
// describes it), unless InputSchema gives one. In is a struct (or a
// pointer to one), a map with string keys, or json.RawMessage (the
// arguments as sent, whose schema should be given: {"type": "object"}
// otherwise). The arguments are decoded into In (members it does not name
// are ignored) and checked for the required members: arguments that do
// not fit are an ArgumentError.
//
// What fn returns becomes the tool's result:
//
//   - a *Result or a Result, as it is;
//   - a string, one text content; a Content, or a []Content, the content;
//   - any other value, its JSON: as structuredContent too when it is an
//     object (a struct, a pointer to one, a map), with the output schema
//     inferred from Out unless OutputSchema gives one, and as one text
//     content, for clients that do not read structured content.
//
// An error fn returns is answered as the tool's error (a result with
// isError, its text the error's), which the model sees, except:
//
//   - an ArgumentError (InvalidArguments), answered as above;
//   - a *jsonrpc.Error (errors.As finds it), answered as a protocol
//     error with its code;
//   - the error of the call's context once it ended: the client
//     cancelled the call, which then gets no answer, or the input ended.
//
// fn runs on a goroutine of its own (jsonrpc.Blocking), so that it may
// wait, report progress (progress.Of(ctx).Report with an mcp.Progress)
// and log (Log), and its context is cancelled when the client cancels the
// call. RequestOf(ctx) gives the request's revision, _meta and client
// capabilities.
func AddTool[In, Out any](s *Server, name string, fn func(ctx context.Context, in In) (Out, error), opts ...ToolOption) {
	if !validToolName(name) {
		panic(fmt.Sprintf("mcpserver: %q is not a valid tool name: 1 to 128 letters, digits, '_', '-' or '.'", name))
	}
	if fn == nil {
		panic("mcpserver: nil function for tool " + name)
	}
	t := &tool{Tool: Tool{Name: name}}
	for _, o := range opts {
		o(&t.Tool)
	}
	in := reflect.TypeFor[In]()
	required, err := inputSchema(&t.Tool, in)
	if err != nil {
		panic("mcpserver: tool " + name + ": " + err.Error())
	}
	out := reflect.TypeFor[Out]()
	structured := isObject(out) && out != resultType && out != resultValue && out != contentType
	if t.OutputSchema == nil && structured && out.Kind() != reflect.Interface {
		t.OutputSchema = mustSchema(out)
	}
	t.call = func(ctx context.Context, args json.RawMessage) (*Result, error) {
		var v In
		if err := decodeArguments(args, &v, required); err != nil {
			return nil, &ArgumentError{Tool: name, Msg: err.Error()}
		}
		o, err := fn(ctx, v)
		if err != nil {
			var ae *ArgumentError
			if errors.As(err, &ae) && ae.Tool == "" {
				ae.Tool = name
			}
			return nil, err
		}
		return resultOf(o)
	}
	s.register(func(reg *registry) {
		if reg.toolIndex[name] != nil {
			panic("mcpserver: the tool " + name + " is registered already")
		}
		reg.tools = append(reg.tools, t)
		reg.toolIndex[name] = t
	})
}

// validToolName reports whether name is a tool name MCP 2025-11-25 asks
// for: 1 to 128 letters, digits, '_', '-' or '.'.
func validToolName(name string) bool {
	if name == "" || len(name) > 128 {
		return false
	}
	for _, c := range name {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

// isObject reports whether the JSON of values of t is an object.
func isObject(t reflect.Type) bool {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() == reflect.Map {
		return t.Key().Kind() == reflect.String
	}
	return t.Kind() == reflect.Struct && !t.Implements(reflect.TypeFor[json.Marshaler]())
}

// mustSchema returns the JSON of t's schema, as an object's: without the
// null a map's has.
func mustSchema(t reflect.Type) json.RawMessage {
	s := openrpc.SchemaOf(t)
	if t.Kind() == reflect.Map || t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.Map {
		s.Type = openrpc.Types{"object"}
	}
	b, err := json.Marshal(s)
	if err != nil {
		panic(err) // the generator's schemas always encode
	}
	return b
}

// inputSchema sets t's input schema from in, unless it is set, and
// returns the required members.
func inputSchema(t *Tool, in reflect.Type) ([]string, error) {
	if t.InputSchema != nil {
		var s struct {
			Type     any      `json:"type"`
			Required []string `json:"required"`
		}
		if err := json.Unmarshal(t.InputSchema, &s); err != nil {
			return nil, fmt.Errorf("its input schema is not a JSON Schema object: %w", err)
		}
		if s.Type != "object" {
			return nil, errors.New(`its input schema's type must be "object"`)
		}
		return s.Required, nil
	}
	switch {
	case in == rawType || in.Kind() == reflect.Interface:
		t.InputSchema = json.RawMessage(`{"type":"object"}`)
		return nil, nil
	case !isObject(in):
		return nil, fmt.Errorf("its input type %s is not an object: use a struct, a map or json.RawMessage", in)
	}
	t.InputSchema = mustSchema(in)
	if in.Kind() == reflect.Map {
		return nil, nil
	}
	return openrpc.SchemaOf(in).Required, nil
}

// decodeArguments decodes the arguments args (an object, null or absent)
// into v, and checks that they hold the required members.
func decodeArguments(args json.RawMessage, v any, required []string) error {
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage("{}")
	}
	if len(required) > 0 {
		var members map[string]json.RawMessage
		if err := json.Unmarshal(args, &members); err != nil {
			return errors.New("not an object")
		}
		var missing []string
		for _, r := range required {
			if _, ok := members[r]; !ok {
				missing = append(missing, fmt.Sprintf("%q", r))
			}
		}
		if missing != nil {
			return fmt.Errorf("missing required argument %s", strings.Join(missing, ", "))
		}
	}
	if rm, ok := v.(*json.RawMessage); ok {
		*rm = append((*rm)[:0], args...)
		return nil
	}
	d := json.NewDecoder(bytes.NewReader(args))
	if err := d.Decode(v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			if te.Field == "" {
				return fmt.Errorf("%s where %s is wanted", te.Value, kindOf(te.Type))
			}
			return fmt.Errorf("argument %q: %s where %s is wanted", te.Field, te.Value, kindOf(te.Type))
		}
		return err
	}
	return nil
}

// kindOf names the JSON of values of t, for an error.
func kindOf(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return t.String()
}

// resultOf makes the result of a tool that returned v.
func resultOf(v any) (*Result, error) {
	switch o := v.(type) {
	case *Result:
		if o == nil {
			return &Result{}, nil
		}
		return o, nil
	case Result:
		return &o, nil
	case string:
		return &Result{Content: []Content{Text(o)}}, nil
	case Content:
		return &Result{Content: []Content{o}}, nil
	case []Content:
		return &Result{Content: o}, nil
	case nil:
		return &Result{}, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "").WithData("the tool's result cannot be encoded: " + err.Error())
	}
	res := &Result{Content: []Content{Text(string(b))}}
	if len(b) > 0 && b[0] == '{' {
		res.StructuredContent = json.RawMessage(b)
	}
	return res, nil
}

type callToolParams struct {
	Name      *string         `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// callTool is tools/call.
func (s *Server) callTool(ctx context.Context, p callToolParams) (json.RawMessage, error) {
	r := RequestOf(ctx)
	if p.Name == nil {
		return nil, invalidParams("tools/call: name is required")
	}
	if len(p.Arguments) > 0 && p.Arguments[0] != '{' && string(p.Arguments) != "null" {
		return nil, invalidParams("tools/call: arguments must be an object")
	}
	t := s.reg.Load().toolIndex[*p.Name]
	if t == nil {
		return nil, invalidParams("Unknown tool: %s", *p.Name)
	}
	res, err := t.call(ctx, p.Arguments)
	if err != nil {
		var ae *ArgumentError
		var je *jsonrpc.Error
		switch {
		case ctx.Err() != nil && errors.Is(err, ctx.Err()):
			return nil, err // cancelled: no answer; or ended
		case errors.As(err, &ae):
			if !r.AtLeast(Version20251125) {
				return nil, invalidParams("%s", ae.Error())
			}
			res = &Result{Content: []Content{Text(ae.Error())}, IsError: true}
		case errors.As(err, &je):
			return nil, je
		default:
			res = &Result{Content: []Content{Text(err.Error())}, IsError: true}
		}
	}
	return res.encode(r)
}

type listToolsResult struct {
	resultFields
	Tools []*Tool `json:"tools"`
	cacheFields
}

// listTools is tools/list, in the order of registration.
func (s *Server) listTools(ctx context.Context, _ struct{}) listToolsResult {
	r := RequestOf(ctx)
	reg := s.reg.Load()
	tools := make([]*Tool, len(reg.tools))
	for i, t := range reg.tools {
		tools[i] = &t.Tool
	}
	return listToolsResult{resultFields: r.complete(), Tools: tools, cacheFields: r.cache(s.ttl())}
}
