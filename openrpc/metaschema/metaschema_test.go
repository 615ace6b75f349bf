package metaschema_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/internal/demo"
	"github.com/jsonrpc-go/jsonrpc/openrpc"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

const docURL = "https://example.com/openrpc.json"

// The meta-schemas of openrpc/testdata: OpenRPC's, and the JSON Schema
// meta-schema of json-schema.tools that it refers to for schemas.
const (
	openrpcMeta = "https://meta.open-rpc.org/"
	toolsMeta   = "https://meta.json-schema.tools"
)

func readSchema(t *testing.T, file string) map[string]any {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	v, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	return v.(map[string]any)
}

// metaSchema compiles the OpenRPC meta-schema. Both name the draft 7
// meta-schema of json-schema.tools as their $schema, which the validator
// does not know: it is dropped, and the validator applies draft 7. The
// OpenRPC meta-schema refers to json-schema.tools' without the slash of its
// $id, so that one is added under both URLs, without its $id.
func metaSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft7)
	for _, r := range []struct{ url, file string }{
		{openrpcMeta, "openrpc-meta-schema.json"},
		{toolsMeta, "json-schema-tools-meta-schema.json"},
		{toolsMeta + "/", "json-schema-tools-meta-schema.json"},
	} {
		v := readSchema(t, r.file)
		delete(v, "$schema")
		if r.url != openrpcMeta {
			delete(v, "$id")
		}
		if err := c.AddResource(r.url, v); err != nil {
			t.Fatal(err)
		}
	}
	s, err := c.Compile(openrpcMeta)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func decode(t *testing.T, b []byte) any {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func demoDocument(t *testing.T) ([]byte, *openrpc.Document) {
	t.Helper()
	srv := demo.NewServer()
	d, err := openrpc.Describe(srv, openrpc.Info{Title: "demo", Version: "1.0.0"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	return b, d
}

func TestDemoDocument(t *testing.T) {
	meta := metaSchema(t)
	b, _ := demoDocument(t)
	if err := meta.Validate(decode(t, b)); err != nil {
		t.Errorf("the demo document does not follow the meta-schema: %v", err)
	}
	// The validator does reject what the meta-schema forbids.
	bad := bytes.Replace(b, []byte(`"params":[]`), []byte(`"params":{}`), 1)
	if err := meta.Validate(decode(t, bad)); err == nil {
		t.Error("a document with params {} passed")
	}
}

// The document of a server with structs, defaults, pointers and maps, and
// rpc.discover's answer, follow the meta-schema too.
func TestDiscoverDocument(t *testing.T) {
	type Point struct {
		X, Y float64
		Tag  *string `json:"tag,omitempty"`
	}
	srv := jsonrpc.NewServer()
	srv.MustRegister("move", func(p Point, by map[string]float64, steps []int) *Point { return &p })
	srv.MustRegister("page", func(q string, limit int) []Point { return nil }, jsonrpc.ParamNames("q", "limit"), jsonrpc.Defaults(10))
	// Policies show as the extensions x-auth and x-scopes.
	srv.MustRegister("erase", func() {}, jsonrpc.RequireScopes("points:write"))
	srv.MustRegister("count", func() int { return 0 }, jsonrpc.Public())
	if err := openrpc.Register(srv, openrpc.Info{Title: "points", Version: "0.1.0", Methods: map[string]openrpc.MethodDoc{
		"move": {Summary: "moves a point", Errors: []openrpc.Error{{Code: 1, Message: "off the map", Data: "x"}}},
	}}); err != nil {
		t.Fatal(err)
	}
	var resp struct{ Result json.RawMessage }
	if err := json.Unmarshal([]byte(srv.ProcessString(context.Background(), `{"jsonrpc":"2.0","method":"rpc.discover","id":1}`)), &resp); err != nil {
		t.Fatal(err)
	}
	if err := metaSchema(t).Validate(decode(t, resp.Result)); err != nil {
		t.Errorf("rpc.discover's document does not follow the meta-schema: %v\n%s", err, resp.Result)
	}
}

// paramsSchemas compiles, for each method of the document, the schemas of
// the params it accepts by position (an array) and by name (an object), as
// its paramStructure allows; nil stands for a form it does not accept. The
// params' schemas are referred to in the document itself, so that their
// $refs resolve.
func paramsSchemas(t *testing.T, doc []byte, d *openrpc.Document) map[string][2]*jsonschema.Schema {
	t.Helper()
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft7)
	if err := c.AddResource(docURL, decode(t, doc)); err != nil {
		t.Fatal(err)
	}
	out := map[string][2]*jsonschema.Schema{}
	for i, m := range d.Methods {
		ref := func(j int) map[string]any {
			return map[string]any{"$ref": fmt.Sprintf("%s#/methods/%d/params/%d/schema", docURL, i, j)}
		}
		var forms [2]*jsonschema.Schema
		if m.ParamStructure != openrpc.ByName {
			items := []any{}
			var additional any = false
			required := 0
			for j, p := range m.Params {
				if p.Variadic {
					additional = map[string]any{"$ref": fmt.Sprintf("%s#/methods/%d/params/%d/schema/items", docURL, i, j)}
					break
				}
				items = append(items, ref(j))
				if p.Required {
					required = j + 1
				}
			}
			schema := map[string]any{"type": "array", "minItems": required}
			if len(items) > 0 {
				schema["items"], schema["additionalItems"] = items, additional
			} else if additional == false {
				schema["maxItems"] = 0
			} else {
				schema["items"] = additional
			}
			forms[0] = compile(t, c, fmt.Sprintf("%s/by-position.json", m.Name), schema)
		}
		if m.ParamStructure != openrpc.ByPosition {
			props := map[string]any{}
			required := []any{}
			for j, p := range m.Params {
				props[p.Name] = ref(j)
				if p.Required {
					required = append(required, p.Name)
				}
			}
			forms[1] = compile(t, c, fmt.Sprintf("%s/by-name.json", m.Name), map[string]any{
				"type": "object", "properties": props, "required": required, "additionalProperties": false,
			})
		}
		out[m.Name] = forms
	}
	return out
}

func compile(t *testing.T, c *jsonschema.Compiler, name string, schema any) *jsonschema.Schema {
	t.Helper()
	url := "https://example.com/" + name
	if err := c.AddResource(url, schema); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(url)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// accepts reports whether the params (nil when absent) fit the method's
// schemas.
func accepts(forms [2]*jsonschema.Schema, params json.RawMessage) bool {
	if params == nil {
		// Absent params are the empty array or object.
		params = json.RawMessage(`[]`)
		if forms[0] == nil {
			params = json.RawMessage(`{}`)
		}
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(params))
	if err != nil {
		return false
	}
	form := forms[0]
	if params[0] == '{' {
		form = forms[1]
	}
	return form != nil && form.Validate(v) == nil
}

type request struct {
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

// specRequests returns the requests of the specification's examples that
// call a method of the demo services.
func specRequests(t *testing.T, methods map[string][2]*jsonschema.Schema) []request {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "..", "testdata", "spec", "*.txt"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no transcripts: %v", err)
	}
	var reqs []request
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(bytes.NewReader(b))
		for sc.Scan() {
			line, ok := strings.CutPrefix(sc.Text(), "--> ")
			if !ok {
				continue
			}
			var batch []request
			if json.Unmarshal([]byte(line), &batch) != nil {
				var one request
				if json.Unmarshal([]byte(line), &one) != nil {
					continue // the examples of invalid JSON
				}
				batch = []request{one}
			}
			for _, r := range batch {
				if _, ok := methods[r.Method]; ok {
					reqs = append(reqs, r)
				}
			}
		}
	}
	return reqs
}

// The params schemas of the demo document accept the params of the
// specification's example requests and reject params of the wrong types,
// as the server does.
func TestParamsSchemas(t *testing.T) {
	doc, d := demoDocument(t)
	methods := paramsSchemas(t, doc, d)
	srv := demo.NewServer()
	served := func(r request) bool {
		req, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": r.Method, "params": r.Params, "id": 1})
		if r.Params == nil {
			req, _ = json.Marshal(map[string]any{"jsonrpc": "2.0", "method": r.Method, "id": 1})
		}
		return !strings.Contains(srv.ProcessString(context.Background(), string(req)), `"code":-32602`)
	}
	reqs := specRequests(t, methods)
	seen := map[string]bool{}
	for _, r := range reqs {
		seen[r.Method] = true
		if !accepts(methods[r.Method], r.Params) {
			t.Errorf("%s %s: rejected by the params schema", r.Method, r.Params)
		}
		if !served(r) {
			t.Errorf("%s %s: rejected by the server", r.Method, r.Params)
		}
	}
	for _, m := range []string{"subtract", "sum", "update", "notify_hello", "notify_sum", "get_data"} {
		if !seen[m] {
			t.Errorf("no example request of %s", m)
		}
	}
	for _, c := range []struct {
		method string
		params string
		ok     bool
	}{
		{"subtract", `[42,23]`, true},
		{"subtract", `{"minuend":42,"subtrahend":23}`, true},
		{"subtract", `{"subtrahend":23,"minuend":42}`, true},
		{"subtract", `["a","b"]`, false},
		{"subtract", `[42]`, false},
		{"subtract", `[42,23,1]`, false},
		{"subtract", `{"minuend":42}`, false},
		{"subtract", `{"minuend":"a","subtrahend":23}`, false},
		{"subtract", `{"minuend":42,"subtrahend":23,"x":1}`, false},
		{"sum", `[]`, true},
		{"sum", `[1,2.5]`, true},
		{"sum", `["x"]`, false},
		{"sum", `{"param0":[1]}`, false},
		{"update", `[1,2,3,4,5]`, true},
		{"update", `[1.5]`, false},
		{"notify_hello", `[7]`, true},
		{"notify_hello", `["7"]`, false},
		{"get_data", `[]`, true},
		{"get_data", `[1]`, false},
		{"NullableFloatToNullableFloat", `[null]`, true},
		{"NullableFloatToNullableFloat", `[true]`, false},
		{"repeat", `{"s":"ab","n":3}`, true},
		{"repeat", `{"s":"ab","n":3.5}`, false},
		{"sleep", `{"ms":"1"}`, false},
		{"echo", `[{"any":["thing"]}]`, true},
		{"echo", `[]`, false},
	} {
		r := request{Method: c.method, Params: json.RawMessage(c.params)}
		if got := accepts(methods[c.method], r.Params); got != c.ok {
			t.Errorf("%s %s: schema accepts %v, want %v", c.method, c.params, got, c.ok)
		}
		if got := served(r); got != c.ok {
			t.Errorf("%s %s: server accepts %v, want %v", c.method, c.params, got, c.ok)
		}
	}
}
