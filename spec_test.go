package jsonrpc_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/jsonrpc-go/jsonrpc/demo"
	"github.com/jsonrpc-go/jsonrpc/internal/testutil"
)

// The golden transcripts in testdata/spec replay the examples of section 7
// of the JSON-RPC 2.0 specification against demo.NewServer.
//
// Format: a line starting "--> " holds a request document; the "<-- " line
// after it holds the expected response. A request followed by no "<-- " line,
// or by a "<--" line with nothing after it, expects an empty answer. Blank
// lines and lines starting "#" are comments.

// exchange is one request of a transcript and the response it expects.
type exchange struct {
	line int    // line number of the request in its file
	req  string // request document
	want string // expected response; "" expects no response
}

// parseTranscript reads the exchanges of a transcript.
func parseTranscript(r io.Reader) ([]exchange, error) {
	var (
		exs     []exchange
		pending bool // the last exchange may still get its "<--" line
	)
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSuffix(sc.Text(), "\r")
		switch {
		case strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#"):
			// A comment.
		case line == "-->" || strings.HasPrefix(line, "--> "):
			req, _ := strings.CutPrefix(line, "-->")
			exs = append(exs, exchange{line: n, req: strings.TrimPrefix(req, " ")})
			pending = true
		case strings.HasPrefix(line, "<--"):
			if !pending {
				return nil, fmt.Errorf("line %d: response without a request", n)
			}
			exs[len(exs)-1].want = strings.TrimSpace(strings.TrimPrefix(line, "<--"))
			pending = false
		default:
			return nil, fmt.Errorf("line %d: want \"--> \", \"<-- \", \"#\" or a blank line, got %q", n, line)
		}
	}
	return exs, sc.Err()
}

// transcriptFiles returns the paths of the golden transcripts.
func transcriptFiles(tb testing.TB) []string {
	tb.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "spec", "*.txt"))
	if err != nil {
		tb.Fatal(err)
	}
	if len(files) == 0 {
		tb.Fatal("no transcripts in testdata/spec")
	}
	return files
}

// readTranscript parses the transcript in file.
func readTranscript(tb testing.TB, file string) []exchange {
	tb.Helper()
	f, err := os.Open(file)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	exs, err := parseTranscript(f)
	if err != nil {
		tb.Fatalf("%s: %v", file, err)
	}
	if len(exs) == 0 {
		tb.Fatalf("%s: no exchanges", file)
	}
	return exs
}

func TestSpecTranscripts(t *testing.T) {
	t.Parallel()
	for _, file := range transcriptFiles(t) {
		name := strings.TrimSuffix(filepath.Base(file), ".txt")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := demo.NewServer()
			for _, ex := range readTranscript(t, file) {
				got := srv.Process(context.Background(), nil, []byte(ex.req))
				checkAnswer(t, fmt.Sprintf("%s:%d", filepath.Base(file), ex.line), ex.req, got, ex.want)
			}
		})
	}
}

func TestParseTranscript(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		in      string
		want    []exchange
		wantErr bool
	}{
		{
			name: "request and response",
			in:   "# comment\n\n--> {\"a\":1}\n<-- {\"b\":2}\n",
			want: []exchange{{line: 3, req: `{"a":1}`, want: `{"b":2}`}},
		},
		{
			name: "no response line",
			in:   "--> 1\n--> 2\n",
			want: []exchange{{line: 1, req: "1"}, {line: 2, req: "2"}},
		},
		{
			name: "empty response line",
			in:   "--> 1\n<--\n--> 2\n<-- \r\n",
			want: []exchange{{line: 1, req: "1"}, {line: 3, req: "2"}},
		},
		{
			name: "request kept as written",
			in:   "-->  [ 1 ] \n",
			want: []exchange{{line: 1, req: " [ 1 ] "}},
		},
		{name: "response first", in: "<-- 1\n", wantErr: true},
		{name: "two responses", in: "--> 1\n<-- 1\n<-- 2\n", wantErr: true},
		{name: "stray text", in: "--> 1\nhello\n", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := parseTranscript(strings.NewReader(tt.in))
			if tt.wantErr {
				if err == nil {
					t.Fatalf("parseTranscript(%q) = %+v, want an error", tt.in, got)
				}
				return
			}
			if err != nil {
				t.Fatalf("parseTranscript(%q): %v", tt.in, err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("parseTranscript(%q) = %+v, want %+v", tt.in, got, tt.want)
			}
		})
	}
}

