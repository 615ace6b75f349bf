package openrpc_test

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/internal/demo"
	"github.com/jsonrpc-go/jsonrpc/openrpc"
)

var info = openrpc.Info{Title: "demo", Version: "1.0.0"}

// compact returns v as compact JSON.
func compact(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func describe(t *testing.T, srv *jsonrpc.Server, in openrpc.Info) *openrpc.Document {
	t.Helper()
	d, err := openrpc.Describe(srv, in)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func method(t *testing.T, d *openrpc.Document, name string) openrpc.Method {
	t.Helper()
	for _, m := range d.Methods {
		if m.Name == name {
			return m
		}
	}
	t.Fatalf("no method %q in the document", name)
	return openrpc.Method{}
}

func TestDemo(t *testing.T) {
	in := info
	in.Methods = map[string]openrpc.MethodDoc{
		"subtract": {
			Summary:     "minuend - subtrahend",
			Description: "The specification's example method.",
			Errors:      []openrpc.Error{{Code: 1, Message: "overflow"}},
		},
	}
	d := describe(t, demo.NewServer(), in)
	if d.OpenRPC != "1.3.2" || d.Info.Title != "demo" || d.Info.Version != "1.0.0" || d.Components != nil {
		t.Errorf("document head: %+v", d)
	}
	var names []string
	for _, m := range d.Methods {
		names = append(names, m.Name)
	}
	want := "NullableFloatToNullableFloat StringMe Test2 add addInt echo get_data notify_hello notify_sum repeat sleep subtract sum update"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("methods %s, want %s", got, want)
	}

	noResult := `{"name":"result","description":"The method returns no value: its result is null.","schema":{"type":"null"}}`
	for _, c := range []struct{ name, params, structure, result string }{
		{"NullableFloatToNullableFloat", `[{"name":"param0","required":true,"schema":{"type":["number","null"]}}]`, "by-position", `{"name":"result","schema":{"type":["number","null"]}}`},
		{"StringMe", `[{"name":"param0","required":true,"schema":{"type":"string"}}]`, "by-position", `{"name":"result","schema":{"type":"string"}}`},
		{"Test2", `[{"name":"param0","required":true,"schema":{"type":"number"}}]`, "by-position", `{"name":"result","schema":{"type":"number"}}`},
		{"add", `[{"name":"param0","required":true,"schema":{"type":"number"}},{"name":"param1","required":true,"schema":{"type":"number"}}]`, "by-position", `{"name":"result","schema":{"type":"number"}}`},
		{"addInt", `[{"name":"param0","required":true,"schema":{"type":"integer"}},{"name":"param1","required":true,"schema":{"type":"integer"}}]`, "by-position", `{"name":"result","schema":{"type":"integer"}}`},
		{"echo", `[{"name":"param0","required":true,"schema":{}}]`, "by-position", `{"name":"result","schema":{}}`},
		{"get_data", `[]`, "either", `{"name":"result","schema":{"type":["array","null"],"items":{}}}`},
		{"notify_hello", `[{"name":"param0","required":true,"schema":{"type":"integer"}}]`, "by-position", noResult},
		{"notify_sum", `[{"name":"param0","schema":{"type":"array","items":{"type":"number"}},"x-variadic":true}]`, "by-position", noResult},
		{"repeat", `[{"name":"s","required":true,"schema":{"type":"string"}},{"name":"n","required":true,"schema":{"type":"integer"}}]`, "either", `{"name":"result","schema":{"type":"string"}}`},
		{"sleep", `[{"name":"ms","required":true,"schema":{"type":"integer"}}]`, "either", `{"name":"result","schema":{"type":"integer"}}`},
		{"subtract", `[{"name":"minuend","required":true,"schema":{"type":"number"}},{"name":"subtrahend","required":true,"schema":{"type":"number"}}]`, "either", `{"name":"result","schema":{"type":"number"}}`},
		{"sum", `[{"name":"param0","schema":{"type":"array","items":{"type":"number"}},"x-variadic":true}]`, "by-position", `{"name":"result","schema":{"type":"number"}}`},
		{"update", `[{"name":"param0","schema":{"type":"array","items":{"type":"integer"}},"x-variadic":true}]`, "by-position", noResult},
	} {
		m := method(t, d, c.name)
		if got := compact(t, m.Params); got != c.params {
			t.Errorf("%s params:\n got %s\nwant %s", c.name, got, c.params)
		}
		if m.ParamStructure != c.structure {
			t.Errorf("%s paramStructure %q, want %q", c.name, m.ParamStructure, c.structure)
		}
		if got := compact(t, m.Result); got != c.result {
			t.Errorf("%s result:\n got %s\nwant %s", c.name, got, c.result)
		}
	}
	sub := method(t, d, "subtract")
	if got, want := compact(t, sub), `{"name":"subtract","summary":"minuend - subtrahend","description":"The specification's example method.",`+
		`"params":[{"name":"minuend","required":true,"schema":{"type":"number"}},{"name":"subtrahend","required":true,"schema":{"type":"number"}}],`+
		`"result":{"name":"result","schema":{"type":"number"}},"errors":[{"code":1,"message":"overflow"}],"paramStructure":"either"}`; got != want {
		t.Errorf("subtract:\n got %s\nwant %s", got, want)
	}
	if got := compact(t, d.Info); got != `{"title":"demo","version":"1.0.0"}` {
		t.Errorf("info %s", got)
	}
}

type Inner struct {
	Note  string `json:"note"`
	Level int    `json:"level,omitempty"`
}

type Tree struct {
	Name     string  `json:"name"`
	Children []*Tree `json:"children,omitempty"`
}

type Query struct {
	Inner             // promoted: note, level
	ID       uint64   `json:"id"`
	Tags     []string `json:"tags"`
	Labels   map[string]int
	When     time.Time `json:"when"`
	Parent   *Tree     `json:"parent"`
	Raw      json.RawMessage
	Any      any              `json:"any,omitempty"`
	Count    int64            `json:"count,string"`
	Skipped  string           `json:"-"`
	Point    [2]float64       `json:"point"`
	Data     []byte           `json:"data,omitzero"`
	Anon     struct{ X bool } `json:"anon"`
	internal int
}

type Filter struct {
	Prefix string `json:"prefix"`
	Limit  int    `json:"limit,omitempty"`
}

func TestTypes(t *testing.T) {
	srv := jsonrpc.NewServer()
	srv.MustRegister("query", func(ctx context.Context, q Query, tr Tree, at *time.Time) (map[string][]Tree, error) { return nil, nil })
	srv.MustRegister("find", func(f Filter) []string { return nil })
	srv.MustRegister("findp", func(f *Query) bool { return false })
	srv.MustRegister("page", func(q string, limit int, desc bool, after *string) []int { return nil },
		jsonrpc.ParamNames("q", "limit", "desc", "after"), jsonrpc.Defaults(10, false, nil))
	srv.MustRegister("log", func(level string, msgs ...string) error { return nil }, jsonrpc.ParamNames("level", "msgs"))
	d := describe(t, srv, info)

	q := method(t, d, "query")
	if got, want := compact(t, q.Params), `[{"name":"param0","required":true,"schema":{"$ref":"#/components/schemas/Query"}},`+
		`{"name":"param1","required":true,"schema":{"$ref":"#/components/schemas/Tree"}},`+
		`{"name":"param2","required":true,"schema":{"type":["string","null"],"format":"date-time"}}]`; got != want {
		t.Errorf("query params:\n got %s\nwant %s", got, want)
	}
	if got, want := compact(t, q.Result), `{"name":"result","schema":{"type":["object","null"],"additionalProperties":{"type":["array","null"],"items":{"$ref":"#/components/schemas/Tree"}}}}`; got != want {
		t.Errorf("query result:\n got %s\nwant %s", got, want)
	}
	if q.ParamStructure != openrpc.ByPosition {
		t.Errorf("query paramStructure %q", q.ParamStructure)
	}
	if d.Components == nil {
		t.Fatal("no components")
	}
	if got, want := compact(t, d.Components.Schemas["Query"]), `{"type":"object","properties":{`+
		`"Labels":{"type":["object","null"],"additionalProperties":{"type":"integer"}},`+
		`"Raw":{},`+
		`"anon":{"type":"object","properties":{"X":{"type":"boolean"}},"required":["X"]},`+
		`"any":{},`+
		`"count":{"type":"string"},`+
		`"data":{"type":["string","null"],"contentEncoding":"base64"},`+
		`"id":{"type":"integer","minimum":0},`+
		`"level":{"type":"integer"},`+
		`"note":{"type":"string"},`+
		`"parent":{"oneOf":[{"$ref":"#/components/schemas/Tree"},{"type":"null"}]},`+
		`"point":{"type":"array","items":{"type":"number"},"minItems":2,"maxItems":2},`+
		`"tags":{"type":["array","null"],"items":{"type":"string"}},`+
		`"when":{"type":"string","format":"date-time"}},`+
		`"required":["id","tags","Labels","when","parent","Raw","count","point","anon","note"]}`; got != want {
		t.Errorf("Query schema:\n got %s\nwant %s", got, want)
	}
	if got, want := compact(t, d.Components.Schemas["Tree"]), `{"type":"object","properties":{`+
		`"children":{"type":["array","null"],"items":{"oneOf":[{"$ref":"#/components/schemas/Tree"},{"type":"null"}]}},`+
		`"name":{"type":"string"}},"required":["name"]}`; got != want {
		t.Errorf("Tree schema:\n got %s\nwant %s", got, want)
	}

	// A struct param: named params by field, by position in field order.
	f := method(t, d, "find")
	if got, want := compact(t, f.Params), `[{"name":"prefix","required":true,"schema":{"type":"string"}},{"name":"limit","schema":{"type":"integer"}}]`; got != want {
		t.Errorf("find params:\n got %s\nwant %s", got, want)
	}
	if f.ParamStructure != openrpc.Either {
		t.Errorf("find paramStructure %q", f.ParamStructure)
	}
	// A struct that embeds another is bound by name with its promoted fields.
	fp := method(t, d, "findp")
	if fp.ParamStructure != openrpc.ByName || len(fp.Params) != 13 || fp.Params[0].Name != "id" || fp.Params[11].Name != "note" || !fp.Params[11].Required || fp.Params[12].Required {
		t.Errorf("findp: %s", compact(t, fp))
	}

	// Defaults: optional params carrying their default.
	p := method(t, d, "page")
	if got, want := compact(t, p.Params), `[{"name":"q","required":true,"schema":{"type":"string"}},`+
		`{"name":"limit","schema":{"type":"integer","default":10}},`+
		`{"name":"desc","schema":{"type":"boolean","default":false}},`+
		`{"name":"after","schema":{"type":["string","null"],"default":null}}]`; got != want {
		t.Errorf("page params:\n got %s\nwant %s", got, want)
	}

	// Variadic, named: by name an array, by position the rest.
	l := method(t, d, "log")
	if got, want := compact(t, l), `{"name":"log","params":[{"name":"level","required":true,"schema":{"type":"string"}},`+
		`{"name":"msgs","schema":{"type":"array","items":{"type":"string"}},"x-variadic":true}],`+
		`"result":{"name":"result","description":"The method returns no value: its result is null.","schema":{"type":"null"}},"paramStructure":"either"}`; got != want {
		t.Errorf("log:\n got %s\nwant %s", got, want)
	}
}

// Two struct types of one name get two components.
func TestComponentNames(t *testing.T) {
	type Tree struct{ Leaf bool }
	srv := jsonrpc.NewServer()
	srv.MustRegister("a", func(Tree) {})
	srv.MustRegister("b", func(x, y Tree) {})
	srv.MustRegister("c", func(x, y Tree2) {})
	d := describe(t, srv, info)
	if got := compact(t, method(t, d, "c").Params); !strings.Contains(got, `"$ref":"#/components/schemas/Tree2"`) {
		t.Errorf("c params %s", got)
	}
	if len(d.Components.Schemas) != 2 {
		t.Errorf("components %s", compact(t, d.Components))
	}
}

type Tree2 struct{ Leaf int }

func TestDiscover(t *testing.T) {
	srv := demo.NewServer()
	ctx := context.Background()
	call := `{"jsonrpc":"2.0","method":"rpc.discover","id":1}`
	if got := srv.ProcessString(ctx, call); !strings.Contains(got, `"code":-32601`) {
		t.Errorf("before Register: %s", got)
	}
	if err := openrpc.Register(srv, info); err != nil {
		t.Fatal(err)
	}
	if err := openrpc.Register(srv, info); err == nil {
		t.Error("a second Register succeeded")
	}
	var resp struct {
		Result openrpc.Document `json:"result"`
		ID     int              `json:"id"`
	}
	if err := json.Unmarshal([]byte(srv.ProcessString(ctx, call)), &resp); err != nil {
		t.Fatal(err)
	}
	if want := describe(t, srv, info); compact(t, resp.Result) != compact(t, want) || len(want.Methods) != 14 {
		t.Errorf("rpc.discover answered\n%s\nwant\n%s", compact(t, resp.Result), compact(t, want))
	}
	for _, params := range []string{`[]`, `{}`} {
		if got := srv.ProcessString(ctx, `{"jsonrpc":"2.0","method":"rpc.discover","params":`+params+`,"id":2}`); !strings.Contains(got, `"result":{"openrpc":"1.3.2"`) {
			t.Errorf("params %s: %s", params, got)
		}
	}
	if got := srv.ProcessString(ctx, `{"jsonrpc":"2.0","method":"rpc.discover","params":[1],"id":3}`); !strings.Contains(got, `"code":-32602`) {
		t.Errorf("rpc.discover with a param: %s", got)
	}

	// Methods registered later are listed.
	srv.MustRegister("late", func(on bool) bool { return on }, jsonrpc.ParamNames("on"))
	got := srv.ProcessString(ctx, call)
	if want := `{"name":"late","params":[{"name":"on","required":true,"schema":{"type":"boolean"}}],"result":{"name":"result","schema":{"type":"boolean"}},"paramStructure":"either"}`; !strings.Contains(got, want) {
		t.Errorf("after registering late: %s", got)
	}
	// The reservation still holds for Register.
	if err := srv.Register("rpc.other", func() {}); err == nil {
		t.Error(`Register("rpc.other") succeeded`)
	}
}

// TestDiscoverCached: the document of a server with many methods is made
// once, not at every call: a call of rpc.discover allocates what any call
// does, not the thousands of values of a rebuild, until a method is
// registered.
func TestDiscoverCached(t *testing.T) {
	srv := jsonrpc.NewServer()
	for i := range 2000 {
		srv.MustRegister(fmt.Sprintf("m%d", i), func(a, b int) int { return a + b })
	}
	if err := openrpc.Register(srv, info); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	req := []byte(`{"jsonrpc":"2.0","method":"rpc.discover","id":1}`)
	first := string(srv.Process(ctx, nil, req))
	var dst []byte
	allocs := testing.AllocsPerRun(20, func() { dst = srv.Process(ctx, dst[:0], req) })
	if string(dst) != first {
		t.Fatal("a later call answered another document")
	}
	if allocs > 20 {
		t.Errorf("%v allocations per call of rpc.discover with 2000 methods: the document is rebuilt", allocs)
	}
	srv.MustRegister("late", func() {})
	if got := string(srv.Process(ctx, nil, req)); got == first || !strings.Contains(got, `"name":"late"`) {
		t.Error("a method registered later is not listed")
	}
}

// TestDiscoverOnce: calls of rpc.discover that arrive together before the
// document is made wait for one of them to make it, rather than each
// making its own (issue 34: 16 first calls with 10,000 methods took the
// process from 182 to 836 MiB). Many calls together allocate about what
// one call makes, not 16 times it.
func TestDiscoverOnce(t *testing.T) {
	fresh := func() *jsonrpc.Server {
		srv := jsonrpc.NewServer()
		for i := range 2000 {
			srv.MustRegister(fmt.Sprintf("m%d", i), func(a, b int) int { return a + b })
		}
		if err := openrpc.Register(srv, info); err != nil {
			t.Fatal(err)
		}
		return srv
	}
	ctx := context.Background()
	req := []byte(`{"jsonrpc":"2.0","method":"rpc.discover","id":1}`)
	mallocs := func(n int) uint64 {
		srv := fresh()
		var start sync.WaitGroup
		start.Add(1)
		var done sync.WaitGroup
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for range n {
			done.Go(func() {
				start.Wait()
				srv.Process(ctx, nil, req)
			})
		}
		start.Done()
		done.Wait()
		runtime.ReadMemStats(&after)
		return after.Mallocs - before.Mallocs
	}
	one := mallocs(1)
	many := mallocs(16)
	if many > 2*one {
		t.Errorf("16 first calls together made %d allocations, one call %d: the document is made more than once", many, one)
	}
}

func TestNilServer(t *testing.T) {
	if _, err := openrpc.Describe(nil, info); err == nil {
		t.Error("Describe(nil) succeeded")
	}
	if err := openrpc.Register(nil, info); err == nil {
		t.Error("Register(nil) succeeded")
	}
}

func TestTypesJSON(t *testing.T) {
	for _, c := range []struct {
		in   string
		want openrpc.Types
	}{{`"string"`, openrpc.Types{"string"}}, {`["number","null"]`, openrpc.Types{"number", "null"}}} {
		var got openrpc.Types
		if err := json.Unmarshal([]byte(c.in), &got); err != nil || strings.Join(got, ",") != strings.Join(c.want, ",") {
			t.Errorf("%s: %v, %v", c.in, got, err)
		}
		if b, _ := json.Marshal(got); string(b) != c.in {
			t.Errorf("%v marshals to %s", got, b)
		}
	}
}

// TestSeqResult: a method that returns a sequence is described by what a
// caller that does not stream it gets, the array of its items.
func TestSeqResult(t *testing.T) {
	srv := jsonrpc.NewServer()
	srv.MustRegister("count", func(n int) iter.Seq[int] { return nil })
	d := describe(t, srv, info)
	if got, want := compact(t, method(t, d, "count").Result), `{"name":"result","schema":{"type":["array","null"],"items":{"type":"integer"}}}`; got != want {
		t.Errorf("count result:\n got %s\nwant %s", got, want)
	}
}

// TestPolicies (issue 35): the document shows who may call each method:
// x-auth "required" for a method whose calls need a Principal (its own
// RequireScopes, or the server's RequireAuth for a method without a
// policy), with the scopes in x-scopes; "public" for a method declared
// Public; nothing for a method anybody may call. rpc.discover fails
// closed under RequireAuth, unless Register is told it is Public.
func TestPolicies(t *testing.T) {
	for _, tc := range []struct {
		name     string
		opts     []jsonrpc.Option
		plain    string // x-auth of a method without a policy
		discover string // rpc.discover's answer, anonymous, when public is not given
	}{
		{"open", nil, "", `"result"`},
		{"RequireAuth", []jsonrpc.Option{jsonrpc.RequireAuth()}, openrpc.AuthRequired, `"code":-32012`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := jsonrpc.NewServer(tc.opts...)
			srv.MustRegister("plain", func() int { return 1 })
			srv.MustRegister("health", func() int { return 1 }, jsonrpc.Public())
			srv.MustRegister("remove", func() int { return 1 }, jsonrpc.RequireScopes("files:read", "files:write"))
			srv.MustRegister("whoami", func() int { return 1 }, jsonrpc.RequireScopes())
			d := describe(t, srv, info)
			for _, want := range []struct {
				method, auth string
				scopes       []string
			}{
				{"plain", tc.plain, nil},
				{"health", openrpc.AuthPublic, nil},
				{"remove", openrpc.AuthRequired, []string{"files:read", "files:write"}},
				{"whoami", openrpc.AuthRequired, nil},
			} {
				m := method(t, d, want.method)
				if m.Auth != want.auth || fmt.Sprint(m.Scopes) != fmt.Sprint(want.scopes) {
					t.Errorf("%s: x-auth %q, x-scopes %v; want %q, %v", want.method, m.Auth, m.Scopes, want.auth, want.scopes)
				}
			}
			if got := compact(t, method(t, d, "remove")); !strings.Contains(got, `"x-auth":"required","x-scopes":["files:read","files:write"]`) {
				t.Errorf("remove: %s", got)
			}
			if err := openrpc.Register(srv, info); err != nil {
				t.Fatal(err)
			}
			if got := srv.ProcessString(context.Background(), `{"jsonrpc":"2.0","method":"rpc.discover","id":1}`); !strings.Contains(got, tc.discover) {
				t.Errorf("rpc.discover, anonymous: %.200s, want %s", got, tc.discover)
			}
			pub := jsonrpc.NewServer(tc.opts...)
			if err := openrpc.Register(pub, info, jsonrpc.Public()); err != nil {
				t.Fatal(err)
			}
			if got := pub.ProcessString(context.Background(), `{"jsonrpc":"2.0","method":"rpc.discover","id":1}`); !strings.Contains(got, `"result"`) {
				t.Errorf("rpc.discover registered Public, anonymous: %.200s", got)
			}
		})
	}
}
