package bind

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

type celsius float64

type level int

func (l *level) UnmarshalJSON(b []byte) error {
	switch string(b) {
	case `"low"`:
		*l = 1
	case `"high"`:
		*l = 2
	default:
		return fmt.Errorf("bad level %s", b)
	}
	return nil
}

type point struct {
	X    int `json:"x"`
	Y    int `json:"y"`
	Skip int `json:"-"`
}

func call(t testing.TB, fn any, opts Options, params string) (string, error) {
	t.Helper()
	f, err := Build(fn, opts)
	if err != nil {
		t.Fatalf("Build(%T): %v", fn, err)
	}
	var p []byte
	if params != "" {
		p = []byte(params)
	}
	out, err := f.Invoke(context.Background(), nil, p, nil)
	return string(out), err
}

// levels encodes itself as its numbers joined by "-".
type levels []int

func (l levels) MarshalJSON() ([]byte, error) {
	var parts []string
	for _, n := range l {
		parts = append(parts, strconv.Itoa(n))
	}
	return json.Marshal(strings.Join(parts, "-"))
}

// celsiusText is a fmt.Stringer that encodes itself as text.
type celsiusText int

func (c celsiusText) String() string               { return strconv.Itoa(int(c)) + "C" }
func (c celsiusText) MarshalText() ([]byte, error) { return []byte(c.String()), nil }

