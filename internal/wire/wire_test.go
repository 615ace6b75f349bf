package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		in  string
		err string // "" when valid
	}{
		{`{}`, ""},
		{` [1, -2.5e+3, "x", true, false, null, {"a": []}] `, ""},
		{`"\u00e9\n\"\\\/\b\f\r\t"`, ""},
		{`"é"`, ""},
		{``, ErrEmpty},
		{`   `, ErrEmpty},
		{`{} x`, ErrTrailing},
		{`{}{}`, ErrTrailing},
		{`{`, ErrSyntax},
		{`{"a"}`, ErrSyntax},
		{`{"a":1,}`, ErrSyntax},
		{`[1,]`, ErrSyntax},
		{`01`, ErrTrailing},
		{`-`, ErrSyntax},
		{`1.`, ErrSyntax},
		{`1e`, ErrSyntax},
		{`.5`, ErrSyntax},
		{`+1`, ErrSyntax},
		{`tru`, ErrSyntax},
		{`nul`, ErrSyntax},
		{`"\x"`, ErrSyntax},
		{`"\u12g4"`, ErrSyntax},
		{"\"\x01\"", ErrSyntax},
		{"\"\xff\"", ErrUTF8},
		{"\"\xed\xa0\x80\"", ErrUTF8}, // an encoded surrogate
		{"\xef\xbb\xbf{}", ErrSyntax}, // byte-order mark
		{strings.Repeat("[", 129) + strings.Repeat("]", 129), ErrDepth},
		{strings.Repeat("[", 128) + strings.Repeat("]", 128), ""},
	} {
		_, err := Scanner{}.Validate([]byte(tc.in))
		got := ""
		if err != nil {
			got = err.(*SyntaxError).Msg
		}
		if got != tc.err {
			t.Errorf("Validate(%q) = %q, want %q", tc.in, got, tc.err)
		}
	}
}

func TestScanRequest(t *testing.T) {
	var r Request
	doc := []byte(` {"id": 7, "jsonrpc":"2.0", "x":{"id":1}, "method":"a\u0062", "params":[1,2]} `)
	kind, err := Scanner{}.ScanRequest(doc, &r)
	if err != nil || kind != Object {
		t.Fatalf("kind %v err %v", kind, err)
	}
	if string(r.ID) != "7" || string(r.Version) != `"2.0"` || string(r.Method) != `"a\u0062"` || string(r.Params) != "[1,2]" || r.Dup {
		t.Errorf("got %+v", r)
	}
	// Escaped member names still count.
	kind, err = Scanner{}.ScanRequest([]byte(`{"\u0069d":1,"id":2}`), &r)
	if err != nil || !r.Dup {
		t.Errorf("escaped duplicate: kind %v err %v dup %v", kind, err, r.Dup)
	}
	kind, err = Scanner{}.ScanRequest([]byte(`[1, {}, [2,3]]`), &r)
	if err != nil || kind != Array || string(r.Value) != `[1, {}, [2,3]]` {
		t.Errorf("array: kind %v err %v %+v", kind, err, r)
	}
	if _, n, err := (Scanner{}).ScanBatch([]byte(`[1, {}, [2,3]]`), nil); err != nil || n != 3 {
		t.Errorf("array: ScanBatch counted %d elements, err %v, want 3", n, err)
	}
}

