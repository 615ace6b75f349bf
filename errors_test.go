package jsonrpc_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/internal/demo"
)

// Error data is written compact, and data that is not JSON as a string.
func TestErrorData(t *testing.T) {
	srv := jsonrpc.NewServer()
	var data json.RawMessage
	srv.MustRegister("fail", func() error { return &jsonrpc.Error{Code: 1, Message: "m", Data: data} })
	for in, want := range map[string]string{
		"{ \"a\" : [1, 2] }\n": `{"a":[1,2]}`,
		`not json`:             `"not json"`,
		"\"\xff\"":             `"\"\ufffd\""`,
	} {
		data = json.RawMessage(in)
		got := srv.ProcessString(context.Background(), `{"jsonrpc":"2.0","method":"fail","id":1}`)
		if want := `{"jsonrpc":"2.0","error":{"code":1,"message":"m","data":` + want + `},"id":1}`; got != want {
			t.Errorf("data %q: got %s, want %s", in, got, want)
		}
	}
}

// The sentinels of the standard codes match any *Error of their code, as
// sent by this server or decoded by a client, and nothing else.
func TestErrorSentinels(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		sentinel *jsonrpc.Error
		code     jsonrpc.Code
	}{
		{jsonrpc.ErrParse, jsonrpc.CodeParseError},
		{jsonrpc.ErrInvalidRequest, jsonrpc.CodeInvalidRequest},
		{jsonrpc.ErrMethodNotFound, jsonrpc.CodeMethodNotFound},
		{jsonrpc.ErrInvalidParams, jsonrpc.CodeInvalidParams},
		{jsonrpc.ErrInternal, jsonrpc.CodeInternalError},
	} {
		if tt.sentinel.Code != tt.code || tt.sentinel.Message != tt.code.String() {
			t.Errorf("sentinel %+v, want code %d with message %q", tt.sentinel, tt.code, tt.code.String())
		}
		other := &jsonrpc.Error{Code: tt.code, Message: "other words", Data: json.RawMessage(`{"x":1}`)}
		if !errors.Is(fmt.Errorf("wrapped: %w", other), tt.sentinel) {
			t.Errorf("errors.Is(wrapped %v, sentinel %d) = false", other, tt.code)
		}
		if errors.Is(&jsonrpc.Error{Code: tt.code + 1}, tt.sentinel) || errors.Is(errors.New(tt.code.String()), tt.sentinel) {
			t.Errorf("sentinel %d matches another code or a plain error", tt.code)
		}
	}

	// The errors of a response decode into *Error and match.
	srv := demo.NewServer()
	var resp struct{ Error *jsonrpc.Error }
	for req, want := range map[string]*jsonrpc.Error{
		`{"jsonrpc":"2.0","method":"nope","id":1}`:                    jsonrpc.ErrMethodNotFound,
		`{"jsonrpc":"2.0","method":"subtract","params":["a"],"id":1}`: jsonrpc.ErrInvalidParams,
		`{"jsonrpc":"2.0","method"`:                                   jsonrpc.ErrParse,
		`{"jsonrpc":"1.0","method":"subtract","id":1}`:                jsonrpc.ErrInvalidRequest,
	} {
		if err := json.Unmarshal([]byte(srv.ProcessString(context.Background(), req)), &resp); err != nil || resp.Error == nil {
			t.Fatalf("%s: %v %+v", req, err, resp)
		}
		if !errors.Is(resp.Error, want) {
			t.Errorf("%s: error %v does not match %v", req, resp.Error, want)
		}
	}

	// A method may return a sentinel.
	srv.MustRegister("refuse", func() error { return jsonrpc.ErrInvalidParams })
	checkCase(t, srv, rpcCase{name: "sentinel returned", req: call("refuse", "", "1"), want: wantError(jsonrpc.CodeInvalidParams, "1")})
}

// Error() carries a short form of Data, where servers put the detail.
func TestErrorString(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", 150) // 300 bytes
	for _, tt := range []struct {
		data json.RawMessage
		want string
	}{
		{nil, "jsonrpc: Invalid params (-32602)"},
		{json.RawMessage(`null`), "jsonrpc: Invalid params (-32602)"},
		{json.RawMessage(`"param \"name\": want a string"`), `jsonrpc: Invalid params (-32602): param "name": want a string`},
		{json.RawMessage(` {"field": "x"} `), `jsonrpc: Invalid params (-32602): {"field": "x"}`},
		{json.RawMessage(`42`), `jsonrpc: Invalid params (-32602): 42`},
		{json.RawMessage(`"` + long + `"`), "jsonrpc: Invalid params (-32602): " + long[:200] + "…"},
		{json.RawMessage(`"` + "a" + long + `"`), "jsonrpc: Invalid params (-32602): a" + long[:198] + "…"},
	} {
		e := &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "Invalid params", Data: tt.data}
		if got := e.Error(); got != tt.want {
			t.Errorf("data %s: Error() = %q, want %q", tt.data, got, tt.want)
		}
	}
	var nilErr *jsonrpc.Error
	if got := nilErr.Error(); got != "jsonrpc: <nil>" {
		t.Errorf("nil Error() = %q", got)
	}
}

