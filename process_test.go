package jsonrpc_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"math"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/internal/demo"
	"github.com/jsonrpc-go/jsonrpc/internal/testutil"
)

// This file holds one table per rule of the JSON-RPC 2.0 specification and
// per documented behaviour of Process, and the helpers the package's tests
// share to run such tables.

// rpcCase is a request and the answer it expects.
type rpcCase struct {
	name string
	req  string
	// want is the expected response, compared as in testutil.CheckAnswer; ""
	// expects no response.
	want string
	// id, when set, is the exact bytes the response's id member must hold.
	id string
	// data, when set, is text the error's data member (a string) must
	// contain; want then holds no data member.
	data string
}

// ruleTables are the tables of requests run against newRuleServer; the fuzz
// test is seeded from them.
var ruleTables = [][]rpcCase{
	versionCases, methodCases, paramsCases, idCases, notificationCases,
	errorCases, batchCases, bigBatchCases, documentCases, depthCases, smallDepthCases, depthOneCases, defaultsCases,
	variadicCases, structCases,
}

// ruleRequests returns the requests of every table in this file.
func ruleRequests() []string {
	var reqs []string
	for _, table := range ruleTables {
		for _, c := range table {
			reqs = append(reqs, c.req)
		}
	}
	for _, c := range maxBatchCases {
		reqs = append(reqs, c.req)
	}
	return reqs
}

func wantResult(result, id string) string {
	return `{"jsonrpc":"2.0","result":` + result + `,"id":` + id + `}`
}

// wantError is an error response with the standard message of code.
func wantError(code jsonrpc.Code, id string) string {
	return wantErrorMessage(code, code.String(), id)
}

func wantErrorMessage(code jsonrpc.Code, message, id string) string {
	m, _ := json.Marshal(message)
	return fmt.Sprintf(`{"jsonrpc":"2.0","error":{"code":%d,"message":%s},"id":%s}`, code, m, id)
}

var (
	parseError     = wantError(jsonrpc.CodeParseError, "null")
	invalidRequest = wantError(jsonrpc.CodeInvalidRequest, "null")
	invalidParams  = wantError(jsonrpc.CodeInvalidParams, "1")
)

// notFound is the answer, to the call with id 1, that method is not found:
// its name is the error's data.
func notFound(method string) string { return wantNotFound(method, "1") }

// wantNotFound is the answer to the call id that method is not found.
func wantNotFound(method, id string) string {
	m, _ := json.Marshal(method)
	return fmt.Sprintf(`{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found","data":%s},"id":%s}`, m, id)
}

// ruleServer is a server with the demo methods and methods that exercise the
// documented behaviours.
type ruleServer struct {
	*jsonrpc.Server
	spec  *demo.Spec
	ticks atomic.Int64 // calls of "tick"
}

// point is a struct param, bound by json names or by field order.
type point struct {
	X      int    `json:"x"`
	Y      int    `json:"y"`
	Label  string `json:"label,omitempty"`
	Hidden int    `json:"-"`
}

func (p point) String() string { return fmt.Sprintf("%d,%d,%s,%d", p.X, p.Y, p.Label, p.Hidden) }

// wrapped is a struct param whose first field takes an object.
type wrapped struct {
	P point  `json:"p"`
	Q string `json:"q"`
}

func newRuleServer(tb testing.TB, opts ...jsonrpc.Option) *ruleServer {
	tb.Helper()
	rs := &ruleServer{Server: jsonrpc.NewServer(opts...)}
	spec, err := demo.Register(rs.Server)
	if err != nil {
		tb.Fatal(err)
	}
	rs.spec = spec
	for _, m := range []struct {
		name string
		fn   any
		opts []jsonrpc.MethodOption
	}{
		{"tick", func() { rs.ticks.Add(1) }, nil},
		{"fail", func() error {
			return fmt.Errorf("fail: %w", jsonrpc.NewError(-32001, "custom failure").WithData(map[string]bool{"retry": true}))
		}, nil},
		{"failPlain", func() (int, error) { return 0, errors.New("plain failure") }, nil},
		{"panic", func() int { panic("kaboom") }, nil},
		{"nothing", func() {}, nil},
		{"nilPtr", func() *int { return nil }, nil},
		{"nan", func() float64 { return math.NaN() }, nil},
		{"cancelled", func() error { return fmt.Errorf("op: %w", context.Canceled) }, nil},
		{"deadline", func(context.Context) error { return fmt.Errorf("op: %w", context.DeadlineExceeded) }, nil},
		{"method", func(ctx context.Context) string { return jsonrpc.CallOf(ctx).Method() }, nil},
		{"greet", func(name, greeting string) string { return greeting + ", " + name },
			[]jsonrpc.MethodOption{jsonrpc.ParamNames("name", "greeting"), jsonrpc.Defaults("Hello")}},
		{"add3", func(a, b, c int) int { return 100*a + 10*b + c },
			[]jsonrpc.MethodOption{jsonrpc.ParamNames("a", "b", "c"), jsonrpc.Defaults(2, 3)}},
		{"join", func(sep string, parts ...string) string { return strings.Join(parts, sep) }, nil},
		{"point", func(p point) string { return p.String() }, nil},
		{"wrapped", func(w wrapped) string { return w.P.String() + " " + w.Q }, nil},
		{"pointPtr", func(p *point) string { return p.String() }, nil},
	} {
		if err := rs.Register(m.name, m.fn, m.opts...); err != nil {
			tb.Fatalf("Register(%q): %v", m.name, err)
		}
	}
	return rs
}

// runCases runs each case as a parallel subtest against srv.
func runCases(t *testing.T, srv *jsonrpc.Server, cases []rpcCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			checkCase(t, srv, c)
		})
	}
}

// checkCase processes c.req with srv and checks the answer.
func checkCase(tb testing.TB, srv *jsonrpc.Server, c rpcCase) {
	tb.Helper()
	got := srv.Process(context.Background(), nil, []byte(c.req))
	if c.want == "" || c.data == "" {
		testutil.CheckAnswer(tb, c.name, c.req, got, c.want)
	} else {
		if err := testutil.ValidateResponse(got); err != nil {
			tb.Fatalf("request %s\n%v", c.req, err)
		}
		v := testutil.MustDecode(tb, got)
		m, _ := v.(map[string]any)
		e, _ := m["error"].(map[string]any)
		if data, _ := e["data"].(string); !strings.Contains(data, c.data) {
			tb.Errorf("request %s\n got %s\nwant error data naming %q", c.req, got, c.data)
		}
		delete(e, "data")
		if !testutil.SameResponse(v, testutil.MustDecode(tb, []byte(c.want))) {
			tb.Errorf("request %s\n got %s\nwant %s (and data naming %q)", c.req, got, c.want, c.data)
		}
	}
	if c.id != "" && len(got) > 0 {
		if id := rawID(tb, got); id != c.id {
			tb.Errorf("request %s\n got id %s, want %s exactly", c.req, id, c.id)
		}
	}
}

// rawID returns the id member of a response object exactly as written.
func rawID(tb testing.TB, resp []byte) string {
	tb.Helper()
	var r struct {
		ID json.RawMessage `json:"id"`
	}
	if err := json.Unmarshal(resp, &r); err != nil {
		tb.Fatalf("response %s: %v", resp, err)
	}
	return string(r.ID)
}

// call is a request for method with params (omitted when "") and id
// (omitted, for a notification, when "").
func call(method, params, id string) string {
	var b strings.Builder
	b.WriteString(`{"jsonrpc":"2.0","method":"` + method + `"`)
	if params != "" {
		b.WriteString(`,"params":` + params)
	}
	if id != "" {
		b.WriteString(`,"id":` + id)
	}
	b.WriteString("}")
	return b.String()
}