func TestParseNumbers(t *testing.T) {
	for _, tc := range []struct {
		in   string
		bits int
		want int64
		ok   bool
	}{
		{"0", 64, 0, true}, {"-0", 64, 0, true}, {"127", 8, 127, true}, {"128", 8, 0, false},
		{"-128", 8, -128, true}, {"-129", 8, 0, false}, {"9223372036854775807", 64, math.MaxInt64, true},
		{"9223372036854775808", 64, 0, false}, {"-9223372036854775808", 64, math.MinInt64, true},
		{"1.0", 64, 0, false}, {"1e2", 64, 0, false}, {`"1"`, 64, 0, false}, {"99999999999999999999999", 64, 0, false},
	} {
		got, ok := ParseInt([]byte(tc.in), tc.bits)
		if got != tc.want || ok != tc.ok {
			t.Errorf("ParseInt(%s, %d) = %d, %v; want %d, %v", tc.in, tc.bits, got, ok, tc.want, tc.ok)
		}
	}
	if u, ok := ParseUint([]byte("18446744073709551615"), 64); !ok || u != math.MaxUint64 {
		t.Errorf("ParseUint max = %d, %v", u, ok)
	}
	if _, ok := ParseUint([]byte("-1"), 64); ok {
		t.Error("ParseUint(-1) ok")
	}
	for _, in := range []string{"0", "-0", "1.5", "-2.25e-3", "1e308", "123456789012345678", "0.1", "4", "-7"} {
		want, _ := strconv.ParseFloat(in, 64)
		got, ok := ParseFloat([]byte(in), 64)
		if !ok || got != want || math.Signbit(got) != math.Signbit(want) {
			t.Errorf("ParseFloat(%s) = %v, %v; want %v", in, got, ok, want)
		}
	}
	for _, in := range []string{"1e400", `"1"`, "true", "null"} {
		if _, ok := ParseFloat([]byte(in), 64); ok {
			t.Errorf("ParseFloat(%s) ok", in)
		}
	}
	if _, ok := ParseFloat([]byte("1e39"), 32); ok {
		t.Error("ParseFloat(1e39, 32) ok")
	}
}

func TestAppendFloatMatchesEncodingJSON(t *testing.T) {
	for _, f := range []float64{0, 1, -1, 3.75, 0.1, 1e20, 1e21, 1e-6, 1e-7, 123456789.125, -0.000001234, math.MaxFloat64, math.SmallestNonzeroFloat64, 1e15, 1e16, 12345678901234567} {
		want, _ := json.Marshal(f)
		got, ok := AppendFloat(nil, f, 64)
		if !ok || string(got) != string(want) {
			t.Errorf("AppendFloat(%v) = %s, want %s", f, got, want)
		}
		want32, _ := json.Marshal(float32(f))
		got32, _ := AppendFloat(nil, float64(float32(f)), 32)
		if !math.IsInf(float64(float32(f)), 0) && string(got32) != string(want32) {
			t.Errorf("AppendFloat(float32 %v) = %s, want %s", float32(f), got32, want32)
		}
	}
	for _, f := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		if _, ok := AppendFloat(nil, f, 64); ok {
			t.Errorf("AppendFloat(%v) ok", f)
		}
	}
}

func TestQuoteRoundTrip(t *testing.T) {
	for _, s := range []string{"", "plain", "quote\" back\\ nl\n tab\t ctl\x01\x1f", "é ü 😀", "\u2028\u2029", "bad\xffutf8", "<&>"} {
		q := AppendQuote(nil, s)
		if !utf8.Valid(q) {
			t.Errorf("AppendQuote(%q) = %q: invalid UTF-8", s, q)
		}
		var back string
		if err := json.Unmarshal(q, &back); err != nil {
			t.Fatalf("AppendQuote(%q) = %s: %v", s, q, err)
		}
		want := strings.ToValidUTF8(s, "\uFFFD")
		if back != want {
			t.Errorf("round trip of %q = %q", s, back)
		}
		if qb := AppendQuote(nil, []byte(s)); !bytes.Equal(qb, q) {
			t.Errorf("AppendQuote([]byte(%q)) = %s, want %s", s, qb, q)
		}
		uq, ok := Unquote(q, false)
		if !ok || uq != want {
			t.Errorf("Unquote(%s) = %q, %v", q, uq, ok)
		}
	}
	// Surrogate pairs and lone surrogates decode as encoding/json does.
	for _, in := range []string{`"\ud83d\ude00"`, `"\ud83d"`, `"\ude00x"`, `"\ud83d\u0041"`} {
		var want string
		json.Unmarshal([]byte(in), &want)
		got, _ := Unquote([]byte(in), false)
		if got != want {
			t.Errorf("Unquote(%s) = %q, want %q", in, got, want)
		}
	}
}