func TestFastClasses(t *testing.T) {
	for _, tc := range []struct {
		name   string
		fn     any
		params string
		want   string
		fast   bool
	}{
		{"bool", func(b bool) bool { return !b }, `[true]`, `false`, true},
		{"int8", func(n int8) int8 { return n }, `[-128]`, `-128`, false}, // int8 result is not a common class
		{"int8-param", func(n int8) int64 { return int64(n) * 2 }, `[-128]`, `-256`, true},
		{"int16", func(n int16) int { return int(n) }, `[32767]`, `32767`, true},
		{"int32", func(n int32) int { return int(n) }, `[-2147483648]`, `-2147483648`, true},
		{"int", func(n int) int { return n + 1 }, `[41]`, `42`, true},
		{"uint8", func(n uint8) int { return int(n) }, `[255]`, `255`, true},
		{"uint16", func(n uint16) int { return int(n) }, `[65535]`, `65535`, true},
		{"uint32", func(n uint32) int { return int(n) }, `[4294967295]`, `4294967295`, true},
		{"uint64", func(n uint64) string { return fmt.Sprint(n) }, `[18446744073709551615]`, `"18446744073709551615"`, true},
		{"uint", func(n uint) bool { return n > 0 }, `[1]`, `true`, true},
		{"float32", func(f float32) float64 { return float64(f) }, `[0.5]`, `0.5`, true},
		{"float64", func(f float64) float64 { return f * 2 }, `[1.25]`, `2.5`, true},
		{"string", func(s string) string { return strings.ToUpper(s) }, `["a\nb"]`, `"A\nB"`, true},
		{"named", func(c celsius) celsius { return c + 1 }, `[1.5]`, `2.5`, true},
		{"duration", func(d time.Duration) int64 { return int64(d) }, `[5]`, `5`, true},
		{"ptr-nil", func(p *float64) *float64 { return p }, `[null]`, `null`, true},
		{"ptr", func(p *float64) *float64 { v := *p + 1; return &v }, `[1]`, `2`, true},
		{"ptr-string", func(p *string) string { return *p + "!" }, `["x"]`, `"x!"`, true},
		{"ptr-struct", func(s string, p *point) int { return len(s) + p.X + p.Y }, `["a",{"x":1,"y":2}]`, `4`, true},
		{"two", func(a, b float64) float64 { return a - b }, `[5,3]`, `2`, true},
		{"two-mixed", func(s string, n int) string { return strings.Repeat(s, n) }, `["ab",3]`, `"ababab"`, true},
		{"ctx", func(ctx context.Context, a, b int) (int, error) { return a * b, ctx.Err() }, `[6,7]`, `42`, true},
		{"void", func(int) {}, `[1]`, `null`, true},
		{"err-only", func() error { return nil }, ``, `null`, true},
		{"none", func() {}, `[]`, `null`, true},
		{"three", func(a, b, c int) int { return a + b + c }, `[1,2,3]`, `6`, false},
		{"custom-json", func(l level) int { return int(l) }, `["high"]`, `2`, false},
		{"slice", func(xs []int) int { return len(xs) }, `[[1,2,3]]`, `3`, false},
		{"map-result", func() map[string]int { return map[string]int{"a": 1} }, ``, `{"a":1}`, true},
		{"map-nil", func() map[string]int { return nil }, ``, `null`, true},
		{"uint64-bool-map", func(n uint64, full bool) (map[string]any, error) {
			return map[string]any{"n": n, "full": full}, nil
		}, `[18446744073709551615,true]`, `{"full":true,"n":18446744073709551615}`, true},
		{"uint64-result", func(n uint64) uint64 { return n - 1 }, `[18446744073709551615]`, `18446744073709551614`, true},
		{"uint32-default", func(n uint32) int { return int(n) }, `[4294967295]`, `4294967295`, true},
		{"uint8-result", func() uint8 { return 255 }, ``, `255`, false}, // int8 results are not served
		{"slice-result", func(q string, n int) ([]point, error) { return []point{{X: n, Y: len(q)}}, nil }, `["ab",3]`, `[{"x":3,"y":2}]`, true},
		{"slice-nil", func() []point { return nil }, ``, `null`, true},
		{"slice-of-strings", func(s string) []string { return strings.Split(s, ",") }, `["a,b"]`, `["a","b"]`, true},
		{"slice-own-json", func() levels { return levels{1, 2} }, ``, `"1-2"`, true},
		{"any-result", func(n int) any { return map[string]int{"n": n} }, `[7]`, `{"n":7}`, true},
		{"any-nil", func() any { return nil }, ``, `null`, true},
		{"iface-result", func(n int) fmt.Stringer { return celsiusText(n) }, `[7]`, `"7C"`, true},
		{"raw-result", func(s string) json.RawMessage { return json.RawMessage(`{"s" : ` + strconv.Quote(s) + `}`) }, `["x"]`, `{"s":"x"}`, true},
		{"struct-result", func(n int) point { return point{X: n} }, `[7]`, `{"x":7,"y":0}`, false},
		{"int32-pair", func(a, b int32) int32 { return a + b }, `[1,2]`, `3`, false}, // int32 is not a common class
		{"raw", func(v json.RawMessage) json.RawMessage { return v }, `[{"a" : 1}]`, `{"a":1}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := Build(tc.fn, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if f.Fast != (tc.fast && adapters) {
				t.Errorf("Fast = %v, want %v", f.Fast, tc.fast && adapters)
			}
			got, err := call(t, tc.fn, Options{}, tc.params)
			if err != nil || got != tc.want {
				t.Errorf("got %s, %v; want %s", got, err, tc.want)
			}
		})
	}
}

func TestParamErrors(t *testing.T) {
	add := func(a, b int) int { return a + b }
	for _, tc := range []struct {
		name   string
		fn     any
		opts   Options
		params string
		want   string
	}{
		{"too-many", add, Options{}, `[1,2,3]`, "too many params: want at most 2"},
		{"missing", add, Options{}, `[1]`, "param 1: missing required param"},
		{"missing-named", add, Options{Names: []string{"a", "b"}}, `{"a":1}`, `param "b": missing required param`},
		{"unknown-named", add, Options{Names: []string{"a", "b"}}, `{"a":1,"b":2,"c":3}`, `unknown param "c"`},
		{"twice", add, Options{Names: []string{"a", "b"}}, `{"a":1,"a":2}`, `param "a": given twice`},
		{"positional-only", add, Options{}, `{"a":1}`, "named params are not accepted: pass an array, or register the method with jsonrpc.ParamNames to name its params"},
		{"zero-params-named", func() {}, Options{}, `{"a":1}`, "named params are not accepted: the method takes none (send no params, [] or {})"},
		{"type", add, Options{}, `[1,"2"]`, "param 1: want an integer"},
		{"fraction", add, Options{}, `[1,2.5]`, "param 1: want an integer"},
		{"null", add, Options{}, `[1,null]`, "param 1: want an integer"},
		{"range", func(int8) {}, Options{}, `[300]`, "param 0: want an int8"},
		{"negative-uint", func(uint) {}, Options{}, `[-1]`, "param 0: want an unsigned integer"},
		{"float-overflow", func(float32) {}, Options{}, `[1e39]`, "param 0: want a float32"},
		{"ptr-type", func(*float64) {}, Options{}, `["x"]`, "param 0: want a number or null"},
		{"codec", func(map[string]int) {}, Options{}, `[[1]]`, "param 0: json: cannot unmarshal array into Go value of type map[string]int"},
		{"slice", func([]int) {}, Options{}, `[{"a":1}]`, "param 0: want an array"},
		{"slice-element", func([]int) {}, Options{}, `[[1,"x"]]`, "param 0: element 1: want an integer"},
		{"slice-element-late", func([]int) {}, Options{}, `[[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,"x"]]`, "param 0: element 18: want an integer"},
		{"nested", func(struct{ P point }) {}, Options{}, `{"P":{"x":"a"}}`, `param "P": field "x": want an integer`},
		{"nested-unknown", func(struct{ P point }) {}, Options{}, `{"P":{"w":1}}`, `param "P": unknown field "w"`},
		{"nested-deep", func(struct{ Q struct{ P point } }) {}, Options{}, `{"Q":{"P":{"y":[]}}}`, `param "Q": field "P.y": want an integer`},
		{"nested-not-object", func(struct{ P point }) {}, Options{}, `{"P":[1]}`, `param "P": want an object`},
		{"variadic-type", func(...int) {}, Options{}, `[1,"x"]`, "param 0: want an integer"},
		{"struct-too-many", func(point) {}, Options{}, `[1,2,3]`, "too many params: want at most 2"},
		{"struct-unknown", func(point) {}, Options{}, `{"x":1,"z":2}`, `unknown param "z"`},
		{"struct-skipped-field", func(point) {}, Options{}, `{"Skip":1}`, `unknown param "Skip"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := call(t, tc.fn, tc.opts, tc.params)
			var pe *ParamError
			if !errors.As(err, &pe) || err.Error() != tc.want {
				t.Errorf("err = %v (%T), want ParamError %q", err, err, tc.want)
			}
		})
	}
}

