package bind

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"unicode"

	"github.com/jsonrpc-go/jsonrpc/internal/wire"
)

// decDiff is the struct param of TestDecoderMatchesEncodingJSON: fields of
// every kind the server decodes member by member, and some it hands to
// the codec.
type decDiff struct {
	B     bool              `json:"b"`
	I     int               `json:"i"`
	I8    int8              `json:"i8"`
	U16   uint16            `json:"u16"`
	U64   uint64            `json:"u64"`
	F32   float32           `json:"f32"`
	F64   float64           `json:"f64"`
	S     string            `json:"s"`
	Name  encName           `json:"name"`
	P     *int              `json:"p"`
	PS    *string           `json:"ps"`
	Ints  []int             `json:"ints"`
	Strs  []string          `json:"strs"`
	Raw   json.RawMessage   `json:"raw"`
	Num   json.Number       `json:"num"`
	Inner encInner          `json:"inner"`
	Map   map[string]int    `json:"map"` // the codec's
	Dash  int               `json:"-,"`
	Items []encInner        `json:"items"` // the codec's
	Any   any               `json:"any"`   // the codec's
	Lvl   level             `json:"lvl"`   // its own UnmarshalJSON
	Deep  map[string][]bool `json:"deep"`
}

// decValues are JSON values for a member, valid for some fields and not
// for others: integers at and past the edges of each size, numbers in
// every form the grammar allows, strings with escapes, and other kinds.
var decValues = []string{
	`0`, `-0`, `1`, `-1`, `127`, `128`, `-128`, `-129`, `255`, `65535`, `65536`, `-32769`,
	`2147483647`, `2147483648`, `9223372036854775807`, `9223372036854775808`, `-9223372036854775808`,
	`-9223372036854775809`, `18446744073709551615`, `18446744073709551616`,
	`1.5`, `-0.0`, `1e2`, `1E+2`, `1e-2`, `1.0`, `1e400`, `-1e400`, `3.4028235e38`, `3.5e38`, `1e-50`,
	`4.9e-324`, `0.1`, `123456789012345678901234567890`, `1.7976931348623157e308`,
	`true`, `false`, `null`, `""`, `"x"`, `"12"`, `"1e2"`, `"\u00e9\n\"\\"`, `"\ud83d\ude00"`, `"\ud800"`,
	`"\u0000"`, `"é"`, `"low"`, `"high"`, `[]`, `[1,2]`, `[1,null,3]`, `["a",null]`, `[true]`, `{}`,
	`{"s":"in","p":3}`, `{"S":"case"}`, `{"s":null,"f":2}`, `{"zz":1}`, `[{"s":"a"}]`, `{"a":1}`, `{"a":[true,null]}`,
}

// TestDecoderMatchesEncodingJSON decodes random objects into decDiff with
// the server's member-by-member decoder and with encoding/json (unknown
// fields refused, then allowed, by both), and checks that they agree: both fail, or both give the
// same value. Names come in any case, escaped or not, repeated; values of
// every kind go to every field.
func TestDecoderMatchesEncodingJSON(t *testing.T) {
	for _, lenient := range []bool{false, true} {
		t.Run(fmt.Sprint("AllowUnknown=", lenient), func(t *testing.T) { decodeAlike(t, lenient) })
	}
}

// decodeAlike is TestDecoderMatchesEncodingJSON, with unknown fields
// refused by both decoders or allowed by both.
func decodeAlike(t *testing.T, lenient bool) {
	var got decDiff
	f, err := Typed(func(_ context.Context, p decDiff) (int, error) { got = p; return 0, nil }, false, Options{AllowUnknown: lenient})
	if err != nil {
		t.Fatal(err)
	}
	if !f.fieldwise {
		t.Fatal("decDiff is not decoded member by member")
	}
	var names []string
	for i := range reflect.TypeFor[decDiff]().NumField() {
		tag := reflect.TypeFor[decDiff]().Field(i).Tag.Get("json")
		names = append(names, strings.TrimSuffix(tag, ","))
	}
	r := rand.New(rand.NewPCG(3, 4))
	agreed, failed := 0, 0
	for n := range 100000 {
		var b bytes.Buffer
		b.WriteString("{")
		for k := range r.IntN(4) {
			if k > 0 {
				b.WriteString(",")
			}
			name := names[r.IntN(len(names))]
			switch r.IntN(6) {
			case 0:
				name = strings.ToUpper(name)
			case 1:
				name = string(unicode.ToUpper(rune(name[0]))) + name[1:]
			case 2:
				name = "unknown"
			}
			key := string(wire.AppendQuote(nil, name))
			if r.IntN(5) == 0 && len(name) > 0 { // its first letter escaped
				key = fmt.Sprintf(`"\u%04x%s`, name[0], key[2:])
			}
			b.WriteString(key + strings.Repeat(" ", r.IntN(2)) + ":" + decValues[r.IntN(len(decValues))])
		}
		b.WriteString("}")
		params := b.Bytes()
		if !json.Valid(params) {
			t.Fatalf("generated invalid JSON %s", params)
		}
		got = decDiff{}
		_, ourErr := f.Invoke(context.Background(), nil, params, nil)
		var want decDiff
		d := json.NewDecoder(bytes.NewReader(params))
		if !lenient {
			d.DisallowUnknownFields()
		}
		stdErr := d.Decode(&want)
		switch {
		case (ourErr == nil) != (stdErr == nil):
			t.Fatalf("%d: %s: server %v, encoding/json %v", n, params, ourErr, stdErr)
		case ourErr == nil && !reflect.DeepEqual(got, want):
			t.Fatalf("%d: %s:\nserver        %+v\nencoding/json %+v", n, params, got, want)
		case ourErr == nil:
			agreed++
		default:
			failed++
		}
	}
	t.Logf("%d decoded alike, %d refused by both", agreed, failed)
}

// FuzzDecoderMatchesEncodingJSON is TestDecoderMatchesEncodingJSON for any
// object the request scanner accepts: the server's decoder and
// encoding/json both refuse it, or decode it alike.
func FuzzDecoderMatchesEncodingJSON(f *testing.F) {
	for _, v := range decValues {
		f.Add([]byte(`{"i":` + v + `,"s":` + v + `,"inner":{"s":` + v + `}}`))
		f.Add([]byte(`{"strs":[` + v + `],"p":` + v + `,"num":` + v + `}`))
	}
	var got decDiff
	fn, err := Typed(func(_ context.Context, p decDiff) (int, error) { got = p; return 0, nil }, false, Options{})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, params []byte) {
		v, err := (wire.Scanner{}).Validate(params)
		if err != nil || v[0] != '{' {
			return // the scanner refuses it before any decoder sees it
		}
		got = decDiff{}
		_, ourErr := fn.Invoke(context.Background(), nil, v, nil)
		var want decDiff
		d := json.NewDecoder(bytes.NewReader(v))
		d.DisallowUnknownFields()
		stdErr := d.Decode(&want)
		switch {
		case (ourErr == nil) != (stdErr == nil):
			t.Fatalf("%s: server %v, encoding/json %v", v, ourErr, stdErr)
		case ourErr == nil && !reflect.DeepEqual(got, want):
			t.Fatalf("%s:\nserver        %+v\nencoding/json %+v", v, got, want)
		}
	})
}
