package bind

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"
	"unsafe"
)

type encName string

type encInner struct {
	S string   `json:"s"`
	P *int     `json:"p,omitempty"`
	F float32  `json:"f"`
	L []uint16 `json:"l"`
}

type encAll struct {
	B       bool
	I       int
	I8      int8
	I16     int16
	I32     int32
	I64     int64
	U       uint
	U8      uint8
	U16     uint16
	U32     uint32
	U64     uint64
	Uptr    uintptr
	F32     float32
	F64     float64
	S       string
	Named   encName
	Tagged  int         `json:"renamed"`
	Omit    string      `json:",omitempty"`
	OmitI   int         `json:"oi,omitempty"`
	OmitF   float64     `json:"of,omitempty"`
	OmitB   bool        `json:"ob,omitempty"`
	OmitP   *encInner   `json:"op,omitempty"`
	OmitS   []int       `json:"os,omitempty"`
	OmitT   time.Time   `json:"ot,omitempty"` // a struct: never empty
	Skip    int         `json:"-"`
	Dash    int         `json:"-,"`
	Other   int         `json:",unknownoption"`
	private int         //nolint:unused // left out, as encoding/json leaves it
	Inner   encInner    `json:"inner"`
	PInner  *encInner   `json:"pinner"`
	Slice   []encInner  `json:"slice"`
	PSlice  []*encInner `json:"pslice"`
	Ints    []int       `json:"ints"`
	Strs    []string    `json:"strs"`
	Time    time.Time   `json:"time"`
	PTime   *time.Time  `json:"ptime"`
	PP      **int       `json:"pp"`
	Next    *encAll     `json:"next,omitempty"`
}

// encStrings are strings that encoding/json escapes or replaces.
var encStrings = []string{
	"", "plain", `quote " and \ backslash`, "tab\tnew\nline\rcr", "\x00\x01\x1f\x7f",
	"<b>&amp;</b>", "é€😀", "\u2028\u2029", "bad \xff utf-8 \xc3", "\xed\xa0\x80 surrogate",
	strings.Repeat("long ", 40),
}

// encFloats are floats at the edges of encoding/json's formats.
var encFloats = []float64{
	0, math.Copysign(0, -1), 1, -1, 0.1, 1e-6, 1e-7, 123456789, 1e20, 1e21, 1e-300, 1.5e300,
	math.MaxFloat64, math.SmallestNonzeroFloat64, math.MaxFloat32, 3.4028235e+38, 1.0 / 3, 9007199254740993,
}

// fill sets v (of any type encAll holds) to a random value, nested at most
// depth deep.
func fill(r *rand.Rand, v reflect.Value, depth int) {
	switch v.Kind() {
	case reflect.Bool:
		v.SetBool(r.IntN(2) == 1)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n := r.Int64()
		if r.IntN(3) == 0 {
			n = int64(r.IntN(3)) - 1
		}
		v.SetInt(n >> (64 - v.Type().Bits()))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		n := r.Uint64()
		if r.IntN(3) == 0 {
			n = uint64(r.IntN(2))
		}
		v.SetUint(n >> (64 - v.Type().Bits()))
	case reflect.Float32, reflect.Float64:
		f := encFloats[r.IntN(len(encFloats))]
		if r.IntN(2) == 0 {
			f = math.Float64frombits(r.Uint64())
			if math.IsNaN(f) || math.IsInf(f, 0) {
				f = 2.5
			}
		}
		if v.Kind() == reflect.Float32 {
			f = float64(float32(f))
			if math.IsInf(f, 0) {
				f = 1.25
			}
		}
		if r.IntN(2) == 0 {
			f = -f
		}
		v.SetFloat(f)
	case reflect.String:
		v.SetString(encStrings[r.IntN(len(encStrings))])
	case reflect.Pointer:
		if depth > 0 && r.IntN(3) > 0 {
			p := reflect.New(v.Type().Elem())
			fill(r, p.Elem(), depth-1)
			v.Set(p)
		}
	case reflect.Slice:
		switch r.IntN(4) {
		case 0: // nil
		case 1:
			v.Set(reflect.MakeSlice(v.Type(), 0, 0))
		default:
			if depth > 0 {
				s := reflect.MakeSlice(v.Type(), 1+r.IntN(4), 4)
				for i := range s.Len() {
					fill(r, s.Index(i), depth-1)
				}
				v.Set(s)
			}
		}
	case reflect.Struct:
		if v.Type() == timeType {
			loc := time.FixedZone("", (r.IntN(48)-24)*1800)
			if r.IntN(2) == 0 {
				loc = time.UTC
			}
			// Years 1 to 9998, which RFC 3339 writes in any zone.
			v.Set(reflect.ValueOf(time.Unix(r.Int64N(315_500_000_000)-62_135_000_000, r.Int64N(1e9)).In(loc)))
			return
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(r, v.Field(i), depth)
			}
		}
	}
}

