package mcpserver_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/mcpserver"
)

type addArgs struct {
	A int `json:"a" description:"The first addend."`
	B int `json:"b,omitempty"`
}

type sum struct {
	Sum  int    `json:"sum"`
	Note string `json:"note,omitempty"`
}

type place struct {
	Street string `json:"street"`
}

type withDefs struct {
	Home place  `json:"home"`
	Work *place `json:"work,omitempty"`
}

// tools returns a server with a tool of each kind of result.
func tools() *mcpserver.Server {
	s := mcpserver.New("test", "1.0.0", nil)
	mcpserver.AddTool(s, "add", func(_ context.Context, in addArgs) (sum, error) {
		return sum{Sum: in.A + in.B}, nil
	}, mcpserver.Description("Adds."), mcpserver.Title("Add"))
	mcpserver.AddTool(s, "text", func(context.Context, struct{}) (string, error) { return "hi", nil })
	mcpserver.AddTool(s, "image", func(context.Context, struct{}) (mcpserver.Content, error) {
		return mcpserver.Image([]byte{1, 2, 3}, "image/png"), nil
	})
	mcpserver.AddTool(s, "mixed", func(context.Context, struct{}) ([]mcpserver.Content, error) {
		return []mcpserver.Content{
			mcpserver.Audio([]byte{4}, "audio/wav"),
			mcpserver.Embedded(mcpserver.ResourceContents{URI: "test://r", MIMEType: "text/plain", Text: ""}),
			mcpserver.Embedded(mcpserver.ResourceContents{URI: "test://b", Blob: []byte{5}}),
			mcpserver.Link(mcpserver.Resource{URI: "test://l", Name: "l"}),
		}, nil
	})
	mcpserver.AddTool(s, "number", func(context.Context, map[string]int) (int, error) { return 7, nil })
	mcpserver.AddTool(s, "fails", func(context.Context, struct{}) (string, error) { return "", errors.New("it broke") })
	mcpserver.AddTool(s, "protocol", func(context.Context, struct{}) (string, error) {
		return "", fmt.Errorf("wrapped: %w", jsonrpc.NewError(-32050, "no"))
	})
	mcpserver.AddTool(s, "range", func(_ context.Context, in struct {
		N float64 `json:"n"`
	}) (string, error) {
		if in.N < 0 {
			return "", mcpserver.InvalidArguments("n must not be negative")
		}
		return "ok", nil
	})
	mcpserver.AddTool(s, "raw", func(_ context.Context, in json.RawMessage) (*mcpserver.Result, error) {
		return &mcpserver.Result{Content: []mcpserver.Content{mcpserver.Text(string(in))}, Meta: map[string]any{"k": 1}}, nil
	}, mcpserver.InputSchema(json.RawMessage(`{"type":"object","allOf":[{"required":["x"]}],"required":["x"],"$anchor":"a"}`)))
	mcpserver.AddTool(s, "defs", func(context.Context, withDefs) (*withDefs, error) { return nil, nil })
	return s
}

// TestToolList: the schemas inferred from the types (descriptions from
// tags, required from omitempty, named structs under $defs, the output
// schema of an object result), a hand-written schema passed through
// whole, in the order of registration.
func TestToolList(t *testing.T) {
	w := serve(t, tools())
	w.initialize("2025-11-25", "{}")
	a := w.call("1", "tools/list", "{}")
	var list struct {
		Tools []struct {
			Name, Title, Description  string
			InputSchema, OutputSchema json.RawMessage
		}
	}
	json.Unmarshal([]byte(result(t, a)), &list)
	want := []struct{ name, in, out string }{
		{"add", `{"type":"object","properties":{"a":{"type":"integer","description":"The first addend."},"b":{"type":"integer"}},"required":["a"]}`, `{"type":"object","properties":{"note":{"type":"string"},"sum":{"type":"integer"}},"required":["sum"]}`},
		{"text", `{"type":"object"}`, ``},
		{"image", `{"type":"object"}`, ``},
		{"mixed", `{"type":"object"}`, ``},
		{"number", `{"type":"object","additionalProperties":{"type":"integer"}}`, ``},
		{"fails", `{"type":"object"}`, ``},
		{"protocol", `{"type":"object"}`, ``},
		{"range", `{"type":"object","properties":{"n":{"type":"number"}},"required":["n"]}`, ``},
		{"raw", `{"type":"object","allOf":[{"required":["x"]}],"required":["x"],"$anchor":"a"}`, ``},
		{"defs", `{"type":"object","properties":{"home":{"$ref":"#/$defs/place"},"work":{"oneOf":[{"$ref":"#/$defs/place"},{"type":"null"}]}},"required":["home"],"$defs":{"place":{"type":"object","properties":{"street":{"type":"string"}},"required":["street"]}}}`, `{"type":"object","properties":{"home":{"$ref":"#/$defs/place"},"work":{"oneOf":[{"$ref":"#/$defs/place"},{"type":"null"}]}},"required":["home"],"$defs":{"place":{"type":"object","properties":{"street":{"type":"string"}},"required":["street"]}}}`},
	}
	if len(list.Tools) != len(want) {
		t.Fatalf("%d tools, want %d: %s", len(list.Tools), len(want), a)
	}
	for i, tl := range list.Tools {
		if tl.Name != want[i].name || string(tl.InputSchema) != want[i].in || string(tl.OutputSchema) != want[i].out {
			t.Errorf("tool %d: %s\n in  %s\n out %s\nwant %s\n in  %s\n out %s", i, tl.Name, tl.InputSchema, tl.OutputSchema, want[i].name, want[i].in, want[i].out)
		}
	}
	if list.Tools[0].Title != "Add" || list.Tools[0].Description != "Adds." {
		t.Errorf("the options of add: %+v", list.Tools[0])
	}
}

