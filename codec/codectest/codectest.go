// Package codectest is the conformance suite of jsonrpc.Codec: what every
// codec of this module answers, and what a Codec of your own must answer to
// take their place.
//
// Run serves methods over the suite's types on a jsonrpc.Server that uses
// the codec, once for every method (UseCodec) and once for each method on
// its own (MethodCodec), sends requests to it with ProcessString and checks
// the whole answer: the exact result for each kind of Go value (structs,
// nested and embedded ones, slices, arrays, maps, interfaces, pointers,
// []byte, time.Time, json.RawMessage, types with their own JSON or text
// methods), null and zero values, integers and floats at their limits,
// NaN and the infinities, unknown fields at every depth, and params that
// do not fit, which must answer jsonrpc.CodeInvalidParams with data naming
// the param or field. It runs the cases again on a server with
// jsonrpc.AllowUnknownFields, where unknown fields at every depth are
// ignored.
//
// A codec passes by giving encoding/json's answers, the policy documented
// on jsonrpc.Codec. Where encodings of the same value may differ only in
// their escapes (HTML characters, U+2028), the suite compares the decoded
// values instead of the bytes.
package codectest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
)

// Run runs the suite against c, each case a subtest.
func Run(t *testing.T, c jsonrpc.Codec) {
	t.Helper()
	if c == nil {
		t.Fatal("codectest.Run: nil codec")
	}
	t.Run("UseCodec", func(t *testing.T) {
		s := jsonrpc.NewServer(jsonrpc.UseCodec(c))
		register(t, s)
		runCases(t, s, cases)
		runCases(t, s, strictCases)
	})
	t.Run("MethodCodec", func(t *testing.T) {
		s := jsonrpc.NewServer(jsonrpc.UseCodec(panicCodec{}))
		register(t, s, jsonrpc.MethodCodec(c))
		runCases(t, s, cases)
		runCases(t, s, strictCases)
	})
	t.Run("AllowUnknownFields", func(t *testing.T) {
		s := jsonrpc.NewServer(jsonrpc.UseCodec(c), jsonrpc.AllowUnknownFields())
		register(t, s)
		runCases(t, s, cases)
		runCases(t, s, lenientCases)
	})
}

// panicCodec is the server's codec in the MethodCodec run: every method
// has its own, so that a call reaching this one is a failure.
type panicCodec struct{}

func (panicCodec) Unmarshal([]byte, any, bool) error {
	panic("codectest: the server's codec was used in place of the method's")
}

func (panicCodec) Append([]byte, any) ([]byte, error) {
	panic("codectest: the server's codec was used in place of the method's")
}

func register(t *testing.T, s *jsonrpc.Server, opts ...jsonrpc.MethodOption) {
	t.Helper()
	with := func(extra ...jsonrpc.MethodOption) []jsonrpc.MethodOption {
		return append(append([]jsonrpc.MethodOption(nil), opts...), extra...)
	}
	methods := []struct {
		name string
		fn   any
		opts []jsonrpc.MethodOption
	}{
		{"user", func(u User) User { return u }, nil},
		{"userPtr", func(u *User) *User { return u }, with(jsonrpc.ParamNames("user"))},
		{"users", func(us []User) []User { return us }, nil},
		{"item", func(it Item) Item { return it }, nil},
		{"reading", func(r Reading) Reading { return r }, nil},
		{"temp", func(c Celsius) Celsius { return c }, nil},
		{"nulls", func(n Nulls) Nulls { return n }, nil},
		{"numbers", func(n Numbers) Numbers { return n }, nil},
		{"floats", func(f []float64) []float64 { return f }, nil},
		{"echo", func(v any) any { return v }, nil},
		{"map", func(m map[string]any) map[string]any { return m }, nil},
		{"array", func(a [3]int) [3]int { return a }, nil},
		{"strings", func(s []string) []string { return s }, nil},
		{"raw", func(r json.RawMessage) json.RawMessage { return r }, nil},
		{"time", func(t time.Time) time.Time { return t }, nil},
		{"bytes", func(b []byte) []byte { return b }, nil},
		{"lookup", func(id int64, where Address) Address { return where }, with(jsonrpc.ParamNames("id", "where"))},
		{"badUTF8", func() []string { return []string{"a\xffb"} }, nil},
		{"nilResults", func() Nulls { return Nulls{} }, nil},
		// Non-finite floats: through the codec, and a primitive result,
		// which the server encodes itself.
		{"add", func(a, b float64) float64 { return a + b }, nil},
		{"inf", func(sign int) []float64 {
			if sign == 0 {
				return []float64{1, math.NaN()}
			}
			return []float64{math.Inf(sign)}
		}, nil},
		{"nanField", func() Numbers { return Numbers{F32: float32(math.NaN())} }, nil},
		{"infValue", func() map[string]float64 { return map[string]float64{"x": math.Inf(-1)} }, nil},
		{"infAny", func() any { return []any{"x", math.Inf(1)} }, nil},
	}
	for _, m := range methods {
		o := m.opts
		if o == nil {
			o = opts
		}
		if err := s.Register(m.name, m.fn, o...); err != nil {
			t.Fatalf("Register(%q): %v", m.name, err)
		}
	}
}