// TestCodesOutsideTheProtocolsRanges: the codes this package answers with
// on its own mean, to an LSP or MCP client, what they mean here. LSP
// reserves -32899 to -32800 (its clients retry a request that fails with
// -32801, "content modified") and names -32002 and -32001; the one code of
// LSP's range used is RequestCancelled, for a cancelled call. MCP reserves
// -32020 to -32099.
func TestCodesOutsideTheProtocolsRanges(t *testing.T) {
	for _, c := range []jsonrpc.Code{jsonrpc.CodeServerError, jsonrpc.CodeDeadline, jsonrpc.CodeLimitExceeded} {
		if c >= -32899 && c <= -32800 || c == -32002 || c == -32001 || c >= -32099 && c <= -32020 {
			t.Errorf("%d (%v) is in a range LSP or MCP reserve", c, c)
		}
	}
	if jsonrpc.CodeCancelled != -32800 {
		t.Errorf("CodeCancelled is %d, not LSP's RequestCancelled (-32800)", jsonrpc.CodeCancelled)
	}
}

// TestMethodNotFoundName (issue 39): the answer to a call of an unknown
// method carries the name as its data, escaped by the JSON writer and cut
// to 64 bytes on a rune boundary, so that however long or hostile the name,
// the answer, and the line that logs its error, stay bounded and on one
// line.
func TestMethodNotFoundName(t *testing.T) {
	t.Parallel()
	srv := demo.NewServer()
	long := strings.Repeat("é", 1<<19) // 1 MiB
	for _, tc := range []struct {
		name   string
		method string // as it is written inside the request's quotes
		data   string // the data's string
	}{
		{"short", `nope`, "nope"},
		{"exactly 64", strings.Repeat("m", 64), strings.Repeat("m", 64)},
		{"65", strings.Repeat("m", 65), strings.Repeat("m", 64) + "…"},
		{"1 MiB ASCII", strings.Repeat("a", 1<<20), strings.Repeat("a", 64) + "…"},
		{"1 MiB two-byte runes", long, long[:64] + "…"},
		{"cut inside a rune", "x" + long, "x" + long[:62] + "…"},
		{"quotes and controls", `a\"b\\c\n\u0000\u2028d`, "a\"b\\c\n\x00\u2028d"},
		{"escaped dot", `rpc\u002efoo`, "rpc.foo"},
		{"lone surrogate", `x\ud800y`, "x\ufffdy"},
		{"escapes past the cut", strings.Repeat(`\n`, 1000), strings.Repeat("\n", 64) + "…"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := srv.ProcessString(context.Background(), `{"jsonrpc":"2.0","method":"`+tc.method+`","id":1}`)
			if len(got) > 500 {
				t.Fatalf("answer of %d bytes: %.200s…", len(got), got)
			}
			if strings.ContainsAny(got, "\n\x00\u2028") {
				t.Errorf("answer has a raw line break or NUL: %q", got)
			}
			var resp struct{ Error *jsonrpc.Error }
			if err := json.Unmarshal([]byte(got), &resp); err != nil || resp.Error == nil {
				t.Fatalf("answer %s: %v", got, err)
			}
			if resp.Error.Code != jsonrpc.CodeMethodNotFound || resp.Error.Message != "Method not found" {
				t.Errorf("answer %s: want code -32601, message Method not found", got)
			}
			var data string
			if err := json.Unmarshal(resp.Error.Data, &data); err != nil || data != tc.data {
				t.Errorf("data %s, want %q (%v)", resp.Error.Data, tc.data, err)
			}
			// What a client logs of it: one bounded line.
			var log strings.Builder
			slog.New(slog.NewTextHandler(&log, nil)).Error("call failed", "error", resp.Error)
			if n := strings.Count(log.String(), "\n"); n != 1 || log.Len() > 400 {
				t.Errorf("log of %d bytes, %d lines: %q", log.Len(), n, log.String())
			}
			if text := resp.Error.Error(); strings.ContainsAny(text, "\n\x00\u2028") || len(text) > 300 {
				t.Errorf("Error() = %q", text)
			}
		})
	}
	// Notifications of unknown methods are still not answered.
	if got := srv.ProcessString(context.Background(), `{"jsonrpc":"2.0","method":"`+strings.Repeat("a", 1000)+`"}`); got != "" {
		t.Errorf("notification answered %s", got)
	}
}

// TestErrorStringControls: Error() writes the control characters of string
// data as Go escapes, so that the text of a peer's error keeps to one line.
func TestErrorStringControls(t *testing.T) {
	t.Parallel()
	e := &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "Method not found", Data: json.RawMessage(`"a\nb\u0000c\u2028d\te"`)}
	if got, want := e.Error(), `jsonrpc: Method not found (-32601): a\nb\x00c\u2028d\te`; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}
