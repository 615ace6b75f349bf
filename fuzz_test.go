package jsonrpc_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"testing"
	"unicode/utf8"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/internal/demo"
	"github.com/jsonrpc-go/jsonrpc/internal/testutil"
)

// FuzzProcess feeds arbitrary documents to Process. Whatever the input,
// Process must not panic, must answer with nothing or one well-formed
// response (see testutil.ValidateResponse), must answer the same input the same way,
// and must agree with encoding/json on what is valid JSON.
func FuzzProcess(f *testing.F) {
	for _, file := range testutil.TranscriptFiles(f) {
		for _, ex := range testutil.ReadTranscript(f, file) {
			f.Add([]byte(ex.Req))
		}
	}
	for _, req := range ruleRequests() {
		f.Add([]byte(req))
	}
	for _, req := range demo.Requests {
		f.Add([]byte(req))
	}
	f.Add([]byte(demo.Batch))

	demoSrv := demo.NewServer()
	// Pass-through interceptors, two nested: the demo's answers through
	// the call path that builds a Call.
	pass := func(ctx context.Context, _ *jsonrpc.Call, next func(context.Context) error) error { return next(ctx) }
	hooked := demo.NewServer(jsonrpc.Intercept(pass), jsonrpc.Intercept(pass))
	servers := []struct {
		name     string
		srv      *jsonrpc.Server
		maxDepth int
	}{
		{"demo", demoSrv, jsonrpc.DefaultMaxDepth},
		{"intercept", hooked, jsonrpc.DefaultMaxDepth},
		{"rules", newRuleServer(f).Server, jsonrpc.DefaultMaxDepth},
		{"shallow", demo.NewServer(jsonrpc.UseLimits(jsonrpc.Limits{MaxDepth: 2})), 2},
	}
	f.Fuzz(func(t *testing.T, req []byte) {
		orig := bytes.Clone(req)
		answers := map[*jsonrpc.Server][]byte{}
		for _, s := range servers {
			out := s.srv.Process(context.Background(), nil, req)
			if !bytes.Equal(req, orig) {
				t.Fatalf("%s: Process modified its request %q to %q", s.name, orig, req)
			}
			if err := testutil.ValidateResponse(out); err != nil {
				t.Fatalf("%s: request %q: %v", s.name, req, err)
			}
			if again := s.srv.Process(context.Background(), nil, req); !bytes.Equal(again, out) {
				t.Fatalf("%s: request %q answered differently twice:\n%s\n%s", s.name, req, out, again)
			}
			checkDocumentKind(t, s.name, s.maxDepth, req, out)
			answers[s.srv] = out
		}
		want := answers[demoSrv]
		if got := answers[hooked]; !bytes.Equal(got, want) {
			t.Fatalf("request %q: pass-through hooks changed the answer\n%s\nto\n%s", req, want, got)
		}
		if s := demoSrv.ProcessString(context.Background(), string(req)); s != string(want) {
			t.Fatalf("request %q: ProcessString = %s, Process = %s", req, s, want)
		}
		prefix := []byte("prefix")
		if got := demoSrv.Process(context.Background(), bytes.Clone(prefix), req); !bytes.Equal(got, append(prefix, want...)) {
			t.Fatalf("request %q: Process(%q, req) = %q, want the prefix then %q", req, prefix, got, want)
		}
		checkDemoResults(t, req, want)
	})
}