// checkAnswer checks the answer got to req against want, the expected
// response ("" for none): got must be a well-formed response (see
// validateResponse) equal to want as JSON values, with numbers compared by
// value and the elements of batch responses in any order.
func checkAnswer(tb testing.TB, where, req string, got []byte, want string) {
	tb.Helper()
	if want == "" {
		if len(got) != 0 {
			tb.Errorf("%s: request %s\n got %s\nwant no response", where, req, got)
		}
		return
	}
	if err := validateResponse(got); err != nil {
		tb.Errorf("%s: request %s\n%v", where, req, err)
		return
	}
	if !testutil.SameResponse(mustDecode(tb, got), mustDecode(tb, []byte(want))) {
		tb.Errorf("%s: request %s\n got %s\nwant %s", where, req, got, want)
	}
}

// decode parses one JSON value, keeping numbers as json.Number.
func decode(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("data after the JSON value in %q", b)
	}
	return v, nil
}

// mustDecode is decode followed by normalize.
func mustDecode(tb testing.TB, b []byte) any {
	tb.Helper()
	v, err := decode(b)
	if err != nil {
		tb.Fatalf("decoding %q: %v", b, err)
	}
	return normalize(v)
}

// normalize replaces the numbers in v that fit a float64 by their float64
// value, so that 19 and 19.0 compare equal; others (1e400) stay as written.
func normalize(v any) any {
	switch v := v.(type) {
	case json.Number:
		if f, err := strconv.ParseFloat(v.String(), 64); err == nil {
			return f
		}
		return v
	case []any:
		for i := range v {
			v[i] = normalize(v[i])
		}
	case map[string]any:
		for k := range v {
			v[k] = normalize(v[k])
		}
	}
	return v
}

// validateResponse reports whether out is an acceptable answer: nothing, or
// one compact JSON value without duplicate members that is a response object
// or a non-empty array of them.
func validateResponse(out []byte) error {
	if len(out) == 0 {
		return nil
	}
	if !json.Valid(out) {
		return fmt.Errorf("response is not valid JSON: %q", out)
	}
	if i := whitespaceOutsideStrings(out); i >= 0 {
		return fmt.Errorf("response has white space outside strings at offset %d: %s", i, out)
	}
	if err := duplicateMember(out); err != nil {
		return fmt.Errorf("response %s: %v", out, err)
	}
	v, err := decode(out)
	if err != nil {
		return err
	}
	switch v := v.(type) {
	case map[string]any:
		if err := validateResponseObject(v); err != nil {
			return fmt.Errorf("response %s: %v", out, err)
		}
	case []any:
		if len(v) == 0 {
			return errors.New("response is an empty array")
		}
		for i, e := range v {
			m, ok := e.(map[string]any)
			if !ok {
				return fmt.Errorf("batch response %s: element %d is not an object", out, i)
			}
			if err := validateResponseObject(m); err != nil {
				return fmt.Errorf("batch response %s: element %d: %v", out, i, err)
			}
		}
	default:
		return fmt.Errorf("response is neither an object nor an array: %s", out)
	}
	return nil
}

// validateResponseObject checks one response object, decoded with UseNumber,
// against section 5 of the specification.
func validateResponseObject(m map[string]any) error {
	for k := range m {
		switch k {
		case "jsonrpc", "result", "error", "id":
		default:
			return fmt.Errorf("unexpected member %q", k)
		}
	}
	if m["jsonrpc"] != "2.0" {
		return fmt.Errorf(`"jsonrpc" is %#v, want "2.0"`, m["jsonrpc"])
	}
	id, ok := m["id"]
	if !ok {
		return errors.New(`no "id" member`)
	}
	switch id.(type) {
	case nil, string, json.Number:
	default:
		return fmt.Errorf("id %#v is not a string, number or null", id)
	}
	_, hasResult := m["result"]
	e, hasError := m["error"]
	switch {
	case hasResult && hasError:
		return errors.New(`both "result" and "error"`)
	case !hasResult && !hasError:
		return errors.New(`neither "result" nor "error"`)
	case hasResult:
		return nil
	}
	eo, ok := e.(map[string]any)
	if !ok {
		return fmt.Errorf("error %#v is not an object", e)
	}
	for k := range eo {
		switch k {
		case "code", "message", "data":
		default:
			return fmt.Errorf("unexpected error member %q", k)
		}
	}
	code, ok := eo["code"].(json.Number)
	if !ok {
		return fmt.Errorf("error code %#v is not a number", eo["code"])
	}
	if _, err := strconv.ParseInt(code.String(), 10, 64); err != nil {
		return fmt.Errorf("error code %s is not an integer", code)
	}
	if _, ok := eo["message"].(string); !ok {
		return fmt.Errorf("error message %#v is not a string", eo["message"])
	}
	return nil
}