// nested returns a request to echo whose document nests depth arrays and
// objects deep.
func nested(depth int) string {
	n := depth - 2 // the request object and the params array
	return call("echo", "["+strings.Repeat("[", n)+strings.Repeat("]", n)+"]", "1")
}

// "jsonrpc" MUST be exactly "2.0".
var versionCases = []rpcCase{
	{name: "2.0", req: `{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}`, want: wantResult("19", "1")},
	{name: "missing", req: `{"method":"subtract","params":[42,23],"id":1}`, want: wantError(jsonrpc.CodeInvalidRequest, "1")},
	{name: "1.0", req: `{"jsonrpc":"1.0","method":"subtract","params":[42,23],"id":1}`, want: wantError(jsonrpc.CodeInvalidRequest, "1")},
	{name: "number 2.0", req: `{"jsonrpc":2.0,"method":"subtract","params":[42,23],"id":1}`, want: wantError(jsonrpc.CodeInvalidRequest, "1")},
	{name: "number 2", req: `{"jsonrpc":2,"method":"subtract","params":[42,23],"id":1}`, want: wantError(jsonrpc.CodeInvalidRequest, "1")},
	{name: "null", req: `{"jsonrpc":null,"method":"subtract","params":[42,23],"id":1}`, want: wantError(jsonrpc.CodeInvalidRequest, "1")},
	{name: "2", req: `{"jsonrpc":"2","method":"subtract","params":[42,23],"id":1}`, want: wantError(jsonrpc.CodeInvalidRequest, "1")},
	{name: "2.00", req: `{"jsonrpc":"2.00","method":"subtract","params":[42,23],"id":1}`, want: wantError(jsonrpc.CodeInvalidRequest, "1")},
	{name: "trailing space", req: `{"jsonrpc":"2.0 ","method":"subtract","params":[42,23],"id":1}`, want: wantError(jsonrpc.CodeInvalidRequest, "1")},
	{name: "array", req: `{"jsonrpc":["2.0"],"method":"subtract","params":[42,23],"id":1}`, want: wantError(jsonrpc.CodeInvalidRequest, "1")},
	{name: "escaped dot", req: `{"jsonrpc":"2\u002e0","method":"subtract","params":[42,23],"id":1}`, want: wantResult("19", "1")},
	{name: "all escaped", req: `{"jsonrpc":"\u0032\u002E\u0030","method":"subtract","params":[42,23],"id":1}`, want: wantResult("19", "1")},
	{name: "escaped member name", req: `{"\u006asonrpc":"2.0","method":"subtract","params":[42,23],"id":1}`, want: wantResult("19", "1")},
	{name: "missing without id", req: `{"method":"update","params":[1]}`, want: invalidRequest},
	{name: "1.0 without id", req: `{"jsonrpc":"1.0","method":"update","params":[1]}`, want: invalidRequest},
}

func TestVersion(t *testing.T) { t.Parallel(); runCases(t, newRuleServer(t).Server, versionCases) }

// "method" MUST be a string; names are matched exactly, after unescaping;
// "rpc." names are reserved.
var methodCases = []rpcCase{
	{name: "number", req: `{"jsonrpc":"2.0","method":1,"id":1}`, want: wantError(jsonrpc.CodeInvalidRequest, "1")},
	{name: "null", req: `{"jsonrpc":"2.0","method":null,"id":1}`, want: wantError(jsonrpc.CodeInvalidRequest, "1")},
	{name: "true", req: `{"jsonrpc":"2.0","method":true,"id":1}`, want: wantError(jsonrpc.CodeInvalidRequest, "1")},
	{name: "array", req: `{"jsonrpc":"2.0","method":["get_data"],"id":1}`, want: wantError(jsonrpc.CodeInvalidRequest, "1")},
	{name: "object", req: `{"jsonrpc":"2.0","method":{},"id":1}`, want: wantError(jsonrpc.CodeInvalidRequest, "1")},
	{name: "missing", req: `{"jsonrpc":"2.0","params":[1],"id":1}`, want: wantError(jsonrpc.CodeInvalidRequest, "1")},
	{name: "escaped", req: `{"jsonrpc":"2.0","method":"sub\u0074ract","params":[42,23],"id":1}`, want: wantResult("19", "1")},
	{name: "unknown", req: call("foobar", "", "1"), want: notFound("foobar")},
	{name: "case matters", req: call("Subtract", "[42,23]", "1"), want: notFound("Subtract")},
	{name: "trailing space", req: call("subtract ", "[42,23]", "1"), want: notFound("subtract ")},
	{name: "empty", req: call("", "", "1"), want: notFound("")},
	{name: "rpc.foo", req: call("rpc.foo", "", "1"), want: notFound("rpc.foo")},
	{name: "escaped rpc.foo", req: call(`rpc\u002efoo`, "", "1"), want: notFound("rpc.foo")},
	{name: "method from call", req: call("method", "", "1"), want: wantResult(`"method"`, "1")},
}

func TestMethod(t *testing.T) { t.Parallel(); runCases(t, newRuleServer(t).Server, methodCases) }

// "params", when present, MUST be an array or an object.
var paramsCases = []rpcCase{
	{name: "string", req: `{"jsonrpc":"2.0","method":"subtract","params":"bar","id":1}`, want: wantError(jsonrpc.CodeInvalidRequest, "1")},
	{name: "number", req: `{"jsonrpc":"2.0","method":"subtract","params":42,"id":1}`, want: wantError(jsonrpc.CodeInvalidRequest, "1")},
	{name: "null", req: `{"jsonrpc":"2.0","method":"get_data","params":null,"id":1}`, want: wantError(jsonrpc.CodeInvalidRequest, "1")},
	{name: "true", req: `{"jsonrpc":"2.0","method":"get_data","params":true,"id":1}`, want: wantError(jsonrpc.CodeInvalidRequest, "1")},
	{name: "false", req: `{"jsonrpc":"2.0","method":"get_data","params":false,"id":1}`, want: wantError(jsonrpc.CodeInvalidRequest, "1")},
	{name: "string without id", req: `{"jsonrpc":"2.0","method":"update","params":"bar"}`, want: invalidRequest},
	{name: "absent", req: call("get_data", "", "1"), want: wantResult(`["hello",5]`, "1")},
	{name: "empty array", req: call("get_data", "[]", "1"), want: wantResult(`["hello",5]`, "1")},
	{name: "empty object", req: call("get_data", "{}", "1"), want: wantResult(`["hello",5]`, "1")},
	{name: "empty object with space", req: call("get_data", "{ }", "1"), want: wantResult(`["hello",5]`, "1")},
	{name: "object to no params", req: call("get_data", `{"x":1}`, "1"), want: invalidParams, data: "named"},
	{name: "array", req: call("subtract", "[42,23]", "1"), want: wantResult("19", "1")},
	{name: "object", req: call("subtract", `{"minuend":42,"subtrahend":23}`, "1"), want: wantResult("19", "1")},
	{name: "escaped names", req: call("subtract", `{"\u006dinuend":42,"subtrahend":23}`, "1"), want: wantResult("19", "1")},
	{name: "other members ignored", req: `{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1,"extra":{"id":2},"Method":"x"}`, want: wantResult("19", "1")},
	{name: "white space", req: "{ \"jsonrpc\" : \"2.0\" ,\n\"method\":\t\"subtract\", \"params\" : [ 42 , 23 ] , \"id\" : 1 }", want: wantResult("19", "1")},
}

func TestParams(t *testing.T) { t.Parallel(); runCases(t, newRuleServer(t).Server, paramsCases) }