func TestBindings(t *testing.T) {
	for _, tc := range []struct {
		name   string
		fn     any
		opts   Options
		params string
		want   string
	}{
		{"named", func(a, b int) int { return a - b }, Options{Names: []string{"minuend", "subtrahend"}}, `{"subtrahend":23,"minuend":42}`, `19`},
		{"named-escaped", func(a, b int) int { return a - b }, Options{Names: []string{"minuend", "subtrahend"}}, `{"subtrahend":23,"minu\u0065nd":42}`, `19`},
		{"default", func(a, b int) int { return a + b }, Options{Defaults: []any{10}}, `[1]`, `11`},
		{"default-named", func(a, b int) int { return a + b }, Options{Names: []string{"a", "b"}, Defaults: []any{10}}, `{"a":1}`, `11`},
		{"default-all", func(a string, b float64) string { return fmt.Sprint(a, b) }, Options{Defaults: []any{"x", 2}}, ``, `"x2"`},
		{"default-slow", func(a, b, c int) int { return a + b + c }, Options{Defaults: []any{10, 100}}, `[1]`, `111`},
		{"default-ptr", func(p *int) bool { return p == nil }, Options{Defaults: []any{nil}}, `[]`, `true`},
		{"default-uint64", func(n uint64, full bool) string { return fmt.Sprint(n, full) }, Options{Defaults: []any{uint64(1 << 63), true}}, ``, `"9223372036854775808 true"`},
		{"zero-params-empty-object", func() int { return 1 }, Options{}, `{ }`, `1`},
		{"variadic", func(xs ...float64) float64 { return float64(len(xs)) }, Options{}, `[1,2,3,4]`, `4`},
		{"variadic-empty", func(xs ...float64) float64 { return float64(len(xs)) }, Options{}, ``, `0`},
		{"variadic-fixed", func(s string, xs ...int) string { return fmt.Sprint(s, xs) }, Options{}, `["a",1,2]`, `"a[1 2]"`},
		{"variadic-named", func(s string, xs ...int) string { return fmt.Sprint(s, xs) }, Options{Names: []string{"s", "xs"}}, `{"xs":[1,2],"s":"a"}`, `"a[1 2]"`},
		{"struct-named", func(p point) int { return p.X*10 + p.Y }, Options{}, `{"y":2,"x":1}`, `12`},
		{"struct-positional", func(p point) int { return p.X*10 + p.Y }, Options{}, `[1,2]`, `12`},
		{"struct-case-insensitive", func(p point) int { return p.X }, Options{}, `{"X":4}`, `4`},
		{"struct-embedded", func(p struct{ point }) int { return p.Y }, Options{}, `{"y":5}`, `5`},
		{"struct-ptr", func(ctx context.Context, p *point) int { return p.X*10 + p.Y }, Options{}, `{"x":3}`, `30`},
		{"struct-absent", func(p point) int { return p.X }, Options{}, ``, `0`},
		{"struct-result", func() point { return point{1, 2, 3} }, Options{}, ``, `{"x":1,"y":2}`},
		{"number", func(n json.Number) json.Number { return n + "0" }, Options{}, `[12.5]`, `12.50`},
		{"number-field", func(p struct{ N json.Number }) struct{ N json.Number } { return p }, Options{}, `{"N":1e3}`, `{"N":1e3}`},
		{"struct-dash-comma", func(p struct {
			D int `json:"-,"`
			S int `json:"-"`
		}) int {
			return p.D*10 + p.S
		}, Options{}, `{"-":4}`, `40`},
		{"borrow", func(s string) int { return len(s) }, Options{Borrow: true}, `["héllo"]`, `6`},
		{"borrow-ptr", func(a, b *int) int { return *a + *b }, Options{Borrow: true}, `[1,2]`, `3`},
		{"borrow-ptr-string", func(p *string) string { return *p }, Options{Borrow: true}, `["x"]`, `"x"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := call(t, tc.fn, tc.opts, tc.params)
			if err != nil || got != tc.want {
				t.Errorf("got %s, %v; want %s", got, err, tc.want)
			}
		})
	}
}

func TestResults(t *testing.T) {
	boom := errors.New("boom")
	if _, err := call(t, func() (int, error) { return 1, boom }, Options{}, ``); err != boom {
		t.Errorf("(T, error): err = %v", err)
	}
	if _, err := call(t, func(int, int, int) error { return boom }, Options{}, `[1,2,3]`); err != boom {
		t.Errorf("slow error: err = %v", err)
	}
	var re *ResultError
	if _, err := call(t, func() float64 { return 0 / zero() }, Options{}, ``); !errors.As(err, &re) {
		t.Errorf("NaN: err = %v", err)
	}
	if _, err := call(t, func() any { return func() {} }, Options{}, ``); !errors.As(err, &re) {
		t.Errorf("func result: err = %v", err)
	}
}

func zero() float64 { return 0 }

func TestBuildErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		fn   any
		opts Options
	}{
		{"nil", nil, Options{}},
		{"nil-func", (func())(nil), Options{}},
		{"not-func", 42, Options{}},
		{"chan", func(chan int) {}, Options{}},
		{"complex", func(complex128) {}, Options{}},
		{"func-result", func() func() { return nil }, Options{}},
		{"three-results", func() (int, int, error) { return 0, 0, nil }, Options{}},
		{"second-not-error", func() (int, int) { return 0, 0 }, Options{}},
		{"two-errors", func() (error, error) { return nil, nil }, Options{}},
		{"ctx-late", func(int, context.Context) {}, Options{}},
		{"names-count", func(a, b int) {}, Options{Names: []string{"a"}}},
		{"names-repeated", func(a, b int) {}, Options{Names: []string{"a", "a"}}},
		{"defaults-count", func(a int) {}, Options{Defaults: []any{1, 2}}},
		{"default-type", func(a int) {}, Options{Defaults: []any{"x"}}},
		{"default-inexact", func(a int) {}, Options{Defaults: []any{1.5}}},
		{"default-nil", func(a int) {}, Options{Defaults: []any{nil}}},
		{"default-variadic", func(a ...int) {}, Options{Defaults: []any{nil}}},
		{"ptr-ptr", func(**int) {}, Options{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Build(tc.fn, tc.opts); err == nil {
				t.Errorf("Build succeeded")
			}
		})
	}
}

// Without Borrow, a string param a method keeps does not change when the
// request buffer is reused.
func TestStringsCopiedByDefault(t *testing.T) {
	var kept string
	f, err := Build(func(s string) { kept = s }, Options{})
	if err != nil {
		t.Fatal(err)
	}
	params := []byte(`["before"]`)
	if _, err := f.Invoke(context.Background(), nil, params, nil); err != nil {
		t.Fatal(err)
	}
	copy(params, `["after!"]`)
	if kept != "before" {
		t.Errorf("kept string changed to %q", kept)
	}
}

type counter struct{ n int }

func (c *counter) Add(d int) int                          { c.n += d; return c.n }
func (c *counter) Get() int                               { return c.n }
func (c *counter) Sum3(a, b, x int) int                   { return c.n + a + b + x }
func (c *counter) Ctx(_ context.Context, s string) string { return s + "!" }

// Method expressions with a bound receiver take the fast path when their
// shape has an adapter, and reflection otherwise.
func TestReceiver(t *testing.T) {
	c := &counter{n: 10}
	recv := reflect.ValueOf(c)
	for _, tc := range []struct {
		fn      any
		params  string
		want    string
		fast    bool
		nparams int
	}{
		{(*counter).Add, `[5]`, `15`, true, 1},
		{(*counter).Get, ``, `15`, true, 0},
		{(*counter).Ctx, `["x"]`, `"x!"`, true, 1},
		{(*counter).Sum3, `[1,2,3]`, `21`, false, 3},
	} {
		f, err := Build(tc.fn, Options{Receiver: recv})
		if err != nil {
			t.Fatal(err)
		}
		if f.Fast != (tc.fast && adapters) || len(f.params) != tc.nparams {
			t.Errorf("%T: Fast %v, %d params", tc.fn, f.Fast, len(f.params))
		}
		var p []byte
		if tc.params != "" {
			p = []byte(tc.params)
		}
		out, err := f.Invoke(context.Background(), nil, p, nil)
		if err != nil || string(out) != tc.want {
			t.Errorf("%T(%s) = %s, %v; want %s", tc.fn, tc.params, out, err, tc.want)
		}
	}
	if _, err := Build((*counter).Add, Options{Receiver: reflect.ValueOf(&point{})}); err == nil {
		t.Error("a receiver of another type was accepted")
	}
}

// TestFastResultsUnderGC: results that the adapters return in the layout
// of a slice, a pointer or an interface keep what they point to alive
// while collections run beside the calls.
func TestFastResultsUnderGC(t *testing.T) {
	fns := []struct {
		fn   any
		want string
	}{
		{func(n int) []point { return []point{{X: n}, {Y: n}} }, `[{"x":5,"y":0},{"x":0,"y":5}]`},
		{func(n int) map[string][]int { return map[string][]int{"n": {n, n}} }, `{"n":[5,5]}`},
		{func(n int) any { return &point{X: n, Y: n} }, `{"x":5,"y":5}`},
	}
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
				runtime.GC()
			}
		}
	}()
	defer func() { close(stop); <-done }()
	for _, tc := range fns {
		f, err := Build(tc.fn, Options{})
		if err != nil {
			t.Fatal(err)
		}
		for range 2000 {
			out, err := f.Invoke(context.Background(), nil, []byte(`[5]`), nil)
			if err != nil || string(out) != tc.want {
				t.Fatalf("%T: got %s, %v; want %s", tc.fn, out, err, tc.want)
			}
		}
	}
}
