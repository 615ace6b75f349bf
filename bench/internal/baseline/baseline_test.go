package baseline_test

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/jsonrpc-go/jsonrpc/bench/internal/baseline"
	"github.com/jsonrpc-go/jsonrpc/internal/demo"
)

// decode json-decodes a response document, using json.Number so that number
// formatting differences do not hide or invent mismatches.
func decode(t *testing.T, what string, b []byte) any {
	t.Helper()
	if len(b) == 0 {
		return nil
	}
	var v any
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		t.Fatalf("%s: response %q is not JSON: %v", what, b, err)
	}
	return normalizeNumbers(v)
}

// normalizeNumbers turns json.Number into float64 so that 3.75 and 3.750
// compare equal while still failing on different values.
func normalizeNumbers(v any) any {
	switch x := v.(type) {
	case json.Number:
		f, err := x.Float64()
		if err != nil {
			return x.String()
		}
		return f
	case []any:
		for i := range x {
			x[i] = normalizeNumbers(x[i])
		}
	case map[string]any:
		for k := range x {
			x[k] = normalizeNumbers(x[k])
		}
	}
	return v
}

func process(lib func(dst, req []byte) []byte, req string) []byte {
	return lib(nil, []byte(req))
}

// TestSameAsLibrary checks that the baseline answers the benchmark mix and
// batch exactly as the real server does, after decoding both.
func TestSameAsLibrary(t *testing.T) {
	lib := demo.NewServer()
	base := baseline.NewCalculator()
	reqs := append([]string{}, demo.Requests...)
	reqs = append(reqs,
		demo.Batch,
		`{"jsonrpc":"2.0","method":"NullableFloatToNullableFloat","params":[null],"id":"x"}`,
		`{"jsonrpc":"2.0","method":"StringMe","params":["a\"b\\c\u00e9\n<&>"],"id":null}`,
		`{"jsonrpc":"2.0","method":"add","params":[-1e300,1e-7],"id":-7}`,
		`{"jsonrpc":"2.0","method":"addInt","params":[-9007199254740993,1],"id":8}`,
		`{"jsonrpc":"2.0","method":"Test2","params":[123456789012345678],"id":9}`,
		` [ {"jsonrpc":"2.0","method":"add","params":[1,2]} , `+demo.Requests[4]+` ] `,
	)
	for _, req := range reqs {
		want := decode(t, "library", process(func(dst, req []byte) []byte { return lib.Process(context.Background(), dst, req) }, req))
		got := decode(t, "baseline", process(base.Process, req))
		if want == nil {
			t.Errorf("library gave no response to %s", req)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("request %s\nbaseline: %#v\nlibrary:  %#v", req, got, want)
		}
	}
}

// TestErrorsLikeLibrary checks that error answers carry the same code and
// id (messages and data are free-form) and that notifications get nothing.
func TestErrorsLikeLibrary(t *testing.T) {
	lib := demo.NewServer()
	base := baseline.NewCalculator()
	for _, req := range []string{
		`{"jsonrpc":"2.0","method":"add","params":[1,2]}`,
		`[{"jsonrpc":"2.0","method":"add","params":[1,2]},{"jsonrpc":"2.0","method":"nope"}]`,
		`{"jsonrpc":"2.0","method":"nope","params":[],"id":9}`,
		`{"jsonrpc":"2.0","method":"nope"}`,
		`{"jsonrpc":"2.0","method":"add","params":[1,"x"],"id":10}`,
		`{"jsonrpc":"2.0","method":"addInt","params":[1.5,2],"id":11}`,
		`{"jsonrpc":"2.0","method":"add","params":[1],"id":12}`,
		`{"jsonrpc":"2.0","method":"add","params":[1,2,3],"id":13}`,
		`{"jsonrpc":"2.0","method":"add","params":"x","id":14}`,
		`{"jsonrpc":"1.0","method":"add","params":[1,2],"id":15}`,
		`{"jsonrpc":"2.0","method":1,"params":[1,2],"id":16}`,
		`{"jsonrpc":"2.0","method":"add","params":[1,2],"id":{}}`,
		`{"jsonrpc":"2.0","method":"add","params":[1,2`,
		`[]`,
		`[1,2]`,
		`42`,
		``,
		`[` + demo.Requests[0] + `,{"jsonrpc":"2.0","method":"nope","id":"n"},3]`,
	} {
		want := decode(t, "library", process(func(dst, req []byte) []byte { return lib.Process(context.Background(), dst, req) }, req))
		got := decode(t, "baseline", process(base.Process, req))
		if !reflect.DeepEqual(stripErrorText(got), stripErrorText(want)) {
			t.Errorf("request %s\nbaseline: %#v\nlibrary:  %#v", req, got, want)
		}
	}
}

func stripErrorText(v any) any {
	switch x := v.(type) {
	case []any:
		for i := range x {
			x[i] = stripErrorText(x[i])
		}
	case map[string]any:
		if e, ok := x["error"].(map[string]any); ok {
			delete(e, "message")
			delete(e, "data")
		}
	}
	return v
}