// nullParamsCases: with AcceptNullParams, "params": null is absent params,
// in a request, a notification and a batch, and every other params that is
// not an array or an object is still refused.
var nullParamsCases = []rpcCase{
	{name: "null", req: `{"jsonrpc":"2.0","method":"get_data","params":null,"id":1}`, want: wantResult(`["hello",5]`, "1")},
	{name: "null, spaced", req: `{ "jsonrpc" : "2.0", "method" : "get_data", "params" : null, "id" : 1 }`, want: wantResult(`["hello",5]`, "1")},
	{name: "null, escaped name", req: `{"jsonrpc":"2.0","method":"get_data","p\u0061rams":null,"id":1}`, want: wantResult(`["hello",5]`, "1")},
	{name: "null to a method with params", req: `{"jsonrpc":"2.0","method":"subtract","params":null,"id":1}`, want: wantError(jsonrpc.CodeInvalidParams, "1"), data: "missing required param"},
	{name: "null notification", req: `{"jsonrpc":"2.0","method":"update","params":null}`, want: ""},
	{name: "null in a batch", req: `[{"jsonrpc":"2.0","method":"get_data","params":null,"id":1},{"jsonrpc":"2.0","method":"get_data","params":"x","id":2}]`,
		want: `[` + wantResult(`["hello",5]`, "1") + `,` + wantError(jsonrpc.CodeInvalidRequest, "2") + `]`},
	{name: "string", req: `{"jsonrpc":"2.0","method":"subtract","params":"bar","id":1}`, want: wantError(jsonrpc.CodeInvalidRequest, "1")},
	{name: "false", req: `{"jsonrpc":"2.0","method":"get_data","params":false,"id":1}`, want: wantError(jsonrpc.CodeInvalidRequest, "1")},
}

func TestAcceptNullParams(t *testing.T) {
	t.Parallel()
	runCases(t, newRuleServer(t, jsonrpc.AcceptNullParams()).Server, nullParamsCases)
}

// "id" MUST be a string, a number or null, and the response echoes it as
// sent.
var idCases = []rpcCase{
	{name: "integer", req: call("subtract", "[42,23]", "1"), want: wantResult("19", "1"), id: "1"},
	{name: "zero", req: call("subtract", "[42,23]", "0"), want: wantResult("19", "0"), id: "0"},
	{name: "negative", req: call("subtract", "[42,23]", "-7"), want: wantResult("19", "-7"), id: "-7"},
	{name: "huge integer", req: call("subtract", "[42,23]", "12345678901234567890123"), want: wantResult("19", "12345678901234567890123"), id: "12345678901234567890123"},
	{name: "fraction", req: call("subtract", "[42,23]", "1.5"), want: wantResult("19", "1.5"), id: "1.5"},
	{name: "trailing zero", req: call("subtract", "[42,23]", "12.50"), want: wantResult("19", "12.5"), id: "12.50"},
	{name: "minus zero", req: call("subtract", "[42,23]", "-0"), want: wantResult("19", "-0"), id: "-0"},
	{name: "overflowing exponent", req: call("subtract", "[42,23]", "1e400"), want: wantResult("19", "1e400"), id: "1e400"},
	{name: "exponent", req: call("subtract", "[42,23]", "-1.5E+10"), want: wantResult("19", "-15000000000"), id: "-1.5E+10"},
	{name: "string", req: call("subtract", "[42,23]", `"abc"`), want: wantResult("19", `"abc"`), id: `"abc"`},
	{name: "empty string", req: call("subtract", "[42,23]", `""`), want: wantResult("19", `""`), id: `""`},
	{name: "escaped string", req: call("subtract", "[42,23]", `"\u00e9"`), want: wantResult("19", `"é"`), id: `"\u00e9"`},
	{name: "escapes kept", req: call("subtract", "[42,23]", `"a\"b\\c\/\n"`), want: wantResult("19", `"a\"b\\c/\n"`), id: `"a\"b\\c\/\n"`},
	{name: "UTF-8 string", req: call("subtract", "[42,23]", `"é€😀"`), want: wantResult("19", `"é€😀"`), id: `"é€😀"`},
	{name: "null", req: call("subtract", "[42,23]", "null"), want: wantResult("19", "null"), id: "null"},
	{name: "spaced", req: `{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id" :  7 }`, want: wantResult("19", "7"), id: "7"},
	{name: "object", req: call("subtract", "[42,23]", "{}"), want: invalidRequest, id: "null"},
	{name: "object with id", req: call("subtract", "[42,23]", `{"id":1}`), want: invalidRequest, id: "null"},
	{name: "array", req: call("subtract", "[42,23]", "[1]"), want: invalidRequest, id: "null"},
	{name: "empty array", req: call("subtract", "[42,23]", "[]"), want: invalidRequest, id: "null"},
	{name: "true", req: call("subtract", "[42,23]", "true"), want: invalidRequest, id: "null"},
	{name: "false", req: call("subtract", "[42,23]", "false"), want: invalidRequest, id: "null"},
	{name: "invalid kind on error", req: call("foobar", "", "[1]"), want: invalidRequest, id: "null"},
	{name: "error echoes id", req: call("foobar", "", "1e400"), want: wantNotFound("foobar", "1e400"), id: "1e400"},
	{name: "absent", req: call("subtract", "[42,23]", ""), want: ""},
}

func TestID(t *testing.T) { t.Parallel(); runCases(t, newRuleServer(t).Server, idCases) }

// A request without "id" is a notification: it is never answered, not even
// with an error. "id":null makes a request, which is answered.
var notificationCases = []rpcCase{
	{name: "call", req: call("subtract", "[42,23]", ""), want: ""},
	{name: "no result", req: call("update", "[1,2,3]", ""), want: ""},
	{name: "unknown method", req: call("foobar", "", ""), want: ""},
	{name: "rpc method", req: call("rpc.foo", "", ""), want: ""},
	{name: "invalid params", req: call("subtract", `["a"]`, ""), want: ""},
	{name: "method error", req: call("fail", "", ""), want: ""},
	{name: "plain error", req: call("failPlain", "", ""), want: ""},
	{name: "panic", req: call("panic", "", ""), want: ""},
	{name: "with context", req: call("method", "", ""), want: ""},
	{name: "id null", req: call("subtract", "[42,23]", "null"), want: wantResult("19", "null")},
	{name: "id null unknown method", req: call("foobar", "", "null"), want: wantNotFound("foobar", "null")},
	{name: "id null invalid params", req: call("subtract", `["a",1]`, "null"), want: wantError(jsonrpc.CodeInvalidParams, "null"), data: "minuend"},
}

func TestNotification(t *testing.T) {
	t.Parallel()
	runCases(t, newRuleServer(t).Server, notificationCases)
}

// Notifications run their method.
func TestNotificationRuns(t *testing.T) {
	t.Parallel()
	rs := newRuleServer(t)
	for _, req := range []string{
		call("update", "[1,2,3,4,5]", ""),
		call("notify_hello", "[7]", ""),
		call("notify_hello", `["not an int"]`, ""),
		`[` + call("notify_sum", "[1,2,4]", "") + `,` + call("notify_hello", "[7]", "") + `]`,
	} {
		if got := rs.ProcessString(context.Background(), req); got != "" {
			t.Errorf("ProcessString(%s) = %s, want no response", req, got)
		}
	}
	if got := rs.spec.Updates.Load(); got != 1 {
		t.Errorf("update ran %d times, want 1", got)
	}
	if got := rs.spec.Hellos.Load(); got != 2 {
		t.Errorf("notify_hello ran %d times, want 2 (not for invalid params)", got)
	}
	if got := rs.spec.Sums.Load(); got != 1 {
		t.Errorf("notify_sum ran %d times, want 1", got)
	}
}

