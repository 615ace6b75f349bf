package jsonrpc_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
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