// checkDocumentKind checks the answer out to req against what encoding/json
// makes of req: a document that is not valid JSON in UTF-8 within maxDepth
// is answered with exactly the parse error; a valid one is never; a request
// object gets an object or nothing, a batch an array of at most one response
// per request or nothing, and any other value an invalid request error.
func checkDocumentKind(t *testing.T, server string, maxDepth int, req, out []byte) {
	t.Helper()
	valid := json.Valid(req) && utf8.Valid(req) && depth(req) <= maxDepth
	if !valid {
		if string(out) != parseError {
			t.Fatalf("%s: invalid document %q answered with %s, want %s", server, req, out, parseError)
		}
		return
	}
	if hasCode(out, jsonrpc.CodeParseError) {
		t.Fatalf("%s: valid document %q answered with a parse error: %s", server, req, out)
	}
	switch req[skipSpace(req)] {
	case '{':
		if len(out) > 0 && out[0] != '{' {
			t.Fatalf("%s: request object %q answered with %s, want an object", server, req, out)
		}
	case '[':
		var elems []json.RawMessage
		if err := json.Unmarshal(req, &elems); err != nil {
			t.Fatalf("%s: decoding batch %q: %v", server, req, err)
		}
		switch {
		case len(elems) == 0 || len(elems) > jsonrpc.DefaultMaxBatch:
			if string(out) != invalidRequest {
				t.Fatalf("%s: batch of %d answered with %s, want %s", server, len(elems), out, invalidRequest)
			}
		case len(out) > 0:
			var resps []json.RawMessage
			if err := json.Unmarshal(out, &resps); err != nil {
				t.Fatalf("%s: batch %q answered with %s, want an array", server, req, out)
			}
			if len(resps) > len(elems) {
				t.Fatalf("%s: batch of %d answered with %d responses: %s", server, len(elems), len(resps), out)
			}
		}
	default:
		if string(out) != invalidRequest {
			t.Fatalf("%s: document %q answered with %s, want %s", server, req, out, invalidRequest)
		}
	}
}

// checkDemoResults compares the successful results of demo methods that
// return their param with encoding/json's reading of that param.
func checkDemoResults(t *testing.T, req, out []byte) {
	t.Helper()
	if len(out) == 0 || out[0] != '{' {
		return
	}
	var resp struct {
		Result json.RawMessage `json:"result"`
	}
	var r map[string]json.RawMessage // exact member names, unlike a struct
	if json.Unmarshal(out, &resp) != nil || resp.Result == nil || json.Unmarshal(req, &r) != nil {
		return
	}
	var (
		method string
		params []json.RawMessage
	)
	if json.Unmarshal(r["method"], &method) != nil || json.Unmarshal(r["params"], &params) != nil || len(params) != 1 {
		return
	}
	switch method {
	case "StringMe":
		var want, got string
		if err := json.Unmarshal(params[0], &want); err != nil {
			t.Fatalf("StringMe(%s) succeeded, but encoding/json cannot read the param as a string: %v", params[0], err)
		}
		if err := json.Unmarshal(resp.Result, &got); err != nil || got != want {
			t.Fatalf("StringMe(%s) = %s, want %q", params[0], resp.Result, want)
		}
	case "Test2":
		want, err := strconv.ParseFloat(string(params[0]), 64)
		if err != nil {
			t.Fatalf("Test2(%s) succeeded, but the param is not a float64: %v", params[0], err)
		}
		if got, err := strconv.ParseFloat(string(resp.Result), 64); err != nil || got != want {
			t.Fatalf("Test2(%s) = %s, want %v", params[0], resp.Result, want)
		}
	case "echo":
		got, err1 := testutil.Decode(resp.Result)
		want, err2 := testutil.Decode(params[0])
		if err1 != nil || err2 != nil || !testutil.SameResponse(testutil.Normalize(got), testutil.Normalize(want)) {
			t.Fatalf("echo(%s) = %s, want the same value", params[0], resp.Result)
		}
	}
}

// hasCode reports whether a response in out, a valid answer, is an error
// with the given code.
func hasCode(out []byte, code jsonrpc.Code) bool {
	var resps []struct {
		Error *jsonrpc.Error `json:"error"`
	}
	if len(out) > 0 && out[0] == '{' {
		out = append(append([]byte("["), out...), ']')
	}
	if err := json.Unmarshal(out, &resps); err != nil {
		return false
	}
	for _, r := range resps {
		if r.Error != nil && r.Error.Code == code {
			return true
		}
	}
	return false
}

// depth returns how deeply the valid JSON b nests arrays and objects.
func depth(b []byte) int {
	d, deepest := 0, 0
	inString, escaped := false, false
	for _, c := range b {
		switch {
		case escaped:
			escaped = false
		case inString:
			switch c {
			case '\\':
				escaped = true
			case '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '[' || c == '{':
			d++
			deepest = max(deepest, d)
		case c == ']' || c == '}':
			d--
		}
	}
	return deepest
}

// skipSpace returns the index of the first byte of b that is not JSON white
// space.
func skipSpace(b []byte) int {
	i := 0
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}