// The error codes of section 5.1, and the documented mapping of method
// errors.
var errorCases = []rpcCase{
	{name: "-32700 ignores a readable id", req: `{"jsonrpc":"2.0","method":"subtract","id":1,`, want: parseError, id: "null"},
	{name: "-32700 ignores id before error", req: `{"id":1,"jsonrpc":"2.0","method":"subtract","params":[1,}`, want: parseError, id: "null"},
	{name: "-32601", req: call("foobar", "[1]", `"x"`), want: wantNotFound("foobar", `"x"`)},
	{name: "-32602 missing positional", req: call("subtract", "[42]", "1"), want: invalidParams, data: "subtrahend"},
	{name: "-32602 no params", req: call("subtract", "", "1"), want: invalidParams, data: "minuend"},
	{name: "-32602 too many", req: call("subtract", "[1,2,3]", "1"), want: invalidParams, data: "too many"},
	{name: "-32602 params to none", req: call("get_data", "[1]", "1"), want: invalidParams, data: "too many"},
	{name: "-32602 wrong type", req: call("subtract", `["42",23]`, "1"), want: invalidParams, data: "minuend"},
	{name: "-32602 wrong type second", req: call("subtract", `[42,true]`, "1"), want: invalidParams, data: "subtrahend"},
	{name: "-32602 fraction for int", req: call("addInt", `[1.5,2]`, "1"), want: invalidParams, data: "param 0"},
	{name: "-32602 int overflow", req: call("addInt", `[1,99999999999999999999]`, "1"), want: invalidParams, data: "param 1"},
	{name: "-32602 number for string", req: call("StringMe", `[1]`, "1"), want: invalidParams, data: "string"},
	{name: "-32602 null for float", req: call("Test2", `[null]`, "1"), want: invalidParams, data: "param 0"},
	{name: "-32602 string for pointer", req: call("NullableFloatToNullableFloat", `["x"]`, "1"), want: invalidParams, data: "param 0"},
	{name: "-32602 missing named", req: call("subtract", `{"minuend":42}`, "1"), want: invalidParams, data: "subtrahend"},
	{name: "-32602 unknown named", req: call("subtract", `{"minuend":42,"subtrahend":23,"extra":1}`, "1"), want: invalidParams, data: "extra"},
	{name: "-32602 named given twice", req: call("subtract", `{"minuend":42,"minuend":1,"subtrahend":23}`, "1"), want: invalidParams, data: "minuend"},
	{name: "-32602 named to positional-only", req: call("addInt", `{"a":1,"b":2}`, "1"), want: invalidParams, data: "named"},
	{name: "-32602 named to echo", req: call("echo", `{"v":1}`, "1"), want: invalidParams, data: "named"},
	{name: "wrapped *Error", req: call("fail", "", "1"), want: `{"jsonrpc":"2.0","error":{"code":-32001,"message":"custom failure","data":{"retry":true}},"id":1}`},
	{name: "plain error, without its text", req: call("failPlain", "", "1"), want: wantErrorMessage(jsonrpc.CodeServerError, "Server error", "1")},
	{name: "panic", req: call("panic", "", "1"), want: wantError(jsonrpc.CodeInternalError, "1")},
	{name: "NaN result", req: call("nan", "", "1"), want: `{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error","data":"result: NaN cannot be encoded: JSON has no NaN or infinities"},"id":1}`},
	{name: "+Inf result", req: call("add", "[1e308,1e308]", "1"), want: `{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error","data":"result: +Inf cannot be encoded: JSON has no NaN or infinities"},"id":1}`},
	{name: "-Inf result", req: call("add", "[-1e308,-1e308]", "1"), want: `{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error","data":"result: -Inf cannot be encoded: JSON has no NaN or infinities"},"id":1}`},
	{name: "context.Canceled", req: call("cancelled", "", "1"), want: wantError(jsonrpc.CodeCancelled, "1")},
	{name: "context.DeadlineExceeded", req: call("deadline", "", "1"), want: wantError(jsonrpc.CodeDeadline, "1")},
	{name: "result null", req: call("nothing", "", "1"), want: wantResult("null", "1")},
	{name: "nil pointer result", req: call("nilPtr", "", "1"), want: wantResult("null", "1")},
	{name: "null pointer param", req: call("NullableFloatToNullableFloat", "[null]", "1"), want: wantResult("null", "1")},
}

func TestErrors(t *testing.T) { t.Parallel(); runCases(t, newRuleServer(t).Server, errorCases) }

// With ErrorDetails, a plain error's text is the message; nothing else
// changes.
func TestErrorDetails(t *testing.T) {
	t.Parallel()
	srv := newRuleServer(t, jsonrpc.ErrorDetails()).Server
	runCases(t, srv, []rpcCase{
		{name: "plain error with its text", req: call("failPlain", "", "1"), want: wantErrorMessage(jsonrpc.CodeServerError, "plain failure", "1")},
		{name: "wrapped *Error", req: call("fail", "", "1"), want: `{"jsonrpc":"2.0","error":{"code":-32001,"message":"custom failure","data":{"retry":true}},"id":1}`},
		{name: "panic", req: call("panic", "", "1"), want: wantError(jsonrpc.CodeInternalError, "1")},
	})
}

// A method that panics answers -32603, and the server keeps serving.
func TestPanicKeepsServing(t *testing.T) {
	t.Parallel()
	rs := newRuleServer(t)
	for i := range 3 {
		checkCase(t, rs.Server, rpcCase{name: fmt.Sprint("panic ", i), req: call("panic", "", "1"), want: wantError(jsonrpc.CodeInternalError, "1")})
		checkCase(t, rs.Server, rpcCase{name: fmt.Sprint("after ", i), req: call("subtract", "[42,23]", "2"), want: wantResult("19", "2")})
	}
	checkCase(t, rs.Server, rpcCase{
		name: "batch",
		req:  "[" + call("panic", "", "1") + "," + call("subtract", "[42,23]", "2") + "]",
		want: "[" + wantError(jsonrpc.CodeInternalError, "1") + "," + wantResult("19", "2") + "]",
	})
}

// A null result is written as "result":null, never omitted.
func TestNullResult(t *testing.T) {
	t.Parallel()
	rs := newRuleServer(t)
	for _, req := range []string{
		call("nothing", "", "1"),
		call("nilPtr", "", "1"),
		call("update", "[1]", "1"),
		call("NullableFloatToNullableFloat", "[null]", "1"),
		call("echo", "[null]", "1"),
	} {
		if got := rs.ProcessString(context.Background(), req); !strings.Contains(got, `"result":null`) {
			t.Errorf("ProcessString(%s) = %s, want it to hold \"result\":null", req, got)
		}
	}
}

// A batch is answered with an array of the responses to its requests that
// are not notifications; an empty batch is an invalid request.
var batchCases = []rpcCase{
	{name: "empty", req: `[]`, want: invalidRequest},
	{name: "empty with space", req: " [ \n ] ", want: invalidRequest},
	{name: "invalid elements", req: `[1,"a",null,true,{},[]]`, want: "[" + strings.Repeat(invalidRequest+",", 5) + invalidRequest + "]"},
	{name: "nested batch", req: `[[` + call("subtract", "[42,23]", "1") + `]]`, want: "[" + invalidRequest + "]"},
	{name: "one call", req: `[` + call("subtract", "[42,23]", "1") + `]`, want: "[" + wantResult("19", "1") + "]"},
	{
		name: "calls and notifications",
		req:  "[" + call("subtract", "[42,23]", "1") + "," + call("update", "[1]", "") + "," + call("foobar", "", "") + "," + call("subtract", "[23,42]", "2") + "]",
		want: "[" + wantResult("19", "1") + "," + wantResult("-19", "2") + "]",
	},
	{
		name: "mixed outcomes",
		req:  "[" + call("foobar", "", `"a"`) + "," + `{"jsonrpc":"2.0","method":1,"id":2}` + "," + call("failPlain", "", "3") + "," + call("get_data", "", "4") + "]",
		want: "[" + wantNotFound("foobar", `"a"`) + "," + wantError(jsonrpc.CodeInvalidRequest, "2") + "," +
			wantErrorMessage(jsonrpc.CodeServerError, "Server error", "3") + "," + wantResult(`["hello",5]`, "4") + "]",
	},
	{name: "all notifications", req: "[" + call("update", "[1]", "") + "," + call("foobar", "", "") + "," + call("panic", "", "") + "]", want: ""},
	{name: "invalid notification answered", req: "[" + call("update", "[1]", "") + `,{"method":"update"}]`, want: "[" + invalidRequest + "]"},
	{name: "same ids", req: "[" + call("subtract", "[42,23]", "1") + "," + call("subtract", "[42,23]", "1") + "]", want: "[" + wantResult("19", "1") + "," + wantResult("19", "1") + "]"},
	{name: "duplicate member in element", req: `[{"jsonrpc":"2.0","method":"get_data","id":1,"id":2}]`, want: "[" + invalidRequest + "]"},
	{name: "invalid JSON element", req: `[` + call("subtract", "[42,23]", "1") + `,{"jsonrpc"]`, want: parseError},
	{name: "invalid UTF-8 in element", req: "[" + call("StringMe", "[\"\xff\"]", "1") + "]", want: parseError},
}

