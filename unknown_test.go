package jsonrpc_test

import (
	"context"
	"strings"
	"testing"

	"github.com/jsonrpc-go/jsonrpc"
)

// TestAllowUnknownNoParams: with AllowUnknownFields, a method that takes
// no params ignores the named params a request sends it, as a method with
// params ignores those that name none of them: the "_meta" every request
// of MCP 2026-07-28 carries. Without the option it is refused, as before;
// an array of params is refused either way.
func TestAllowUnknownNoParams(t *testing.T) {
	for _, lenient := range []bool{false, true} {
		var opts []jsonrpc.Option
		if lenient {
			opts = append(opts, jsonrpc.AllowUnknownFields())
		}
		s := jsonrpc.NewServer(opts...)
		s.MustRegister("plain", func() string { return "ok" })
		s.MustRegister("ctx", func(context.Context) (int, error) { return 1, nil })
		s.MustRegister("typed", jsonrpc.Typed(func(_ context.Context, _ struct{}) (string, error) { return "ok", nil }))
		s.MustRegister("empty", func(struct{}) string { return "ok" })
		for _, m := range []string{"plain", "ctx", "typed", "empty"} {
			resp := s.ProcessString(context.Background(), `{"jsonrpc":"2.0","id":1,"method":"`+m+`","params":{"_meta":{"progressToken":1},"x":2}}`)
			if ok := !strings.Contains(resp, `"error"`); ok != lenient {
				t.Errorf("AllowUnknownFields %v: %s with named params answered %s", lenient, m, resp)
			}
			resp = s.ProcessString(context.Background(), `{"jsonrpc":"2.0","id":1,"method":"`+m+`","params":{}}`)
			if strings.Contains(resp, `"error"`) {
				t.Errorf("AllowUnknownFields %v: %s with {} answered %s", lenient, m, resp)
			}
		}
		if resp := s.ProcessString(context.Background(), `{"jsonrpc":"2.0","id":1,"method":"plain","params":[1]}`); !strings.Contains(resp, `-32602`) {
			t.Errorf("AllowUnknownFields %v: plain with [1] answered %s, want -32602", lenient, resp)
		}
	}
}