// A rpcCase is one call and its answer: a result, given exactly (result)
// or as a JSON value the result must equal once decoded (value), or an
// error with its code, and either its exact data or substrings of it.
type rpcCase struct {
	name   string
	method string
	params string

	result string
	value  string

	code     jsonrpc.Code
	data     string   // the exact data
	dataHas  []string // substrings of the data, a string
	dataNone bool     // the error has no data
}

const (
	adaJSON = `{"id":1,"name":"Ada","email":"ada@example.com","tags":["math","engines"],` +
		`"address":{"street":"12 St James's Square","city":"London","zip":12345},` +
		`"created":"1843-09-05T07:08:09.123456789+01:00","score":98.5,` +
		`"manager":{"id":2,"name":"Charles","tags":null,"address":{"street":"","city":"","zip":0},` +
		`"created":"0001-01-01T00:00:00Z","score":0,"manager":null}}`
	zeroUser = `{"id":0,"name":"","tags":null,"address":{"street":"","city":"","zip":0},"created":"0001-01-01T00:00:00Z","score":0,"manager":null}`
)

func nonFinite(f string) string {
	return `result: ` + f + ` cannot be encoded: JSON has no NaN or infinities`
}

var cases = []rpcCase{
	// Round trips.
	{name: "struct by names", method: "user", params: adaJSON, result: adaJSON},
	{name: "struct whole in an array", method: "user", params: "[" + adaJSON + "]", result: adaJSON},
	{name: "pointer to struct", method: "userPtr", params: `{"user":` + adaJSON + `}`, result: adaJSON},
	{name: "null pointer to struct", method: "userPtr", params: `[null]`, result: `null`},
	{name: "slice of structs", method: "users", params: `[[` + adaJSON + `,` + zeroUser + `]]`, result: `[` + adaJSON + `,` + zeroUser + `]`},
	{name: "empty slice", method: "users", params: `[[]]`, result: `[]`},
	{name: "null slice", method: "users", params: `[null]`, result: `null`},
	{name: "names match case-insensitively", method: "user", params: `{"NAME":"Ada","Address":{"CITY":"London"}}`,
		result: `{"id":0,"name":"Ada","tags":null,"address":{"street":"","city":"London","zip":0},"created":"0001-01-01T00:00:00Z","score":0,"manager":null}`},
	{name: "embedded structs", method: "item", params: `{"id":7,"kind":"tool","note":"sharp","name":"knife"}`, result: `{"id":7,"kind":"tool","note":"sharp","name":"knife"}`},
	{name: "embedded nil pointer", method: "item", params: `{"id":7,"kind":"tool","name":"knife"}`, result: `{"id":7,"kind":"tool","name":"knife"}`},
	{name: "own JSON and text methods", method: "reading", params: `{"temp":"21.5C","color":"green","by":{"red":1,"blue":3},"raw":[1, {"b" : 2, "a" : 1}]}`,
		result: `{"temp":"21.5C","color":"green","by":{"blue":3,"red":1},"raw":[1,{"b":2,"a":1}]}`},
	{name: "own JSON method as a param", method: "temp", params: `["-40C"]`, result: `"-40C"`},
	{name: "raw message compacted, order kept", method: "raw", params: `[ {"z" : [1, 2], "a" : {} } ]`, result: `{"z":[1,2],"a":{}}`},
	{name: "time with offset", method: "time", params: `["2024-05-06T07:08:09.123456789+02:00"]`, result: `"2024-05-06T07:08:09.123456789+02:00"`},
	{name: "time UTC", method: "time", params: `["2024-05-06T07:08:09Z"]`, result: `"2024-05-06T07:08:09Z"`},
	{name: "bytes as base64", method: "bytes", params: `["aGVsbG8="]`, result: `"aGVsbG8="`},
	{name: "array", method: "array", params: `[[1,2,3]]`, result: `[1,2,3]`},
	{name: "map keys sorted", method: "map", params: `[{"b":[1,"x",true,null,{"z":1,"a":2}],"a":{"k":1.5},"c":-0.25}]`,
		result: `{"a":{"k":1.5},"b":[1,"x",true,null,{"a":2,"z":1}],"c":-0.25}`},
	{name: "interface", method: "echo", params: `[[1,"two",{"three":3},[4.5],null,false]]`, result: `[1,"two",{"three":3},[4.5],null,false]`},
	{name: "strings and escapes", method: "strings", params: `[["<a href=\"x\">&amp;</a>","\u2028\u2029","tab\there\nnew","\u0000\u001f\\","é日本😀"]]`,
		value: `["<a href=\"x\">&amp;</a>","\u2028\u2029","tab\there\nnew","\u0000\u001f\\","é日本😀"]`},
	{name: "invalid UTF-8 in a result is U+FFFD", method: "badUTF8", value: `["a\ufffdb"]`},

	// Null and zero values.
	{name: "nulls", method: "nulls", params: `{"ptr":null,"slice":null,"map":null,"any":null,"int":null}`,
		result: `{"ptr":null,"slice":null,"map":null,"any":null,"int":0}`},
	{name: "empty values and omitempty", method: "nulls", params: `{"ptr":5,"slice":[],"map":{},"any":[],"omitS":"","omitN":0,"omitSl":[]}`,
		result: `{"ptr":5,"slice":[],"map":{},"any":[],"int":0}`},
	{name: "nil slices and maps are null", method: "nilResults", result: `{"ptr":null,"slice":null,"map":null,"any":null,"int":0}`},

	// Numbers.
	{name: "integer limits", method: "numbers", params: `{"i8":-128,"i64":-9223372036854775808,"u8":255,"u64":18446744073709551615,"f32":3.4028235e+38,"f64":1.7976931348623157e+308}`,
		result: `{"i8":-128,"i64":-9223372036854775808,"u8":255,"u64":18446744073709551615,"f32":3.4028235e+38,"f64":1.7976931348623157e+308}`},
	{name: "int64 max", method: "numbers", params: `{"i64":9223372036854775807}`, result: `{"i8":0,"i64":9223372036854775807,"u8":0,"u64":0,"f32":0,"f64":0}`},
	{name: "float forms", method: "floats", params: `[[0.1,1e-7,1e21,123456789012345680000,-0,5e-324,100,1.5e300]]`,
		result: `[0.1,1e-7,1e+21,123456789012345680000,-0,5e-324,100,1.5e+300]`},
	{name: "float32", method: "numbers", params: `{"f32":0.1}`, result: `{"i8":0,"i64":0,"u8":0,"u64":0,"f32":0.1,"f64":0}`},
	{name: "big integer into interface is a float64", method: "echo", params: `[9007199254740993]`, result: `9007199254740992`},

	// NaN and the infinities: one answer, whichever encodes the result.
	{name: "+Inf primitive result", method: "add", params: `[1e308,1e308]`, code: jsonrpc.CodeInternalError, data: nonFinite("+Inf")},
	{name: "+Inf in a slice", method: "inf", params: `[1]`, code: jsonrpc.CodeInternalError, data: nonFinite("+Inf")},
	{name: "-Inf in a slice", method: "inf", params: `[-1]`, code: jsonrpc.CodeInternalError, data: nonFinite("-Inf")},
	{name: "NaN in a slice", method: "inf", params: `[0]`, code: jsonrpc.CodeInternalError, data: nonFinite("NaN")},
	{name: "NaN float32 field", method: "nanField", code: jsonrpc.CodeInternalError, data: nonFinite("NaN")},
	{name: "-Inf map value", method: "infValue", code: jsonrpc.CodeInternalError, data: nonFinite("-Inf")},
	{name: "+Inf in an interface", method: "infAny", code: jsonrpc.CodeInternalError, data: nonFinite("+Inf")},

	// Params that do not fit.
	{name: "wrong type, top-level field", method: "user", params: `{"score":"high"}`, code: jsonrpc.CodeInvalidParams, dataHas: []string{"score"}},
	{name: "wrong type, nested field", method: "user", params: `{"address":{"zip":"SW1"}}`, code: jsonrpc.CodeInvalidParams, dataHas: []string{"zip"}},
	{name: "wrong type, element of a slice", method: "users", params: `[[{"name":"a"},{"name":5}]]`, code: jsonrpc.CodeInvalidParams, dataHas: []string{"name"}},
	{name: "wrong type, named param", method: "lookup", params: `{"id":1,"where":{"zip":true}}`, code: jsonrpc.CodeInvalidParams, dataHas: []string{`"where"`, "zip"}},
	{name: "wrong type, positional param", method: "users", params: `[{"name":"a"}]`, code: jsonrpc.CodeInvalidParams, dataHas: []string{"param 0"}},
	{name: "uint8 overflow", method: "numbers", params: `{"u8":300}`, code: jsonrpc.CodeInvalidParams, dataHas: []string{"u8"}},
	{name: "negative uint64", method: "numbers", params: `{"u64":-1}`, code: jsonrpc.CodeInvalidParams, dataHas: []string{"u64"}},
	{name: "int64 overflow", method: "numbers", params: `{"i64":9223372036854775808}`, code: jsonrpc.CodeInvalidParams, dataHas: []string{"i64"}},
	{name: "fraction for an integer", method: "numbers", params: `{"i8":1.5}`, code: jsonrpc.CodeInvalidParams, dataHas: []string{"i8"}},
	{name: "float64 overflow", method: "numbers", params: `{"f64":1e400}`, code: jsonrpc.CodeInvalidParams, dataHas: []string{"f64"}},
	{name: "float64 overflow, primitive param", method: "add", params: `[1e400,1]`, code: jsonrpc.CodeInvalidParams, dataHas: []string{"param 0"}},
	{name: "own UnmarshalJSON error", method: "temp", params: `["hot"]`, code: jsonrpc.CodeInvalidParams, dataHas: []string{"want a temperature"}},
	{name: "own UnmarshalText error", method: "reading", params: `{"color":"pink"}`, code: jsonrpc.CodeInvalidParams, dataHas: []string{"pink"}},
	{name: "bad time", method: "time", params: `["yesterday"]`, code: jsonrpc.CodeInvalidParams, dataHas: []string{"param 0"}},
	{name: "bad base64", method: "bytes", params: `["not base64!"]`, code: jsonrpc.CodeInvalidParams, dataHas: []string{"param 0"}},
}