func TestBatch(t *testing.T) { t.Parallel(); runCases(t, newRuleServer(t).Server, batchCases) }

// subtractions returns n requests subtract(i, 1) with id i, and their
// responses, followed by extra requests and responses (alternating).
func subtractions(n int, extra ...string) (req, want string) {
	var reqs, wants []string
	for i := range n {
		reqs = append(reqs, call("subtract", fmt.Sprintf("[%d,1]", i), fmt.Sprint(i)))
		wants = append(wants, wantResult(fmt.Sprint(i-1), fmt.Sprint(i)))
	}
	for i := 0; i+1 < len(extra); i += 2 {
		reqs = append(reqs, extra[i])
		if extra[i+1] != "" {
			wants = append(wants, extra[i+1])
		}
	}
	return "[" + strings.Join(reqs, ",") + "]", "[" + strings.Join(wants, ",") + "]"
}

// bigBatchCase is a case of a batch of n subtractions and extra requests
// and responses (see subtractions).
func bigBatchCase(name string, n int, extra ...string) rpcCase {
	req, want := subtractions(n, extra...)
	return rpcCase{name: name, req: req, want: want}
}

// Batches longer than any fixed-size buffer of the implementation (the
// requests past the 16th) follow the same rules.
var bigBatchCases = []rpcCase{
	bigBatchCase("40 calls", 40),
	bigBatchCase("duplicate member after 16", 16, `{"jsonrpc":"2.0","method":"get_data","id":"a","id":"b"}`, invalidRequest),
	bigBatchCase("escaped duplicate after 16", 16, `{"id":"a","jsonrpc":"2.0","method":"get_data","\u0069d":"b"}`, invalidRequest),
	bigBatchCase("non-objects after 16", 17, `1`, invalidRequest, `[]`, invalidRequest, `null`, invalidRequest),
	bigBatchCase("spaced and escaped after 16", 16,
		` { "method" : "g\u0065t_data" , "\u006asonrpc" : "2\u002e0" , "id" : "x" } `, wantResult(`["hello",5]`, `"x"`),
		call("get_data", "", "1e400"), wantResult(`["hello",5]`, "1e400")),
	bigBatchCase("invalid requests after 16", 16,
		`{"jsonrpc":"2.0","method":1,"id":"m"}`, wantError(jsonrpc.CodeInvalidRequest, `"m"`),
		`{"jsonrpc":"2.0","method":"get_data","params":1,"id":"p"}`, wantError(jsonrpc.CodeInvalidRequest, `"p"`),
		`{"jsonrpc":"2.0","method":"get_data","id":[1]}`, invalidRequest,
		call("foobar", "", `"u"`), wantNotFound("foobar", `"u"`)),
	bigBatchCase("notifications after 16", 17, call("update", "[1]", ""), "", call("foobar", "", ""), "", call("panic", "", ""), ""),
	{name: "only notifications", req: "[" + strings.Repeat(call("update", "[1]", "")+",", 20) + call("update", "[1]", "") + "]", want: ""},
	{name: "notifications then a call", req: "[ " + strings.Repeat(call("update", "[1]", "")+" , ", 20) + call("get_data", "", `"last"`) + " ]", want: "[" + wantResult(`["hello",5]`, `"last"`) + "]"},
	{name: "invalid UTF-8 after 16", req: bigBatchCase("", 16, "[\"\xff\"]", "").req, want: parseError},
	{name: "too deep after 16", req: bigBatchCase("", 16, nested(jsonrpc.DefaultMaxDepth), "").req, want: parseError},
	{name: "syntax error after 16", req: bigBatchCase("", 16, `{"jsonrpc":"2.0","method":"get_data","id":1,}`, "").req, want: parseError},
	{name: "trailing comma after 16", req: strings.TrimSuffix(bigBatchCase("", 17).req, "]") + ",]", want: parseError},
	{name: "trailing garbage after 16", req: bigBatchCase("", 17).req + " x", want: parseError},
}

func TestBigBatch(t *testing.T) { t.Parallel(); runCases(t, newRuleServer(t).Server, bigBatchCases) }

// ticks returns a batch of n calls of "tick".
func ticks(n int) string {
	reqs := make([]string, n)
	for i := range reqs {
		reqs[i] = call("tick", "", fmt.Sprint(i))
	}
	return "[" + strings.Join(reqs, ",") + "]"
}

// Requests for a server with Limits.MaxBatch 2.
var maxBatchCases = []struct {
	rpcCase
	ran int64 // number of calls of tick
}{
	{rpcCase{name: "at the limit", req: ticks(2), want: "[" + wantResult("null", "0") + "," + wantResult("null", "1") + "]"}, 2},
	{rpcCase{name: "over the limit", req: ticks(3), want: invalidRequest, data: "limit"}, 0},
	{rpcCase{name: "over the limit with invalid elements", req: `[1,2,3]`, want: invalidRequest, data: "limit"}, 0},
	{rpcCase{name: "over the limit notifications", req: "[" + call("tick", "", "") + "," + call("tick", "", "") + "," + call("tick", "", "") + "]", want: invalidRequest, data: "limit"}, 0},
}

// A batch over the MaxBatch limit is answered with one error and none of its
// requests runs.
func TestMaxBatch(t *testing.T) {
	t.Parallel()
	for _, c := range maxBatchCases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			rs := newRuleServer(t, jsonrpc.UseLimits(jsonrpc.Limits{MaxBatch: 2}))
			checkCase(t, rs.Server, c.rpcCase)
			if got := rs.ticks.Load(); got != c.ran {
				t.Errorf("tick ran %d times, want %d", got, c.ran)
			}
		})
	}
	t.Run("default", func(t *testing.T) {
		t.Parallel()
		rs := newRuleServer(t, jsonrpc.UseLimits(jsonrpc.Limits{MaxBatch: 0}))
		var resps []json.RawMessage
		if err := json.Unmarshal(rs.Process(context.Background(), nil, []byte(ticks(jsonrpc.DefaultMaxBatch))), &resps); err != nil || len(resps) != jsonrpc.DefaultMaxBatch {
			t.Errorf("batch of DefaultMaxBatch: got %d responses (%v), want %d", len(resps), err, jsonrpc.DefaultMaxBatch)
		}
		rs.ticks.Store(0)
		checkCase(t, rs.Server, rpcCase{name: "over", req: ticks(jsonrpc.DefaultMaxBatch + 1), want: invalidRequest, data: "limit"})
		if got := rs.ticks.Load(); got != 0 {
			t.Errorf("tick ran %d times in a batch over the limit, want 0", got)
		}
	})
}