// TestToolResults: what each kind of result becomes, a tool's error, and
// arguments that do not fit, by revision.
func TestToolResults(t *testing.T) {
	for _, v := range []string{"2025-06-18", "2025-11-25"} {
		t.Run(v, func(t *testing.T) {
			w := serve(t, tools())
			w.initialize(v, "{}")
			badArgs := `{"content":[{"text":"add: invalid arguments: missing required argument \"a\"","type":"text"}],"isError":true}`
			badType := `{"content":[{"text":"add: invalid arguments: argument \"a\": string where an integer is wanted","type":"text"}],"isError":true}`
			badRange := `{"content":[{"text":"range: invalid arguments: n must not be negative","type":"text"}],"isError":true}`
			if v == "2025-06-18" {
				badArgs, badType, badRange = "-32602", "-32602", "-32602"
			}
			for i, tc := range []struct{ params, want string }{
				{`{"name":"add","arguments":{"a":1,"b":2}}`, `{"content":[{"type":"text","text":"{\"sum\":3}"}],"structuredContent":{"sum":3}}`},
				{`{"name":"add","arguments":{"a":1,"extra":true}}`, `{"content":[{"type":"text","text":"{\"sum\":1}"}],"structuredContent":{"sum":1}}`},
				{`{"name":"add","arguments":{"b":2}}`, badArgs},
				{`{"name":"add","arguments":{"a":"x"}}`, badType},
				{`{"name":"add","arguments":[1]}`, "-32602"},
				{`{"name":"nope","arguments":{}}`, "-32602"},
				{`{"arguments":{}}`, "-32602"},
				{`{"name":"text"}`, `{"content":[{"type":"text","text":"hi"}]}`},
				{`{"name":"image","arguments":null}`, `{"content":[{"type":"image","data":"AQID","mimeType":"image/png"}]}`},
				{`{"name":"mixed"}`, `{"content":[{"type":"audio","data":"BA==","mimeType":"audio/wav"},{"type":"resource","resource":{"uri":"test://r","mimeType":"text/plain","text":""}},{"type":"resource","resource":{"uri":"test://b","blob":"BQ=="}},{"type":"resource_link","uri":"test://l","name":"l"}]}`},
				{`{"name":"number","arguments":{"x":1}}`, `{"content":[{"type":"text","text":"7"}]}`},
				{`{"name":"fails"}`, `{"content":[{"type":"text","text":"it broke"}],"isError":true}`},
				{`{"name":"protocol"}`, "-32050"},
				{`{"name":"range","arguments":{"n":-1}}`, badRange},
				{`{"name":"raw","arguments":{"x":1}}`, `{"_meta":{"k":1},"content":[{"type":"text","text":"{\"x\":1}"}]}`},
				{`{"name":"raw","arguments":{"y":1}}`, strings.ReplaceAll(strings.ReplaceAll(badArgs, "add", "raw"), `\"a\"`, `\"x\"`)},
				{`{"name":"defs","arguments":{"home":{"street":"s"}}}`, `{"content":[{"type":"text","text":"null"}]}`},
			} {
				a := w.call(fmt.Sprint(i+1), "tools/call", tc.params)
				if c := code(a); c != 0 {
					if fmt.Sprint(c) != tc.want {
						t.Errorf("%s answered %s, want %s", tc.params, a, tc.want)
					}
					continue
				}
				if got := result(t, a); !sameJSON(got, tc.want) {
					t.Errorf("%s answered\n%s\nwant\n%s", tc.params, got, tc.want)
				}
			}
		})
	}
}

// sameJSON reports whether a and b are the same JSON value.
func sameJSON(a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	xb, _ := json.Marshal(x)
	yb, _ := json.Marshal(y)
	return string(xb) == string(yb)
}

// TestAddToolPanics: what cannot be served is refused at registration.
func TestAddToolPanics(t *testing.T) {
	s := mcpserver.New("test", "1", nil)
	ok := func(context.Context, struct{}) (string, error) { return "", nil }
	mcpserver.AddTool(s, "a", ok)
	for name, f := range map[string]func(){
		"bad name":       func() { mcpserver.AddTool(s, "a b", ok) },
		"empty name":     func() { mcpserver.AddTool(s, "", ok) },
		"taken":          func() { mcpserver.AddTool(s, "a", ok) },
		"not an object":  func() { mcpserver.AddTool(s, "n", func(context.Context, int) (string, error) { return "", nil }) },
		"schema array":   func() { mcpserver.AddTool(s, "s", ok, mcpserver.InputSchema(json.RawMessage(`{"type":"array"}`))) },
		"schema invalid": func() { mcpserver.AddTool(s, "s", ok, mcpserver.InputSchema(json.RawMessage(`{`))) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}