// Unknown fields, refused at every depth (the default).
var strictCases = []rpcCase{
	{name: "unknown field, top level", method: "user", params: `{"name":"a","nickname":"b"}`, code: jsonrpc.CodeInvalidParams, dataHas: []string{"nickname"}},
	{name: "unknown field, nested", method: "user", params: `{"address":{"city":"x","county":"y"}}`, code: jsonrpc.CodeInvalidParams, dataHas: []string{"county"}},
	{name: "unknown field, element of a slice", method: "users", params: `[[{"name":"a"},{"name":"b","nickname":"c"}]]`, code: jsonrpc.CodeInvalidParams, dataHas: []string{"nickname"}},
	{name: "unknown field, embedded structs", method: "item", params: `{"id":1,"colour":"red"}`, code: jsonrpc.CodeInvalidParams, dataHas: []string{"colour"}},
	{name: "unknown field, own JSON type", method: "reading", params: `{"temp":"1C","unit":"C"}`, code: jsonrpc.CodeInvalidParams, dataHas: []string{"unit"}},
	{name: "unknown named param", method: "lookup", params: `{"id":1,"where":{},"limit":3}`, code: jsonrpc.CodeInvalidParams, dataHas: []string{"limit"}},
	{name: "unknown field in a named param", method: "lookup", params: `{"id":1,"where":{"town":"x"}}`, code: jsonrpc.CodeInvalidParams, dataHas: []string{`"where"`, "town"}},
}