// The request document must be exactly one valid JSON value in UTF-8.
var documentCases = []rpcCase{
	{name: "invalid UTF-8 in param", req: call("StringMe", "[\"\xff\"]", "1"), want: parseError},
	{name: "invalid UTF-8 in method", req: call("String\xffMe", "[\"a\"]", "1"), want: parseError},
	{name: "invalid UTF-8 in id", req: call("StringMe", `["a"]`, "\"\xfe\""), want: parseError},
	{name: "invalid UTF-8 in member name", req: `{"jsonrpc":"2.0","method":"get_data","id":1,"` + "\xff" + `":1}`, want: parseError},
	{name: "overlong encoding", req: call("StringMe", "[\"\xc0\xaf\"]", "1"), want: parseError},
	{name: "encoded surrogate", req: call("StringMe", "[\"\xed\xa0\x80\"]", "1"), want: parseError},
	{name: "truncated sequence", req: call("StringMe", "[\"\xe2\x82\"]", "1"), want: parseError},
	{name: "raw control character", req: call("StringMe", "[\"a\x01\"]", "1"), want: parseError},
	{name: "valid UTF-8", req: call("StringMe", `["é€😀"]`, "1"), want: wantResult(`"é€😀"`, "1")},
	{name: "escaped surrogate pair", req: call("StringMe", `["\ud83d\ude00"]`, "1"), want: wantResult(`"😀"`, "1")},
	{name: "duplicate id", req: `{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1,"id":2}`, want: invalidRequest, id: "null"},
	{name: "duplicate method", req: `{"jsonrpc":"2.0","method":"subtract","method":"subtract","params":[42,23],"id":1}`, want: invalidRequest, id: "null"},
	{name: "duplicate jsonrpc", req: `{"jsonrpc":"2.0","jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}`, want: invalidRequest, id: "null"},
	{name: "duplicate params", req: `{"jsonrpc":"2.0","method":"subtract","params":[42,23],"params":[42,23],"id":1}`, want: invalidRequest, id: "null"},
	{name: "duplicate escaped id", req: `{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1,"\u0069d":2}`, want: invalidRequest, id: "null"},
	{name: "duplicate notification", req: `{"jsonrpc":"2.0","method":"update","method":"update"}`, want: invalidRequest},
	{name: "trailing garbage", req: call("subtract", "[42,23]", "1") + " x", want: parseError},
	{name: "two objects", req: call("subtract", "[42,23]", "1") + call("subtract", "[42,23]", "2"), want: parseError},
	{name: "two objects spaced", req: call("subtract", "[42,23]", "1") + "\n" + call("subtract", "[42,23]", "2"), want: parseError},
	{name: "trailing brace", req: call("subtract", "[42,23]", "1") + "}", want: parseError},
	{name: "trailing comma", req: call("subtract", "[42,23]", "1") + ",", want: parseError},
	{name: "trailing NUL", req: call("subtract", "[42,23]", "1") + "\x00", want: parseError},
	{name: "batch with trailing garbage", req: "[" + call("subtract", "[42,23]", "1") + "]]", want: parseError},
	{name: "trailing white space", req: call("subtract", "[42,23]", "1") + " \t\r\n", want: wantResult("19", "1")},
	{name: "leading white space", req: " \t\r\n" + call("subtract", "[42,23]", "1"), want: wantResult("19", "1")},
	{name: "empty", req: "", want: parseError},
	{name: "white space only", req: " \t\r\n", want: parseError},
	{name: "BOM", req: "\ufeff" + call("subtract", "[42,23]", "1"), want: parseError},
	{name: "truncated", req: `{"jsonrpc":"2.0","method":"subtract"`, want: parseError},
	{name: "single quotes", req: `{'jsonrpc':'2.0','method':'get_data','id':1}`, want: parseError},
	{name: "comment", req: `{"jsonrpc":"2.0","method":"get_data","id":1 /* c */}`, want: parseError},
	{name: "leading zero", req: call("subtract", "[042,23]", "1"), want: parseError},
	{name: "bare fraction", req: call("subtract", "[.5,23]", "1"), want: parseError},
	{name: "plus sign", req: call("subtract", "[+1,23]", "1"), want: parseError},
	{name: "NaN", req: call("subtract", "[NaN,23]", "1"), want: parseError},
	{name: "bad escape", req: call("StringMe", `["\x41"]`, "1"), want: parseError},
	{name: "short unicode escape", req: call("StringMe", `["\u12"]`, "1"), want: parseError},
	{name: "number", req: `1`, want: invalidRequest},
	{name: "string", req: `"x"`, want: invalidRequest},
	{name: "null", req: `null`, want: invalidRequest},
	{name: "true", req: `true`, want: invalidRequest},
	{name: "empty object", req: `{}`, want: invalidRequest},
}

func TestDocument(t *testing.T) { t.Parallel(); runCases(t, newRuleServer(t).Server, documentCases) }

// Nesting deeper than MaxDepth (DefaultMaxDepth by default) is a parse
// error.
var depthCases = []rpcCase{
	{name: "at the default limit", req: nested(jsonrpc.DefaultMaxDepth), want: wantResult(strings.Repeat("[", jsonrpc.DefaultMaxDepth-2)+strings.Repeat("]", jsonrpc.DefaultMaxDepth-2), "1")},
	{name: "over the default limit", req: nested(jsonrpc.DefaultMaxDepth + 1), want: parseError},
	{name: "far over the default limit", req: strings.Repeat("[", 1000), want: parseError},
	{name: "batch over the default limit", req: "[" + nested(jsonrpc.DefaultMaxDepth) + "]", want: parseError},
	{name: "objects over the default limit", req: call("echo", "["+strings.Repeat(`{"a":`, jsonrpc.DefaultMaxDepth-1)+"1"+strings.Repeat("}", jsonrpc.DefaultMaxDepth-1)+"]", "1"), want: parseError},
}

var smallDepthCases = []rpcCase{
	{name: "at the limit", req: nested(3), want: wantResult("[]", "1")},
	{name: "over the limit", req: nested(4), want: parseError},
	{name: "object over the limit", req: call("echo", `[{"a":{}}]`, "1"), want: parseError},
	{name: "batch at the limit", req: "[" + call("echo", "[1]", "1") + "]", want: "[" + wantResult("1", "1") + "]"},
	{name: "batch over the limit", req: "[" + nested(3) + "]", want: parseError},
}

func TestMaxDepth(t *testing.T) {
	t.Parallel()
	t.Run("default", func(t *testing.T) { t.Parallel(); runCases(t, newRuleServer(t).Server, depthCases) })
	t.Run("3", func(t *testing.T) {
		t.Parallel()
		runCases(t, newRuleServer(t, jsonrpc.UseLimits(jsonrpc.Limits{MaxDepth: 3})).Server, smallDepthCases)
	})
	t.Run("1", func(t *testing.T) {
		t.Parallel()
		runCases(t, newRuleServer(t, jsonrpc.UseLimits(jsonrpc.Limits{MaxDepth: 1})).Server, depthOneCases)
	})
}

// With Limits.MaxDepth 1 only a request object without params fits: a batch
// nests its requests at depth 2.
var depthOneCases = []rpcCase{
	{name: "object", req: call("get_data", "", "1"), want: wantResult(`["hello",5]`, "1")},
	{name: "object with params", req: call("get_data", "[]", "1"), want: parseError},
	{name: "empty batch", req: "[]", want: invalidRequest},
	{name: "batch of scalars", req: "[1]", want: "[" + invalidRequest + "]"},
	{name: "batch", req: `[{"id":1,"jsonrpc":"2.0","method":"get_data"}]`, want: parseError},
	{name: "batch of canonical request", req: "[" + call("get_data", "", "1") + "]", want: parseError},
}

