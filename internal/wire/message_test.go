package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"unicode/utf8"
)

func TestClassify(t *testing.T) {
	for _, tc := range []struct {
		msg    string
		kind   MsgKind
		method string // decoded; "" for none
	}{
		{`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":16}}`, MsgNotification, "$/cancelRequest"},
		{`{"jsonrpc":"2.0","method":"$\/cancelRequest","params":{"id":16}}`, MsgNotification, "$/cancelRequest"},
		{`{"jsonrpc":"2.0","method":"\u0024/cancelRequest","params":{"id":16}}`, MsgNotification, "$/cancelRequest"},
		{`{"jsonrpc":"2.0","method":"notifications\/cancelled","params":{"requestId":1}}`, MsgNotification, "notifications/cancelled"},
		{`{"jsonrpc":"2.0","\u006dethod":"add","id":1}`, MsgRequest, "add"},
		{`{"jsonrpc":"2.0","re\u0073ult":1,"id":1}`, MsgResponse, ""},
		{`{"jsonrpc":"2.0","\u0065rror":{"code":1,"message":""},"id":1}`, MsgResponse, ""},
		{`{"jsonrpc":"2.0","result":null,"id":1}`, MsgResponse, ""},
		{` [ {"jsonrpc":"2.0","res\u0075lt":1,"id":1}, 2 ]`, MsgResponses, ""},
		{`[{"jsonrpc":"2.0","method":"a","id":1}]`, MsgBatch, "a"},
		{`[]`, MsgBatch, ""},
		{`[1]`, MsgBatch, ""},
		{`{}`, MsgOther, ""},
		{`{"method":"a","result":1,"id":1}`, MsgOther, "a"},
		{`3`, MsgOther, ""},
		{`{"method":`, MsgOther, ""},
	} {
		var r Request
		kind, _ := Scanner{}.Classify([]byte(tc.msg), &r)
		if kind != tc.kind {
			t.Errorf("Classify(%s) = %v, want %v", tc.msg, kind, tc.kind)
		}
		if tc.method != "" && !NameIs(r.Method, tc.method) {
			t.Errorf("Classify(%s): method %s is not %q", tc.msg, r.Method, tc.method)
		}
	}
}

func TestNameIsAndMember(t *testing.T) {
	for _, tc := range []struct {
		v    string
		name string
		want bool
	}{
		{`"$/progress"`, "$/progress", true},
		{`"$\/progress"`, "$/progress", true},
		{`"\u0024\u002f\u0070rogress"`, "$/progress", true},
		{`"$/progres"`, "$/progress", false},
		{`"$\/progres\u0073x"`, "$/progress", false},
		{`"\ud83d\ude00"`, "\U0001F600", true},
		{`1`, "1", false},
	} {
		if got := NameIs([]byte(tc.v), tc.name); got != tc.want {
			t.Errorf("NameIs(%s, %q) = %v", tc.v, tc.name, got)
		}
	}
	obj := []byte(`{"token":1,"_met\u0061":{"progressToken":"p1"},"x":2,"x":3}`)
	if got := Member(obj, "_meta"); string(got) != `{"progressToken":"p1"}` {
		t.Errorf("Member(_meta) = %s", got)
	}
	if got := Member(obj, "x"); string(got) != "3" {
		t.Errorf("Member(x) = %s, want the last", got)
	}
	if got := Member(obj, "y"); got != nil {
		t.Errorf("Member(y) = %s", got)
	}
	if got := Member([]byte(`[1]`), "y"); got != nil {
		t.Errorf("Member of an array = %s", got)
	}
}

// escapeStrings returns doc, a valid JSON document, with every string in
// it (member names included) written again with random escapes: each
// character raw or as \uXXXX (a surrogate pair past the BMP), a slash
// sometimes as \/. The document means what doc means.
func escapeStrings(doc []byte, rng *rand.Rand) []byte {
	out := make([]byte, 0, 2*len(doc))
	for i := 0; i < len(doc); {
		if doc[i] != '"' {
			out = append(out, doc[i])
			i++
			continue
		}
		end, _ := skipString(doc, i)
		var s string
		if json.Unmarshal(doc[i:end], &s) != nil {
			// Not decodable alone (invalid surrogates decode to U+FFFD):
			// keep it as it is.
			out = append(out, doc[i:end]...)
			i = end
			continue
		}
		out = append(out, '"')
		for _, c := range s {
			switch {
			case c == '"' || c == '\\' || c < 0x20 || rng.IntN(3) == 0:
				if c > 0xFFFF {
					c -= 0x10000
					out = fmt.Appendf(out, `\u%04x\u%04x`, 0xD800+(c>>10), 0xDC00+(c&0x3FF))
				} else {
					out = fmt.Appendf(out, `\u%04x`, c)
				}
			case c == '/' && rng.IntN(2) == 0:
				out = append(out, `\/`...)
			default:
				out = utf8.AppendRune(out, c)
			}
		}
		out = append(out, '"')
		i = end
	}
	return out
}