// Unknown fields, ignored at every depth (AllowUnknownFields).
var lenientCases = []rpcCase{
	{name: "unknown field, top level", method: "user", params: `{"name":"a","nickname":"b"}`,
		result: `{"id":0,"name":"a","tags":null,"address":{"street":"","city":"","zip":0},"created":"0001-01-01T00:00:00Z","score":0,"manager":null}`},
	{name: "unknown field, nested", method: "user", params: `{"address":{"city":"x","county":"y"}}`,
		result: `{"id":0,"name":"","tags":null,"address":{"street":"","city":"x","zip":0},"created":"0001-01-01T00:00:00Z","score":0,"manager":null}`},
	{name: "unknown field, element of a slice", method: "users", params: `[[{"id":3,"nickname":"c"}]]`,
		result: `[{"id":3,"name":"","tags":null,"address":{"street":"","city":"","zip":0},"created":"0001-01-01T00:00:00Z","score":0,"manager":null}]`},
	{name: "unknown field, embedded structs", method: "item", params: `{"id":1,"colour":"red"}`, result: `{"id":1,"kind":"","name":""}`},
	{name: "unknown field, own JSON type", method: "reading", params: `{"temp":"1C","unit":"C"}`, result: `{"temp":"1C","color":"red","by":null,"raw":null}`},
	{name: "unknown named param", method: "lookup", params: `{"id":1,"where":{"city":"x"},"limit":3}`, result: `{"street":"","city":"x","zip":0}`},
	{name: "unknown field in a named param", method: "lookup", params: `{"id":1,"where":{"town":"x"}}`, result: `{"street":"","city":"","zip":0}`},
}