// Defaults makes trailing params optional.
var defaultsCases = []rpcCase{
	{name: "positional omitted", req: call("greet", `["Ann"]`, "1"), want: wantResult(`"Hello, Ann"`, "1")},
	{name: "positional given", req: call("greet", `["Ann","Hi"]`, "1"), want: wantResult(`"Hi, Ann"`, "1")},
	{name: "named omitted", req: call("greet", `{"name":"Ann"}`, "1"), want: wantResult(`"Hello, Ann"`, "1")},
	{name: "named given", req: call("greet", `{"greeting":"Hi","name":"Ann"}`, "1"), want: wantResult(`"Hi, Ann"`, "1")},
	{name: "required missing", req: call("greet", `{"greeting":"Hi"}`, "1"), want: invalidParams, data: `"name"`},
	{name: "required missing positional", req: call("greet", `[]`, "1"), want: invalidParams, data: `"name"`},
	{name: "no params", req: call("greet", "", "1"), want: invalidParams, data: `"name"`},
	{name: "three params two defaults", req: call("add3", `[1]`, "1"), want: wantResult("123", "1")},
	{name: "three params one default", req: call("add3", `[1,4]`, "1"), want: wantResult("143", "1")},
	{name: "three params none omitted", req: call("add3", `[1,4,5]`, "1"), want: wantResult("145", "1")},
	{name: "named middle omitted", req: call("add3", `{"c":5,"a":1}`, "1"), want: wantResult("125", "1")},
	{name: "named required missing", req: call("add3", `{"b":5}`, "1"), want: invalidParams, data: `"a"`},
}

func TestDefaults(t *testing.T) { t.Parallel(); runCases(t, newRuleServer(t).Server, defaultsCases) }

// A variadic function takes the rest of a positional params array.
var variadicCases = []rpcCase{
	{name: "none", req: call("sum", `[]`, "1"), want: wantResult("0", "1")},
	{name: "no params", req: call("sum", "", "1"), want: wantResult("0", "1")},
	{name: "one", req: call("sum", `[1]`, "1"), want: wantResult("1", "1")},
	{name: "many", req: call("sum", `[1,2,3.5]`, "1"), want: wantResult("6.5", "1")},
	{name: "wrong type", req: call("sum", `[1,"x"]`, "1"), want: invalidParams, data: "param 0"},
	{name: "no result", req: call("update", `[1,2,3]`, "1"), want: wantResult("null", "1")},
	{name: "fixed and rest", req: call("join", `["-","a","b","c"]`, "1"), want: wantResult(`"a-b-c"`, "1")},
	{name: "fixed only", req: call("join", `["-"]`, "1"), want: wantResult(`""`, "1")},
	{name: "fixed missing", req: call("join", `[]`, "1"), want: invalidParams, data: "param 0"},
	{name: "rest wrong type", req: call("join", `["-","a",1]`, "1"), want: invalidParams, data: "param 1"},
}

func TestVariadic(t *testing.T) { t.Parallel(); runCases(t, newRuleServer(t).Server, variadicCases) }

// A single struct param is bound by its json names (named params) or by
// field order (positional params).
var structCases = []rpcCase{
	{name: "named", req: call("point", `{"x":1,"y":2,"label":"p"}`, "1"), want: wantResult(`"1,2,p,0"`, "1")},
	{name: "named partial", req: call("point", `{"y":2}`, "1"), want: wantResult(`"0,2,,0"`, "1")},
	{name: "positional", req: call("point", `[1,2,"p"]`, "1"), want: wantResult(`"1,2,p,0"`, "1")},
	{name: "positional partial", req: call("point", `[1]`, "1"), want: wantResult(`"1,0,,0"`, "1")},
	{name: "positional skips json:\"-\"", req: call("point", `[1,2,"p",4]`, "1"), want: invalidParams, data: "too many"},
	{name: "positional wrong type", req: call("point", `["1"]`, "1"), want: invalidParams, data: `"x"`},
	{name: "named wrong type", req: call("point", `{"x":"1"}`, "1"), want: invalidParams, data: "x"},
	{name: "no params", req: call("point", "", "1"), want: wantResult(`"0,0,,0"`, "1")},
	{name: "pointer named", req: call("pointPtr", `{"x":1,"y":2}`, "1"), want: wantResult(`"1,2,,0"`, "1")},
	{name: "pointer positional", req: call("pointPtr", `[1,2,"p"]`, "1"), want: wantResult(`"1,2,p,0"`, "1")},
	{name: "whole in an array", req: call("point", `[{"x":1,"y":2,"label":"p"}]`, "1"), want: wantResult(`"1,2,p,0"`, "1")},
	{name: "pointer whole in an array", req: call("pointPtr", `[{"y":2}]`, "1"), want: wantResult(`"0,2,,0"`, "1")},
	{name: "whole in an array, unknown member", req: call("point", `[{"x":1,"z":2}]`, "1"), want: invalidParams, data: "z"},
	{name: "whole in an array, then more", req: call("point", `[{"x":1},2]`, "1"), want: invalidParams, data: `"x"`},
	{name: "object as the first field", req: call("wrapped", `[{"x":5},"q"]`, "1"), want: wantResult(`"5,0,,0 q"`, "1")},
	{name: "object as the only field given", req: call("wrapped", `[{"x":5}]`, "1"), want: wantResult(`"5,0,,0 "`, "1")},
	{name: "wrapped whole in an array", req: call("wrapped", `[{"p":{"x":5},"q":"r"}]`, "1"), want: wantResult(`"5,0,,0 r"`, "1")},
}

func TestStructParam(t *testing.T) { t.Parallel(); runCases(t, newRuleServer(t).Server, structCases) }

// ProcessString and Process agree; Process appends to dst and leaves req as
// it was.
func TestProcessVariants(t *testing.T) {
	t.Parallel()
	rs := newRuleServer(t)
	prefix := []byte("prefix:")
	for _, req := range ruleRequests() {
		in := []byte(req)
		got := rs.Process(context.Background(), nil, in)
		if s := rs.ProcessString(context.Background(), req); s != string(got) {
			t.Errorf("request %q:\nProcessString = %s\n      Process = %s", req, s, got)
		}
		dst := slices.Clip(slices.Clone(prefix))
		if got2 := rs.Process(context.Background(), dst, in); !bytes.Equal(got2, append(slices.Clone(prefix), got...)) {
			t.Errorf("request %q:\nProcess(%q, req) = %q, want the prefix and %q", req, prefix, got2, got)
		}
		if string(in) != req {
			t.Errorf("Process modified its request %q to %q", req, in)
		}
	}
}

// A method returning an error that is a nil *jsonrpc.Error must not crash
// the server nor produce invalid JSON.
func TestTypedNilError(t *testing.T) {
	t.Parallel()
	newServer := func(opts ...jsonrpc.Option) *jsonrpc.Server {
		srv := jsonrpc.NewServer(opts...)
		srv.MustRegister("nilError", func() error { return (*jsonrpc.Error)(nil) })
		srv.MustRegister("nilErrorCtx", func(context.Context) error { return (*jsonrpc.Error)(nil) })
		srv.MustRegister("ok", func() {})
		return srv
	}
	intercept := jsonrpc.Intercept(func(ctx context.Context, _ *jsonrpc.Call, next func(context.Context) error) error {
		next(ctx)
		return (*jsonrpc.Error)(nil)
	})
	tests := []struct {
		name   string
		srv    *jsonrpc.Server
		method string
	}{
		{"fast path", newServer(), "nilError"},
		{"with context", newServer(), "nilErrorCtx"},
		{"interceptor", newServer(intercept), "ok"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			defer func() {
				if v := recover(); v != nil {
					t.Errorf("Process panicked: %v", v)
				}
			}()
			req := call(tt.method, "", "1")
			got := tt.srv.Process(context.Background(), nil, []byte(req))
			if len(got) == 0 {
				t.Fatalf("request %s: no response", req)
			}
			if err := testutil.ValidateResponse(got); err != nil {
				t.Errorf("request %s: %v", req, err)
			}
		})
	}
}