// stdEncoding is what encoding/json encodes v to, without escaping HTML.
func stdEncoding(t *testing.T, v any) string {
	t.Helper()
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	if err := e.Encode(v); err != nil {
		t.Fatal(err)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// encodingsDiffer reports whether got and want differ other than in how they
// write U+FFFD, the replacement of invalid UTF-8: escaped up to Go 1.26's
// encoding/json, as the server writes it; as itself from Go 1.27's.
func encodingsDiffer(got, want string) bool {
	return strings.ReplaceAll(got, `\ufffd`, "\ufffd") != strings.ReplaceAll(want, `\ufffd`, "\ufffd")
}

// TestEncoderMatchesEncodingJSON encodes random values of encAll, which
// holds every kind an encoder serves, and compares each with encoding/json's
// encoding of it.
func TestEncoderMatchesEncodingJSON(t *testing.T) {
	e := newEncoder(reflect.TypeFor[encAll]())
	if e == nil {
		t.Fatal("no encoder for encAll")
	}
	r := rand.New(rand.NewPCG(1, 2))
	var buf []byte
	for range 3000 {
		var v encAll
		fill(r, reflect.ValueOf(&v).Elem(), 3)
		var err error
		buf, err = e.append(buf[:0], unsafe.Pointer(&v), 0)
		if err != nil {
			t.Fatalf("%+v: %v", v, err)
		}
		if want := stdEncoding(t, v); encodingsDiffer(string(buf), want) {
			t.Fatalf("encoded\n%s\nencoding/json:\n%s", buf, want)
		}
	}
	// Slices and pointers at the top, as results are.
	for _, v := range []any{[]encInner{{S: "a"}, {}}, []encInner(nil), &encInner{L: []uint16{}}, (*encInner)(nil), []*time.Time{nil, {}}} {
		rv := reflect.ValueOf(v)
		e := newEncoder(rv.Type())
		p := reflect.New(rv.Type())
		p.Elem().Set(rv)
		out, err := e.append(nil, p.UnsafePointer(), 0)
		if want := stdEncoding(t, v); err != nil || encodingsDiffer(string(out), want) {
			t.Errorf("%T: %s, %v; encoding/json: %s", v, out, err, want)
		}
	}
}

type encMarshals struct{ A int }

func (encMarshals) MarshalJSON() ([]byte, error) { return []byte(`"mine"`), nil }

type encMarshalsPtr struct{ A int }

func (*encMarshalsPtr) MarshalJSON() ([]byte, error) { return []byte(`"mine"`), nil }

type encText int

func (encText) MarshalText() ([]byte, error) { return []byte("text"), nil }

type encEmbeds struct {
	encInner
	B int
}

type encMyTime time.Time // no methods: encoding/json writes {}

// TestEncoderTypes checks which types have an encoder: those whose every
// value encodes as encoding/json encodes it member by member.
func TestEncoderTypes(t *testing.T) {
	for _, tc := range []struct {
		v    any
		want bool
	}{
		{encInner{}, true},
		{[]encInner{}, true},
		{&encInner{}, true},
		{time.Time{}, true},
		{&time.Time{}, true},
		{struct{}{}, true},
		{struct{ A encMyTime }{}, true}, // a struct of unexported fields
		{map[string]int{}, false},
		{struct{ M map[string]int }{}, false},
		{struct{ X any }{}, false},
		{struct{ A [2]int }{}, false},
		{struct{ B []byte }{}, false},
		{struct{ M encMarshals }{}, false},
		{struct{ M encMarshalsPtr }{}, false},
		{struct{ T encText }{}, false},
		{encEmbeds{}, false},
		{struct{ N json.Number }{}, false}, // a number, not a string
		{struct {
			A int `json:"a\"b"` // a name encoding/json's releases read differently
		}{}, false},
		{struct {
			A int `json:"a,string"`
		}{}, false},
		{struct {
			A int `json:"a,omitzero"`
		}{}, false},
		{struct{ C chan int }{}, false},
		{struct{ F func() }{}, false},
		{struct{ C complex128 }{}, false},
	} {
		if got := newEncoder(reflect.TypeOf(tc.v)) != nil; got != tc.want {
			t.Errorf("%T: encoder %v, want %v", tc.v, got, tc.want)
		}
	}
	clash := reflect.StructOf([]reflect.StructField{
		{Name: "A", Type: reflect.TypeFor[int](), Tag: `json:"x"`},
		{Name: "B", Type: reflect.TypeFor[int](), Tag: `json:"x"`},
	})
	if newEncoder(clash) != nil {
		t.Errorf("an encoder for %v, whose fields clash", clash)
	}
	if newEncoder(reflect.TypeFor[encMyTime]()) == nil {
		t.Error("no encoder for a struct of unexported fields")
	}
}

type encNode struct {
	N    int      `json:"n"`
	Next *encNode `json:"next"`
}

// TestEncoderFallback checks that what the encoders do not encode as
// encoding/json would goes to the codec, whose answer is the result's: a
// non-finite float, a year past 9999, a cycle, and nesting deeper than
// maxEncodeDepth, which encoding/json encodes.
func TestEncoderFallback(t *testing.T) {
	deep := &encNode{}
	for i := range maxEncodeDepth + 10 {
		deep = &encNode{N: i, Next: deep}
	}
	cycle := &encNode{N: 1}
	cycle.Next = cycle
	for _, tc := range []struct {
		name string
		fn   any
		want string // the codec's result, or its error
	}{
		{"NaN", func() encInner { return encInner{F: float32(math.NaN())} }, "json: unsupported value: NaN"},
		{"year", func() struct{ T time.Time } {
			return struct{ T time.Time }{time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}
		}, "year outside of range"},
		{"cycle", func() *encNode { return cycle }, "encountered a cycle"},
		{"deep", func() *encNode { return deep }, stdEncoding(t, deep)},
	} {
		for _, typed := range []bool{false, true} {
			f, err := Build(tc.fn, Options{})
			if typed {
				f, err = typedOf(tc.fn)
			}
			if err != nil {
				t.Fatal(err)
			}
			if f.res.enc == nil {
				t.Fatalf("%s: no encoder", tc.name)
			}
			out, err := f.Invoke(context.Background(), nil, nil, nil)
			var re *ResultError
			switch {
			case err != nil && !(errors.As(err, &re) && strings.Contains(err.Error(), tc.want)):
				t.Errorf("%s (typed %v): %v, want the codec's %q", tc.name, typed, err, tc.want)
			case err == nil && string(out) != tc.want:
				t.Errorf("%s (typed %v): %.80s, want the codec's %.80s", tc.name, typed, out, tc.want)
			}
		}
	}
}

// typedOf binds fn, a function of no params and one result, with Typed.
func typedOf(fn any) (*Func, error) {
	switch fn := fn.(type) {
	case func() encInner:
		return Typed(func(context.Context, struct{}) (encInner, error) { return fn(), nil }, false, Options{})
	case func() struct{ T time.Time }:
		return Typed(func(context.Context, struct{}) (struct{ T time.Time }, error) { return fn(), nil }, false, Options{})
	case func() *encNode:
		return Typed(func(context.Context, struct{}) (*encNode, error) { return fn(), nil }, false, Options{})
	}
	return nil, errors.New("no typed form")
}

type countingJSON struct {
	JSON
	n *int
}

func (c countingJSON) Append(dst []byte, v any) ([]byte, error) {
	*c.n++
	return c.JSON.Append(dst, v)
}

// TestEncoderOnlyForStandardCodecs checks that a codec of the user's own,
// even one that embeds a standard codec, encodes the results.
func TestEncoderOnlyForStandardCodecs(t *testing.T) {
	var n int
	f, err := Build(func() encInner { return encInner{S: "<&>"} }, Options{Unmarshal: countingJSON{n: &n}.Unmarshal, Append: countingJSON{n: &n}.Append})
	if err != nil {
		t.Fatal(err)
	}
	out, err := f.Invoke(context.Background(), nil, nil, nil)
	if err != nil || n != 1 || string(out) != `{"s":"<&>","f":0,"l":null}` {
		t.Errorf("own codec: %s, %v, %d calls", out, err, n)
	}
	f, _ = Build(func() encInner { return encInner{S: "<&>"} }, Options{})
	if out, err := f.Invoke(context.Background(), nil, nil, nil); err != nil || string(out) != `{"s":"<&>","f":0,"l":null}` {
		t.Errorf("default codec: %s, %v", out, err)
	}
}

// TestPointerShaped checks pointerShaped against the interfaces the
// toolchain builds: the data word of an interface holding a pointer-shaped
// value is the value's first word; for another value it points to a copy.
func TestPointerShaped(t *testing.T) {
	x := 5
	type one struct{ P *int }
	for _, v := range []any{
		&x, map[int]int{}, make(chan int), func() {}, [1]*int{&x}, one{&x}, struct{ A one }{one{&x}},
		struct{ P, Q *int }{&x, &x}, [2]*int{&x, &x}, 5, "s", []int{5}, struct {
			P *int
			N int
		}{&x, 1},
	} {
		rv := reflect.ValueOf(v)
		cp := reflect.New(rv.Type())
		cp.Elem().Set(rv)
		first := *(*unsafe.Pointer)(cp.UnsafePointer())
		data := (*eface)(unsafe.Pointer(&v)).data
		if got, want := pointerShaped(rv.Type()), data == first; got != want {
			t.Errorf("pointerShaped(%v) = %v, the interface says %v", rv.Type(), got, want)
		}
	}
	if pointerShaped(reflect.TypeFor[struct{}]()) {
		t.Error("pointerShaped(struct{}) = true")
	}
}

// TestReflectStructResult encodes the struct results of the reflection
// path (a function of a struct param) from the call's own copy, a
// pointer-shaped one included.
func TestReflectStructResult(t *testing.T) {
	x := 7
	type one struct {
		P *int `json:"p"`
	}
	for _, tc := range []struct {
		fn   any
		want string
	}{
		{func(p point) encInner { return encInner{S: "s", F: float32(p.X)} }, `{"s":"s","f":1,"l":null}`},
		{func(p point) one { return one{&x} }, `{"p":7}`},
		{func(p point) []point { return []point{p} }, `[{"x":1,"y":0}]`},
	} {
		out, err := call(t, tc.fn, Options{}, `{"x":1}`)
		if err != nil || out != tc.want {
			t.Errorf("%T: %s, %v; want %s", tc.fn, out, err, tc.want)
		}
	}
}