func TestIterators(t *testing.T) {
	arr := []byte(`[ 1 , {"a":[2]} ,"x" ]`)
	var got []string
	for elem, pos, ok := NextElement(arr, 0); ok; elem, pos, ok = NextElement(arr, pos) {
		got = append(got, string(elem))
	}
	if strings.Join(got, "|") != `1|{"a":[2]}|"x"` {
		t.Errorf("elements %q", got)
	}
	if _, _, ok := NextElement([]byte(`[ ]`), 0); ok {
		t.Error("empty array has an element")
	}
	obj := []byte(`{ "a" : 1 , "b\n":[true] }`)
	got = got[:0]
	for name, value, esc, pos, ok := NextMember(obj, 0); ok; name, value, esc, pos, ok = NextMember(obj, pos) {
		got = append(got, string(name)+"="+string(value)+"/"+strconv.FormatBool(esc))
	}
	if strings.Join(got, "|") != `a=1/false|b\n=[true]/true` {
		t.Errorf("members %q", got)
	}
}

// FuzzScan checks the scanner against encoding/json: it accepts exactly the
// documents encoding/json accepts, less those with invalid UTF-8 or nesting
// beyond the limit.
func FuzzScan(f *testing.F) {
	for _, s := range []string{`{"jsonrpc":"2.0","method":"a","params":[1,{"b":null}],"id":1}`, `[1,2]`, `"\u00e9"`, `-0.5e-3`, "\"\xff\"", `{"a":1,"a":2}`, `[[[[]]]]`, `{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`, `{"jsonrpc":"2.0","method":"x","id":{}}`, `[{"jsonrpc":"2.0","method":"a","id":1},{"id" : [1,{"x":"]"}], "\u0069d":2},3]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		sc := Scanner{MaxDepth: 16}
		v, err := sc.Validate(doc)
		std := json.Valid(doc)
		if err == nil {
			if !std {
				t.Fatalf("accepted %q, which encoding/json rejects", doc)
			}
			if !bytes.Equal(bytes.TrimSpace(doc), v) {
				t.Fatalf("value span %q of %q", v, doc)
			}
		} else if std {
			msg := err.(*SyntaxError).Msg
			if msg != ErrUTF8 && msg != ErrDepth {
				t.Fatalf("rejected %q (%v), which encoding/json accepts", doc, err)
			}
		}
		var r Request
		kind, err2 := sc.ScanRequest(doc, &r)
		if (err == nil) != (err2 == nil) {
			t.Fatalf("Validate and ScanRequest disagree on %q: %v, %v", doc, err, err2)
		}
		if err2 == nil && kind == Object {
			// The canonical fast path and the general scanner agree.
			var general Request
			if _, err := sc.scanObject(doc, SkipSpace(doc, 0), &general, sc.maxDepth()); err != nil {
				t.Fatalf("scanObject(%q): %v", doc, err)
			}
			got := r
			got.Value, got.Checked = nil, false
			if got.Args.Known {
				// The recorded elements are those of the params array.
				var elems [][]byte
				for e, pos, ok := NextElement(got.Params, 0); ok; e, pos, ok = NextElement(got.Params, pos) {
					elems = append(elems, e)
				}
				if len(elems) != got.Args.N || fmt.Sprint(elems[:min(len(elems), MaxArgs)]) != fmt.Sprint(got.Args.Elems[:min(got.Args.N, MaxArgs)]) {
					t.Fatalf("%q: Args %+v, elements %q", doc, got.Args, elems)
				}
				got.Args = Args{}
			}
			if fmt.Sprint(got) != fmt.Sprint(general) {
				t.Fatalf("%q: ScanRequest %+v, scanObject %+v", doc, got, general)
			}
		}
		if err2 == nil && kind == Array {
			n := 0
			var er, want Request
			for elem, isObj, pos, ok := NextRequest(r.Value, 0, &er); ok; elem, isObj, pos, ok = NextRequest(r.Value, pos, &er) {
				n++
				k, err := sc.ScanRequest(elem, &want)
				if err != nil || (k == Object) != isObj {
					t.Fatalf("element %q of %q: kind %v, %v", elem, doc, k, err)
				}
				if isObj {
					want.Value, want.Checked, want.Args = nil, false, Args{}
					er.Checked, er.Args = false, Args{}
					if fmt.Sprint(er) != fmt.Sprint(want) {
						t.Fatalf("element %q: NextRequest %+v, ScanRequest %+v", elem, er, want)
					}
				}
			}
			// ScanBatch agrees with NextRequest.
			var buf [3]Request
			arr, bn, err := sc.ScanBatch(doc, buf[:])
			if err != nil || bn != n || string(arr) != string(r.Value) {
				t.Fatalf("ScanBatch(%q) = %q, %d, %v", doc, arr, bn, err)
			}
			k := 0
			for elem, isObj, pos, ok := NextRequest(r.Value, 0, &er); ok && k < len(buf); elem, isObj, pos, ok = NextRequest(r.Value, pos, &er) {
				er.Value = elem
				if !isObj {
					er = Request{Value: elem}
				}
				if fmt.Sprint(er) != fmt.Sprint(buf[k]) {
					t.Fatalf("element %d of %q: ScanBatch %+v, NextRequest %+v", k, doc, buf[k], er)
				}
				k++
			}
		} else {
			if _, _, err := sc.ScanBatch(doc, nil); err == nil {
				t.Fatalf("ScanBatch accepted %q", doc)
			}
		}
	})
}

// TestFloatFastPaths compares the fast parse and format paths with strconv
// over many short decimals and random values.
func TestFloatFastPaths(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	check := func(f float64) {
		want := strconv.AppendFloat(nil, f, 'f', -1, 64)
		if a := math.Abs(f); a != 0 && (a < 1e-6 || a >= 1e21) {
			want, _ = json.Marshal(f)
		}
		got, ok := AppendFloat(nil, f, 64)
		if !ok || string(got) != string(want) {
			t.Fatalf("AppendFloat(%v) = %s, want %s", f, got, want)
		}
		back, ok := ParseFloat(got, 64)
		if !ok || back != f {
			t.Fatalf("ParseFloat(%s) = %v, want %v", got, back, f)
		}
	}
	n := 200000
	if testing.Short() {
		n = 20000
	}
	for range n {
		// Short decimals: up to 6 fraction digits, various magnitudes.
		k := rng.IntN(7)
		m := rng.Int64N(1_000_000_000)
		f := float64(m) / math.Pow10(k)
		if rng.IntN(2) == 0 {
			f = -f
		}
		check(f)
		s := strconv.FormatFloat(f, 'f', -1, 64)
		if p, ok := ParseFloat([]byte(s), 64); !ok || p != f {
			t.Fatalf("ParseFloat(%s) = %v", s, p)
		}
		// Random bit patterns.
		r := math.Float64frombits(rng.Uint64())
		if !math.IsNaN(r) && !math.IsInf(r, 0) {
			check(r)
		}
		check(rng.Float64() * 1000)
	}
}

// FuzzFloat checks float formatting against encoding/json and parsing against
// strconv.
func FuzzFloat(f *testing.F) {
	for _, x := range []float64{3.75, 0.1, 9434964.96, 1e-6, 123456.789, -2.5e-3} {
		f.Add(x)
	}
	f.Fuzz(func(t *testing.T, x float64) {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return
		}
		want, _ := json.Marshal(x)
		got, ok := AppendFloat(nil, x, 64)
		if !ok || string(got) != string(want) {
			t.Fatalf("AppendFloat(%v) = %s, want %s", x, got, want)
		}
		s := strconv.FormatFloat(x, 'f', -1, 64)
		if p, ok := ParseFloat([]byte(s), 64); !ok || p != x {
			t.Fatalf("ParseFloat(%s) = %v", s, p)
		}
	})
}

// AppendCompact removes the white space outside strings, as json.Compact
// does, and nothing else.
func TestAppendCompact(t *testing.T) {
	for _, in := range []string{
		`{}`, ` { "a" : [ 1 , 2 ] } `, `"a b"`, `["x \" y", "z\\\\", " \\\\\" "]`, "{\n\t\"k\":\r\n\"v w\"}",
		`[{"a":"\\"}, {"b" : " "}]`, `"\u0020 "`, `  null  `,
	} {
		var want bytes.Buffer
		if err := json.Compact(&want, []byte(in)); err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		if got := AppendCompact([]byte("x"), []byte(in)); string(got) != "x"+want.String() {
			t.Errorf("AppendCompact(%q) = %q, want %q", in, got[1:], want.String())
		}
	}
}