func runCases(t *testing.T, s *jsonrpc.Server, cs []rpcCase) {
	t.Helper()
	for _, c := range cs {
		t.Run(c.name, func(t *testing.T) {
			req := `{"jsonrpc":"2.0","method":"` + c.method + `",`
			if c.params != "" {
				req += `"params":` + c.params + `,`
			}
			req += `"id":1}`
			got := s.ProcessString(context.Background(), req)
			if err := c.check(got); err != nil {
				t.Errorf("%s\n  request %s\n   answer %s", err, req, got)
			}
		})
	}
}

// check reports how the answer got falls short of the case.
func (c *rpcCase) check(got string) error {
	var resp struct {
		JSONRPC string           `json:"jsonrpc"`
		Result  *json.RawMessage `json:"result"`
		Error   *struct {
			Code    jsonrpc.Code    `json:"code"`
			Message string          `json:"message"`
			Data    json.RawMessage `json:"data"`
		} `json:"error"`
		ID json.RawMessage `json:"id"`
	}
	d := json.NewDecoder(strings.NewReader(got))
	d.DisallowUnknownFields()
	if err := d.Decode(&resp); err != nil {
		return fmt.Errorf("the answer is not a response object: %v", err)
	}
	if resp.JSONRPC != "2.0" || string(resp.ID) != "1" {
		return fmt.Errorf("the answer's jsonrpc or id is wrong")
	}
	if c.code == 0 {
		if resp.Error != nil {
			return fmt.Errorf("want a result, got error %d", resp.Error.Code)
		}
		if c.result != "" {
			if want := `{"jsonrpc":"2.0","result":` + c.result + `,"id":1}`; got != want {
				return fmt.Errorf("want result %s", c.result)
			}
			return nil
		}
		var gv, wv any
		if err := json.Unmarshal(*resp.Result, &gv); err != nil {
			return fmt.Errorf("the result is not JSON: %v", err)
		}
		if err := json.Unmarshal([]byte(c.value), &wv); err != nil {
			panic(err)
		}
		if !reflect.DeepEqual(gv, wv) {
			return fmt.Errorf("want a result equal to %s", c.value)
		}
		return nil
	}
	if resp.Error == nil {
		return fmt.Errorf("want error %d, got a result", c.code)
	}
	e := resp.Error
	if e.Code != c.code || e.Message != c.code.String() {
		return fmt.Errorf("want error %d %q", c.code, c.code.String())
	}
	var data string
	if len(e.Data) > 0 {
		if err := json.Unmarshal(e.Data, &data); err != nil {
			return fmt.Errorf("the error's data is not a string")
		}
	}
	switch {
	case c.dataNone && len(e.Data) > 0:
		return fmt.Errorf("want no data")
	case c.data != "" && data != c.data:
		return fmt.Errorf("want data %q", c.data)
	}
	for _, s := range c.dataHas {
		if !strings.Contains(data, s) {
			return fmt.Errorf("want data naming %s", s)
		}
	}
	if bytes.Contains(e.Data, []byte("\n")) {
		return fmt.Errorf("the error's data spans lines")
	}
	return nil
}

// Escapes checks that c writes a string as the server's own encoder does,
// inside the values it encodes (a map, a slice, an interface): HTML
// characters (<, >, &) as they are, U+2028 and U+2029 escaped. The codecs
// of this module pass it, so that a server says one thing whichever
// encodes a result; Run does not ask it of a codec of your own.
func Escapes(t *testing.T, c jsonrpc.Codec) {
	t.Helper()
	const s = "<b>&\u2028\u2029"
	const want = `"<b>&\u2028\u2029"`
	for _, tc := range []struct {
		v    any
		want string
	}{
		{map[string]string{"s": s}, `{"s":` + want + `}`},
		{[]any{s}, `[` + want + `]`},
		{any(s), want},
	} {
		got, err := c.Append(nil, tc.v)
		if err != nil || string(got) != tc.want {
			t.Errorf("Append(%#v) = %s, %v; want %s", tc.v, got, err, tc.want)
		}
	}
}
