package testutil

// The golden transcripts of the specification's examples, and the checks of
// a response against them.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// The golden transcripts in testdata/spec replay the examples of section 7
// of the JSON-RPC 2.0 specification against demo.NewServer.
//
// Format: a line starting "--> " holds a request document; the "<-- " line
// after it holds the expected response. A request followed by no "<-- " line,
// or by a "<--" line with nothing after it, expects an empty answer. Blank
// lines and lines starting "#" are comments.

// Exchange is one request of a transcript and the response it expects.
type Exchange struct {
	Line int    // line number of the request in its file
	Req  string // request document
	Want string // expected response; "" expects no response
}

// ParseTranscript reads the exchanges of a transcript.
func ParseTranscript(r io.Reader) ([]Exchange, error) {
	var (
		exs     []Exchange
		pending bool // the last Exchange may still get its "<--" line
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
			exs = append(exs, Exchange{Line: n, Req: strings.TrimPrefix(req, " ")})
			pending = true
		case strings.HasPrefix(line, "<--"):
			if !pending {
				return nil, fmt.Errorf("line %d: response without a request", n)
			}
			exs[len(exs)-1].Want = strings.TrimSpace(strings.TrimPrefix(line, "<--"))
			pending = false
		default:
			return nil, fmt.Errorf("line %d: want \"--> \", \"<-- \", \"#\" or a blank line, got %q", n, line)
		}
	}
	return exs, sc.Err()
}

// TranscriptFiles returns the paths of the golden transcripts.
// TranscriptFiles returns the paths of the golden transcripts in the
// repository's testdata/spec.
func TranscriptFiles(tb testing.TB) []string {
	tb.Helper()
	files, err := filepath.Glob(filepath.Join(specDir(), "*.txt"))
	if err != nil {
		tb.Fatal(err)
	}
	if len(files) == 0 {
		tb.Fatal("no transcripts in testdata/spec")
	}
	return files
}

// ReadTranscript parses the transcript in file.
func ReadTranscript(tb testing.TB, file string) []Exchange {
	tb.Helper()
	f, err := os.Open(file)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	exs, err := ParseTranscript(f)
	if err != nil {
		tb.Fatalf("%s: %v", file, err)
	}
	if len(exs) == 0 {
		tb.Fatalf("%s: no exchanges", file)
	}
	return exs
}

// CheckAnswer checks the answer got to req against want, the expected
// response ("" for none): got must be a well-formed response (see
// ValidateResponse) equal to want as JSON values, with numbers compared by
// value and the elements of batch responses in any order.
func CheckAnswer(tb testing.TB, where, req string, got []byte, want string) {
	tb.Helper()
	if want == "" {
		if len(got) != 0 {
			tb.Errorf("%s: request %s\n got %s\nwant no response", where, req, got)
		}
		return
	}
	if err := ValidateResponse(got); err != nil {
		tb.Errorf("%s: request %s\n%v", where, req, err)
		return
	}
	if !SameResponse(MustDecode(tb, got), MustDecode(tb, []byte(want))) {
		tb.Errorf("%s: request %s\n got %s\nwant %s", where, req, got, want)
	}
}

// Decode parses one JSON value, keeping numbers as json.Number.
func Decode(b []byte) (any, error) {
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

// MustDecode is Decode followed by Normalize.
func MustDecode(tb testing.TB, b []byte) any {
	tb.Helper()
	v, err := Decode(b)
	if err != nil {
		tb.Fatalf("decoding %q: %v", b, err)
	}
	return Normalize(v)
}

// Normalize replaces the numbers in v that fit a float64 by their float64
// value, so that 19 and 19.0 compare equal; others (1e400) stay as written.
func Normalize(v any) any {
	switch v := v.(type) {
	case json.Number:
		if f, err := strconv.ParseFloat(v.String(), 64); err == nil {
			return f
		}
		return v
	case []any:
		for i := range v {
			v[i] = Normalize(v[i])
		}
	case map[string]any:
		for k := range v {
			v[k] = Normalize(v[k])
		}
	}
	return v
}

// ValidateResponse reports whether out is an acceptable answer: nothing, or
// one compact JSON value without duplicate members that is a response object
// or a non-empty array of them.
func ValidateResponse(out []byte) error {
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
	v, err := Decode(out)
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

// specDir is the repository's testdata/spec, found from this file's path so
// that the tests of every package read the same transcripts.
func specDir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "testdata", "spec")
}