// whitespaceOutsideStrings returns the offset of the first JSON white space
// byte of the valid JSON b that is not inside a string, or -1.
func whitespaceOutsideStrings(b []byte) int {
	inString, escaped := false, false
	for i, c := range b {
		switch {
		case escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case c == '"':
			inString = !inString
		case !inString && (c == ' ' || c == '\t' || c == '\n' || c == '\r'):
			return i
		}
	}
	return -1
}

// duplicateMember reports an object of the valid JSON b that has a member
// name twice.
func duplicateMember(b []byte) error {
	type frame struct {
		object  bool
		names   map[string]bool
		wantKey bool // the next token of this object is a name or its end
	}
	var stack []*frame
	valueDone := func() {
		if n := len(stack); n > 0 && stack[n-1].object {
			stack[n-1].wantKey = true
		}
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if n := len(stack); n > 0 && stack[n-1].object && stack[n-1].wantKey {
			top := stack[n-1]
			if tok == json.Delim('}') {
				stack = stack[:n-1]
				valueDone()
				continue
			}
			name := tok.(string)
			if top.names[name] {
				return fmt.Errorf("member %q appears twice", name)
			}
			top.names[name] = true
			top.wantKey = false
			continue
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{object: true, names: map[string]bool{}, wantKey: true})
		case json.Delim('['):
			stack = append(stack, &frame{})
		case json.Delim(']'):
			stack = stack[:len(stack)-1]
			valueDone()
		default:
			valueDone()
		}
	}
}

func TestValidateResponse(t *testing.T) {
	t.Parallel()
	valid := []string{
		``,
		`{"jsonrpc":"2.0","result":null,"id":null}`,
		`{"jsonrpc":"2.0","result":{"a":" x "},"id":"1"}`,
		`{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request"},"id":null}`,
		`{"jsonrpc":"2.0","error":{"code":1,"message":"m","data":[1,{"a":1}]},"id":1e400}`,
		`[{"jsonrpc":"2.0","result":1,"id":1},{"jsonrpc":"2.0","result":2,"id":1}]`,
	}
	invalid := []string{
		`{"jsonrpc":"2.0","result":1,"id":1}x`,
		`{"jsonrpc":"2.0","result":1, "id":1}`,
		`{"jsonrpc":"2.0","result":1,"id":1}` + "\n",
		`{"jsonrpc":"2.0","result":1,"result":2,"id":1}`,
		`{"jsonrpc":"2.0","result":{"a":1,"a":2},"id":1}`,
		`{"jsonrpc":"1.0","result":1,"id":1}`,
		`{"result":1,"id":1}`,
		`{"jsonrpc":"2.0","result":1}`,
		`{"jsonrpc":"2.0","id":1}`,
		`{"jsonrpc":"2.0","result":1,"error":{"code":1,"message":"m"},"id":1}`,
		`{"jsonrpc":"2.0","result":1,"id":[1]}`,
		`{"jsonrpc":"2.0","result":1,"id":1,"extra":1}`,
		`{"jsonrpc":"2.0","error":{"code":1.5,"message":"m"},"id":1}`,
		`{"jsonrpc":"2.0","error":{"code":1},"id":1}`,
		`{"jsonrpc":"2.0","error":"bad","id":1}`,
		`[]`,
		`[1]`,
		`1`,
	}
	for _, s := range valid {
		if err := validateResponse([]byte(s)); err != nil {
			t.Errorf("validateResponse(%q) = %v, want nil", s, err)
		}
	}
	for _, s := range invalid {
		if err := validateResponse([]byte(s)); err == nil {
			t.Errorf("validateResponse(%q) = nil, want an error", s)
		}
	}
}

func TestSameResponse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		a, b string
		same bool
	}{
		{`{"result":19,"id":1}`, `{"id":1.0,"result":1.9e1}`, true},
		{`{"id":1e400}`, `{"id":1e400}`, true},
		{`[1,2,2]`, `[2,1,2]`, true},
		{`[1,2,2]`, `[1,1,2]`, false},
		{`[1,2]`, `[1,2,2]`, false},
		{`{"r":[1,2]}`, `{"r":[2,1]}`, false}, // only top-level arrays are unordered
		{`{"a":null}`, `{}`, false},
	}
	for _, tt := range tests {
		if got := testutil.SameResponse(mustDecode(t, []byte(tt.a)), mustDecode(t, []byte(tt.b))); got != tt.same {
			t.Errorf("SameResponse(%s, %s) = %v, want %v", tt.a, tt.b, got, tt.same)
		}
	}
}