// outcome returns the error code of a response, or 0 and its result; for a
// batch, 0 and the whole response. It does not stop the test, so that
// goroutines may call it.
func outcome(resp string) (jsonrpc.Code, string) {
	if strings.HasPrefix(resp, "[") {
		return 0, resp
	}
	var r struct {
		Result json.RawMessage
		Error  *jsonrpc.Error
	}
	if err := json.Unmarshal([]byte(resp), &r); err != nil {
		return -1, resp
	}
	if r.Error != nil {
		return r.Error.Code, ""
	}
	return 0, string(r.Result)
}

// dst may be the room after req in the same array: the answer never
// reaches the request, whatever the methods do with their params.
func TestProcessDstAfterReq(t *testing.T) {
	t.Parallel()
	srv := demo.NewServer()
	// A method that appends to a span of the request (against the Call's
	// contract) must not write over the answer being built after it.
	srv.MustRegister("grow", func(ctx context.Context, _ ...string) int {
		p := jsonrpc.CallOf(ctx).Params()
		_ = append(p, strings.Repeat("X", 64)...)
		return len(p)
	})
	paramsLast := `{"jsonrpc":"2.0","method":"grow","id":1,"params":["a","b"]}`
	for _, req := range append(slices.Clone(demo.Requests), demo.Batch, paramsLast, `[`+paramsLast+`,`+call("add", "[1,2]", "3")+`]`) {
		want := srv.ProcessString(context.Background(), req)
		buf := make([]byte, len(req), len(req)+4096)
		copy(buf, req)
		got := srv.Process(context.Background(), buf[len(req):], buf[:len(req)])
		if string(got) != want || string(buf[:len(req)]) != req {
			t.Errorf("Process into the room after %s: got %s, want %s; request now %s", req, got, want, buf[:len(req)])
		}
		srv.ProcessAsync(context.Background(), buf[len(req):], buf[:len(req)], func(resp []byte) {
			if string(resp) != want {
				t.Errorf("ProcessAsync into the room after %s: got %s, want %s", req, resp, want)
			}
		})
		if string(buf[:len(req)]) != req {
			t.Errorf("ProcessAsync changed the request to %s", buf[:len(req)])
		}
	}
}

// MaxResponse bounds a response as it is built: an answer over the limit is
// replaced by the limit error with its id, and in a batch the calls after
// the limit are not run.
func TestMaxResponse(t *testing.T) {
	t.Parallel()
	var ran atomic.Int64
	srv := jsonrpc.NewServer(jsonrpc.UseLimits(jsonrpc.Limits{MaxResponse: 300}))
	srv.MustRegister("big", func(n int) string { ran.Add(1); return strings.Repeat("x", n) })
	srv.MustRegister("slow", func(n int) string { ran.Add(1); return strings.Repeat("y", n) }, jsonrpc.Blocking())
	limit := func(id string) string {
		return `{"jsonrpc":"2.0","error":{"code":-32005,"message":"Limit exceeded","data":"response exceeds the limit of 300 bytes"},"id":` + id + `}`
	}
	for _, tt := range []struct {
		name, req, want string
		ran             int64
	}{
		{"fits", call("big", "[10]", "1"), wantResult(`"xxxxxxxxxx"`, "1"), 1},
		{"over", call("big", "[400]", "2"), limit("2"), 1},
		{"notification over", call("big", "[400]", ""), "", 1},
		{
			"batch stops at the limit",
			"[" + call("big", "[100]", "1") + "," + call("big", "[100]", "2") + "," + call("big", "[100]", "3") + "," + call("big", "[1]", "") + "," + call("nope", "", "5") + "," + call("big", "[1]", `"six"`) + "]",
			"[" + wantResult(`"`+strings.Repeat("x", 100)+`"`, "1") + "," + wantResult(`"`+strings.Repeat("x", 100)+`"`, "2") + "," + limit("3") + "," + wantNotFound("nope", "5") + "," + limit(`"six"`) + "]",
			3,
		},
		{
			"blocking calls of a batch",
			"[" + call("slow", "[100]", "1") + "," + call("slow", "[100]", "2") + "," + call("slow", "[100]", "3") + "," + call("slow", "[1]", "4") + "]",
			"[" + wantResult(`"`+strings.Repeat("y", 100)+`"`, "1") + "," + wantResult(`"`+strings.Repeat("y", 100)+`"`, "2") + "," + limit("3") + "," + limit("4") + "]",
			4,
		},
	} {
		ran.Store(0)
		done := make(chan []byte, 1)
		srv.ProcessAsync(context.Background(), nil, []byte(tt.req), func(b []byte) { done <- bytes.Clone(b) })
		got := <-done
		testutil.CheckAnswer(t, tt.name, tt.req, got, tt.want)
		if tt.want != "" && !strings.HasPrefix(tt.req, "[") && string(got) != tt.want {
			t.Errorf("%s: got %s, want exactly %s", tt.name, got, tt.want)
		}
		if n := ran.Load(); n != tt.ran {
			t.Errorf("%s: %d calls ran, want %d", tt.name, n, tt.ran)
		}
		if tt.name != "blocking calls of a batch" {
			testutil.CheckAnswer(t, tt.name+" (Process)", tt.req, srv.Process(context.Background(), nil, []byte(tt.req)), tt.want)
		}
	}
}

// By default a response may be 16 MiB: a batch asking for 256 results of
// 1 MiB each is answered with about 16 MiB, not 256.
func TestMaxResponseDefault(t *testing.T) {
	t.Parallel()
	var ran atomic.Int64
	srv := jsonrpc.NewServer()
	srv.MustRegister("big", func(n int) string { ran.Add(1); return strings.Repeat("x", n) })
	var b strings.Builder
	b.WriteString("[")
	for i := range 256 {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(call("big", "[1048576]", fmt.Sprint(i)))
	}
	b.WriteString("]")
	out := srv.Process(context.Background(), nil, []byte(b.String()))
	if len(out) > jsonrpc.DefaultMaxResponse+256*150 {
		t.Errorf("answer of %d bytes, want at most the %d-byte limit and the errors", len(out), jsonrpc.DefaultMaxResponse)
	}
	if n := ran.Load(); n > 16 {
		t.Errorf("%d calls ran, want at most 16", n)
	}
	if err := testutil.ValidateResponse(out); err != nil {
		t.Error(err)
	}
}

// UseCodes gives the errors of MaxResponse a code of the server's own,
// for a single answer, in a batch and for a sequence result collected
// into an array; the message and data stay.
func TestLimitCode(t *testing.T) {
	t.Parallel()
	srv := jsonrpc.NewServer(jsonrpc.UseLimits(jsonrpc.Limits{MaxResponse: 64}), jsonrpc.UseCodes(jsonrpc.Codes{Limit: -31005}))
	srv.MustRegister("big", func(n int) string { return strings.Repeat("x", n) })
	srv.MustRegister("endless", func() iter.Seq[string] {
		return func(yield func(string) bool) {
			for yield("0123456789") {
			}
		}
	})
	limit := func(id string) string {
		return `{"jsonrpc":"2.0","error":{"code":-31005,"message":"Limit exceeded","data":"response exceeds the limit of 64 bytes"},"id":` + id + `}`
	}
	for _, tt := range []struct{ name, req, want string }{
		{"over", call("big", "[100]", "1"), limit("1")},
		{"batch", "[" + call("big", "[1]", "1") + "," + call("big", "[100]", "2") + "]", "[" + wantResult(`"x"`, "1") + "," + limit("2") + "]"},
	} {
		if got := srv.Process(context.Background(), nil, []byte(tt.req)); string(got) != tt.want {
			t.Errorf("%s: %s, want %s", tt.name, got, tt.want)
		}
	}
	got := srv.Process(context.Background(), nil, []byte(call("endless", "", "3")))
	var resp struct{ Error *jsonrpc.Error }
	if err := json.Unmarshal(got, &resp); err != nil || resp.Error == nil || resp.Error.Code != -31005 || resp.Error.Message != "Limit exceeded" {
		t.Errorf("a sequence past MaxResponse: %s, want code -31005", got)
	}
}