// stdClassify is Classify's specification, by encoding/json: what the
// message is, its method (decoded) and its id (decoded, numbers as
// json.Number).
func stdClassify(doc []byte) (kind MsgKind, method any, id any, ok bool) {
	var v any
	d := json.NewDecoder(bytes.NewReader(doc))
	d.UseNumber()
	if d.Decode(&v) != nil || d.More() {
		return MsgOther, nil, nil, false
	}
	if !json.Valid(doc) {
		return MsgOther, nil, nil, false
	}
	classOf := func(o map[string]any) MsgKind {
		m, hasM := o["method"]
		_, hasID := o["id"]
		_, hasR := o["result"]
		_, hasE := o["error"]
		method = m
		answer := hasR || hasE
		switch {
		case hasM && !answer && hasID:
			return MsgRequest
		case hasM && !answer:
			return MsgNotification
		case !hasM && answer:
			return MsgResponse
		}
		return MsgOther
	}
	switch v := v.(type) {
	case map[string]any:
		return classOf(v), v["method"], v["id"], true
	case []any:
		if len(v) > 0 {
			if o, isObj := v[0].(map[string]any); isObj {
				if classOf(o) == MsgResponse {
					return MsgResponses, nil, o["id"], true
				}
				return MsgBatch, o["method"], o["id"], true
			}
		}
		return MsgBatch, nil, nil, true
	}
	return MsgOther, nil, nil, true
}

// checkClassify compares Classify with stdClassify on doc.
func checkClassify(t *testing.T, doc []byte) {
	t.Helper()
	if !utf8.Valid(doc) {
		return // the scanner refuses invalid UTF-8; encoding/json replaces it
	}
	var r Request
	kind, err := Scanner{}.Classify(doc, &r)
	wantKind, wantMethod, wantID, valid := stdClassify(doc)
	if err != nil {
		if valid && err.(*SyntaxError).Msg != ErrDepth {
			t.Fatalf("Classify(%q): %v; encoding/json accepts it", doc, err)
		}
		return
	}
	if !valid {
		t.Fatalf("Classify(%q) accepted it; encoding/json refuses it", doc)
	}
	if kind != wantKind {
		t.Fatalf("Classify(%q) = %v; encoding/json reads %v", doc, kind, wantKind)
	}
	decode := func(span []byte) any {
		if span == nil {
			return nil
		}
		var v any
		d := json.NewDecoder(bytes.NewReader(span))
		d.UseNumber()
		if err := d.Decode(&v); err != nil {
			t.Fatalf("span %q of %q: %v", span, doc, err)
		}
		return v
	}
	if kind != MsgResponses {
		if got := decode(r.Method); !reflect.DeepEqual(got, wantMethod) {
			t.Fatalf("Classify(%q): method %#v; encoding/json reads %#v", doc, got, wantMethod)
		}
		if s, isString := wantMethod.(string); isString && !NameIs(r.Method, s) {
			t.Fatalf("Classify(%q): NameIs(%s, %q) is false", doc, r.Method, s)
		}
	}
	if kind != MsgBatch || r.Method != nil || r.ID != nil {
		if got := decode(r.ID); !reflect.DeepEqual(got, wantID) {
			t.Fatalf("Classify(%q): id %#v; encoding/json reads %#v", doc, got, wantID)
		}
	}
}

var classifySeeds = []string{
	`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":16}}`,
	`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"a/b","reason":"x"}}`,
	`{"jsonrpc":"2.0","method":"$/progress","params":{"token":"p1","value":{"kind":"report"}}}`,
	`{"jsonrpc":"2.0","result":{"method":"no"},"id":1}`,
	`{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":"x/y"}`,
	`{"jsonrpc":"2.0","method":"textDocument/hover","params":{"textDocument":{"uri":"file:///a"}},"id":7}`,
	`[{"jsonrpc":"2.0","result":1,"id":1},{"jsonrpc":"2.0","result":2,"id":2}]`,
	`[{"jsonrpc":"2.0","method":"a/b","id":1},{"jsonrpc":"2.0","method":"c"}]`,
	`{"id":null,"method":"é/ü\u2028😀"}`,
	`{"method":"a","method":"b","id":1,"id":2}`,
	`{"result":1,"error":null}`,
	`[]`, `{}`, `"x"`, `[1,{"method":"a"}]`,
}

func TestClassifyMatchesEncodingJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, s := range classifySeeds {
		checkClassify(t, []byte(s))
		for range 200 {
			checkClassify(t, escapeStrings([]byte(s), rng))
		}
	}
}

// FuzzClassify checks Classify against encoding/json on random messages,
// and again on each with random escapes in every string.
func FuzzClassify(f *testing.F) {
	for i, s := range classifySeeds {
		f.Add([]byte(s), uint64(i))
	}
	f.Fuzz(func(t *testing.T, doc []byte, seed uint64) {
		checkClassify(t, doc)
		if json.Valid(doc) && utf8.Valid(doc) {
			checkClassify(t, escapeStrings(doc, rand.New(rand.NewPCG(seed, 0))))
		}
	})
}

// TestNextName: the names of an object's members, each with the position
// of its value, whose scan is left to SkipValue; white space anywhere.
func TestNextName(t *testing.T) {
	obj := []byte(`{ "jsonrpc" : "2.0" , "re\u0073ult":{"a":[1,{"b":"}"}]},"id" :1 }`)
	var names, values []string
	for pos := 0; ; {
		name, value, ok := NextName(obj, pos)
		if !ok {
			break
		}
		pos = SkipValue(obj, value)
		names = append(names, string(name))
		values = append(values, string(obj[value:pos]))
	}
	wantNames := []string{`"jsonrpc"`, `"re\u0073ult"`, `"id"`}
	wantValues := []string{`"2.0"`, `{"a":[1,{"b":"}"}]}`, `1`}
	if !slices.Equal(names, wantNames) || !slices.Equal(values, wantValues) {
		t.Errorf("names %q values %q, want %q %q", names, values, wantNames, wantValues)
	}
	if !NameIs([]byte(names[1]), "result") {
		t.Errorf("%s is not result", names[1])
	}
	if _, _, ok := NextName([]byte(`{ }`), 0); ok {
		t.Error("a member in an empty object")
	}
}
