package jsonrpc_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/demo"
	"github.com/jsonrpc-go/jsonrpc/internal/testutil"
)

// A panicking error hook leaves the error it was given in place, and the
// server keeps serving.
func TestErrorHookPanics(t *testing.T) {
	srv := jsonrpc.NewServer(
		jsonrpc.OnError(func(context.Context, *jsonrpc.Call, error, *jsonrpc.Error) *jsonrpc.Error { panic("hook") }),
		jsonrpc.OnParseError(func([]byte, error, *jsonrpc.Error) *jsonrpc.Error { panic("hook") }),
	)
	srv.MustRegister("fail", func() error { return jsonrpc.NewError(7, "seven") })
	for req, want := range map[string]string{
		`{"jsonrpc":"2.0","method":"fail","id":1}`: `{"jsonrpc":"2.0","error":{"code":7,"message":"seven"},"id":1}`,
		`{`: `{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"},"id":null}`,
	} {
		if got := srv.ProcessString(context.Background(), req); got != want {
			t.Errorf("%s: got %s, want %s", req, got, want)
		}
	}
}

// The post-process hook's result cannot grow into the caller's buffer.
func TestPostHookResultCapped(t *testing.T) {
	var kept []byte
	srv := jsonrpc.NewServer(jsonrpc.OnPostProcess(func(_ context.Context, _ *jsonrpc.Call, result json.RawMessage, _ *jsonrpc.Error) error {
		kept = append(result, '\n')
		return nil
	}))
	srv.MustRegister("two", func() int { return 2 })
	out := srv.Process(context.Background(), make([]byte, 0, 256), []byte(`{"jsonrpc":"2.0","method":"two","id":1}`))
	if string(kept) != "2\n" || string(out) != `{"jsonrpc":"2.0","result":2,"id":1}` {
		t.Errorf("kept %q, out %s", kept, out)
	}
}

// target registers a method "target" on srv that counts its calls and
// returns 7.
func target(tb testing.TB, srv *jsonrpc.Server) *atomic.Int64 {
	tb.Helper()
	var n atomic.Int64
	if err := srv.Register("target", func() int { n.Add(1); return 7 }); err != nil {
		tb.Fatal(err)
	}
	return &n
}

func TestOnPreProcess(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		pre  func(context.Context, *jsonrpc.Call) error
		req  string
		want string
		ran  int64
	}{
		{
			name: "allows",
			pre:  func(context.Context, *jsonrpc.Call) error { return nil },
			req:  call("target", "", "1"), want: wantResult("7", "1"), ran: 1,
		},
		{
			name: "aborts with *Error",
			pre:  func(context.Context, *jsonrpc.Call) error { return jsonrpc.NewError(-32001, "denied") },
			req:  call("target", "", "1"), want: wantErrorMessage(-32001, "denied", "1"),
		},
		{
			name: "aborts with plain error",
			pre:  func(context.Context, *jsonrpc.Call) error { return errors.New("nope") },
			req:  call("target", "", "1"), want: wantErrorMessage(jsonrpc.CodeServerError, "nope", "1"),
		},
		{
			name: "aborts with SetError",
			pre: func(_ context.Context, c *jsonrpc.Call) error {
				c.SetError(jsonrpc.NewError(-32002, "set"))
				return nil
			},
			req: call("target", "", "1"), want: wantErrorMessage(-32002, "set", "1"),
		},
		{
			name: "SetError nil allows",
			pre: func(_ context.Context, c *jsonrpc.Call) error {
				c.SetError(errors.New("x"))
				c.SetError(nil)
				return nil
			},
			req: call("target", "", "1"), want: wantResult("7", "1"), ran: 1,
		},
		{
			name: "panics",
			pre:  func(context.Context, *jsonrpc.Call) error { panic("pre") },
			req:  call("target", "", "1"), want: wantError(jsonrpc.CodeInternalError, "1"),
		},
		{
			name: "aborts notification",
			pre:  func(context.Context, *jsonrpc.Call) error { return errors.New("nope") },
			req:  call("target", "", ""), want: "",
		},
		{
			name: "sees call",
			pre: func(ctx context.Context, c *jsonrpc.Call) error {
				if jsonrpc.CallOf(ctx) != c || c.Method() != "target" || string(c.ID()) != `"x"` || string(c.Params()) != "[]" {
					return errors.New("wrong call")
				}
				return nil
			},
			req: call("target", "[]", `"x"`), want: wantResult("7", `"x"`), ran: 1,
		},
		{
			name: "not run for unknown method",
			pre:  func(context.Context, *jsonrpc.Call) error { panic("must not run") },
			req:  call("foobar", "", "1"), want: notFound,
		},
		{
			name: "not run for invalid request",
			pre:  func(context.Context, *jsonrpc.Call) error { panic("must not run") },
			req:  `{"jsonrpc":"2.0","method":"target","params":1,"id":1}`, want: wantError(jsonrpc.CodeInvalidRequest, "1"),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := jsonrpc.NewServer(jsonrpc.OnPreProcess(tt.pre), jsonrpc.ErrorDetails())
			ran := target(t, srv)
			checkCase(t, srv, rpcCase{name: tt.name, req: tt.req, want: tt.want})
			if got := ran.Load(); got != tt.ran {
				t.Errorf("method ran %d times, want %d", got, tt.ran)
			}
		})
	}
}

func TestOnPostProcess(t *testing.T) {
	t.Parallel()
	type seen struct {
		calls  int
		result string // nil as "<nil>"
		code   jsonrpc.Code
	}
	tests := []struct {
		name   string
		post   func(*jsonrpc.Call, json.RawMessage, *jsonrpc.Error) error
		req    string
		want   string
		data   string
		seen   seen
		method string
	}{
		{
			name: "sees result",
			post: func(*jsonrpc.Call, json.RawMessage, *jsonrpc.Error) error { return nil },
			req:  call("subtract", "[42,23]", "1"), want: wantResult("19", "1"),
			seen: seen{calls: 1, result: "19"},
		},
		{
			name: "sees structured result",
			post: func(*jsonrpc.Call, json.RawMessage, *jsonrpc.Error) error { return nil },
			req:  call("get_data", "", "1"), want: wantResult(`["hello",5]`, "1"),
			seen: seen{calls: 1, result: `["hello",5]`},
		},
		{
			name: "sees error",
			post: func(*jsonrpc.Call, json.RawMessage, *jsonrpc.Error) error { return nil },
			req:  call("subtract", `["x",1]`, "1"), want: invalidParams, data: "minuend",
			seen: seen{calls: 1, result: "<nil>", code: jsonrpc.CodeInvalidParams},
		},
		{
			name: "replaces result",
			post: func(*jsonrpc.Call, json.RawMessage, *jsonrpc.Error) error { return jsonrpc.NewError(-32003, "post") },
			req:  call("subtract", "[42,23]", "1"), want: wantErrorMessage(-32003, "post", "1"),
			seen: seen{calls: 1, result: "19"},
		},
		{
			name: "replaces error",
			post: func(*jsonrpc.Call, json.RawMessage, *jsonrpc.Error) error { return errors.New("post plain") },
			req:  call("foo.bar", "", "1"), want: wantErrorMessage(jsonrpc.CodeServerError, "post plain", "1"),
			seen: seen{calls: 1, result: "<nil>", code: jsonrpc.CodeServerError}, method: "foo.bar",
		},
		{
			name: "SetError replaces result",
			post: func(c *jsonrpc.Call, _ json.RawMessage, _ *jsonrpc.Error) error {
				c.SetError(jsonrpc.NewError(-32004, "post set"))
				return nil
			},
			req: call("subtract", "[42,23]", "1"), want: wantErrorMessage(-32004, "post set", "1"),
			seen: seen{calls: 1, result: "19"},
		},
		{
			name: "panics",
			post: func(*jsonrpc.Call, json.RawMessage, *jsonrpc.Error) error { panic("post") },
			req:  call("subtract", "[42,23]", "1"), want: wantError(jsonrpc.CodeInternalError, "1"),
			seen: seen{calls: 1, result: "19"},
		},
		{
			name: "runs for notifications",
			post: func(*jsonrpc.Call, json.RawMessage, *jsonrpc.Error) error { return errors.New("unseen") },
			req:  call("subtract", "[42,23]", ""), want: "",
			seen: seen{calls: 1, result: "19"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var got seen
			srv := demo.NewServer(jsonrpc.ErrorDetails(), jsonrpc.OnPostProcess(func(_ context.Context, c *jsonrpc.Call, result json.RawMessage, e *jsonrpc.Error) error {
				got.calls++
				got.result = "<nil>"
				if result != nil {
					got.result = string(result)
				}
				if e != nil {
					got.code = e.Code
				}
				return tt.post(c, result, e)
			}))
			if tt.method != "" {
				if err := srv.Register(tt.method, func() error { return errors.New("method failed") }); err != nil {
					t.Fatal(err)
				}
			}
			checkCase(t, srv, rpcCase{name: tt.name, req: tt.req, want: tt.want, data: tt.data})
			if got != tt.seen {
				t.Errorf("post hook saw %+v, want %+v", got, tt.seen)
			}
		})
	}
}

func TestOnError(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		method    string
		params    string
		hook      func(t *testing.T, cause error, e *jsonrpc.Error) *jsonrpc.Error
		want      string
		data      string
		notCalled bool
	}{
		{
			name: "rewrites plain error", method: "failPlain",
			hook: func(t *testing.T, cause error, e *jsonrpc.Error) *jsonrpc.Error {
				if cause.Error() != "plain failure" || e.Code != jsonrpc.CodeServerError {
					t.Errorf("OnError(%v, %+v), want the method's error and -32000", cause, e)
				}
				return jsonrpc.NewError(-32050, "rewritten: "+cause.Error())
			},
			want: wantErrorMessage(-32050, "rewritten: plain failure", "1"),
		},
		{
			name: "rewrites panic", method: "panic",
			hook: func(t *testing.T, cause error, e *jsonrpc.Error) *jsonrpc.Error {
				var pe *jsonrpc.PanicError
				if !errors.As(cause, &pe) {
					t.Errorf("OnError cause is %T, want *jsonrpc.PanicError", cause)
					return nil
				}
				if pe.Value != "kaboom" || len(pe.Stack) == 0 || e.Code != jsonrpc.CodeInternalError {
					t.Errorf("OnError(PanicError{Value: %v, %d bytes of stack}, %+v), want kaboom, a stack and -32603", pe.Value, len(pe.Stack), e)
				}
				return jsonrpc.NewError(-32051, fmt.Sprint("panic: ", pe.Value))
			},
			want: wantErrorMessage(-32051, "panic: kaboom", "1"),
		},
		{
			name: "sees *Error", method: "fail",
			hook: func(t *testing.T, cause error, e *jsonrpc.Error) *jsonrpc.Error {
				var je *jsonrpc.Error
				if !errors.As(cause, &je) || je.Code != -32001 || e.Code != -32001 || jsonrpc.ErrorCode(cause) != -32001 {
					t.Errorf("OnError(%v, %+v), want the wrapped -32001", cause, e)
				}
				return nil
			},
			want: `{"jsonrpc":"2.0","error":{"code":-32001,"message":"custom failure","data":{"retry":true}},"id":1}`,
		},
		{
			name: "nil keeps param error", method: "subtract", params: `["x",1]`,
			hook: func(t *testing.T, cause error, e *jsonrpc.Error) *jsonrpc.Error {
				if e.Code != jsonrpc.CodeInvalidParams || jsonrpc.ErrorCode(cause) != jsonrpc.CodeInvalidParams {
					t.Errorf("OnError(%v, %+v), want -32602", cause, e)
				}
				return nil
			},
			want: invalidParams, data: "minuend",
		},
		{
			name: "rewrites with data", method: "nan",
			hook: func(t *testing.T, cause error, e *jsonrpc.Error) *jsonrpc.Error {
				return e.WithData(map[string]string{"why": "NaN"})
			},
			want: `{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error","data":{"why":"NaN"}},"id":1}`,
		},
		{
			name: "not called on success", method: "subtract", params: "[42,23]", notCalled: true,
			hook: func(t *testing.T, cause error, e *jsonrpc.Error) *jsonrpc.Error {
				t.Errorf("OnError called for a successful call with %v", cause)
				return nil
			},
			want: wantResult("19", "1"),
		},
		{
			name: "not called for unknown method", method: "foobar", notCalled: true,
			hook: func(t *testing.T, cause error, e *jsonrpc.Error) *jsonrpc.Error {
				t.Errorf("OnError called for an unknown method with %v", cause)
				return nil
			},
			want: notFound,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			called := 0
			rs := newRuleServer(t, jsonrpc.OnError(func(ctx context.Context, c *jsonrpc.Call, cause error, e *jsonrpc.Error) *jsonrpc.Error {
				called++
				if jsonrpc.CallOf(ctx) != c || c.Method() != tt.method {
					t.Errorf("OnError got call of %q, want %q", c.Method(), tt.method)
				}
				return tt.hook(t, cause, e)
			}))
			checkCase(t, rs.Server, rpcCase{name: tt.name, req: call(tt.method, tt.params, "1"), want: tt.want, data: tt.data})
			want := 1
			if tt.notCalled {
				want = 0
			}
			if called != want {
				t.Errorf("OnError called %d times, want %d", called, want)
			}
		})
	}
}

func TestOnParseError(t *testing.T) {
	t.Parallel()
	t.Run("rewrites", func(t *testing.T) {
		t.Parallel()
		for _, req := range []string{"", " ", "{", "\ufeff{}", "{}x", nested(jsonrpc.DefaultMaxDepth + 1), "[\"\xff\"]"} {
			called := 0
			srv := demo.NewServer(jsonrpc.OnParseError(func(got []byte, cause error, e *jsonrpc.Error) *jsonrpc.Error {
				called++
				if string(got) != req {
					t.Errorf("OnParseError got request %q, want %q", got, req)
				}
				if cause == nil || cause.Error() == "" {
					t.Errorf("OnParseError for %q got cause %v, want a syntax error", req, cause)
				}
				if e.Code != jsonrpc.CodeParseError {
					t.Errorf("OnParseError for %q got %+v, want -32700", req, e)
				}
				return e.WithData("custom")
			}))
			got := srv.Process(context.Background(), nil, []byte(req))
			want := `{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error","data":"custom"},"id":null}`
			testutil.CheckAnswer(t, "rewrites", req, got, want)
			if called != 1 {
				t.Errorf("request %q: OnParseError called %d times, want 1", req, called)
			}
		}
	})
	t.Run("nil keeps default", func(t *testing.T) {
		t.Parallel()
		srv := demo.NewServer(jsonrpc.OnParseError(func([]byte, error, *jsonrpc.Error) *jsonrpc.Error { return nil }))
		checkCase(t, srv, rpcCase{name: "nil", req: "{", want: parseError})
	})
	t.Run("not called for valid JSON", func(t *testing.T) {
		t.Parallel()
		srv := demo.NewServer(jsonrpc.OnParseError(func(req []byte, cause error, _ *jsonrpc.Error) *jsonrpc.Error {
			t.Errorf("OnParseError called for %q: %v", req, cause)
			return nil
		}))
		for _, c := range []rpcCase{
			{name: "call", req: call("subtract", "[42,23]", "1"), want: wantResult("19", "1")},
			{name: "invalid request", req: `{"jsonrpc":"2.0","method":1,"id":1}`, want: wantError(jsonrpc.CodeInvalidRequest, "1")},
			{name: "duplicate member", req: `{"jsonrpc":"2.0","method":"get_data","id":1,"id":1}`, want: invalidRequest},
			{name: "empty batch", req: `[]`, want: invalidRequest},
		} {
			checkCase(t, srv, c)
		}
	})
}

// callInfo is what a method learns from jsonrpc.CallOf.

// What hooks do to the values they are given cannot corrupt a response:
// a post hook that writes into the result, or changes the error object, and
// an error hook that changes the error object it is given, leave the
// response and later responses as they were.
func TestHooksCannotCorruptOutput(t *testing.T) {
	t.Parallel()
	srv := demo.NewServer(
		jsonrpc.OnPostProcess(func(_ context.Context, _ *jsonrpc.Call, result json.RawMessage, e *jsonrpc.Error) error {
			for i := range result {
				result[i] = '}'
			}
			if e != nil {
				e.Code, e.Message = 1, "changed by the post hook"
			}
			return nil
		}),
		jsonrpc.OnError(func(_ context.Context, _ *jsonrpc.Call, _ error, e *jsonrpc.Error) *jsonrpc.Error {
			e.Message += " (seen)"
			return nil // keep the mapped error
		}),
	)
	srv.MustRegister("plain", func() error { return errors.New("secret") })
	for range 3 {
		for _, c := range []rpcCase{
			{name: "result", req: call("subtract", "[42,23]", "1"), want: wantResult("19", "1")},
			{name: "unknown method", req: call("nope", "", "2"), want: wantError(jsonrpc.CodeMethodNotFound, "2")},
			{name: "plain error", req: call("plain", "", "3"), want: wantErrorMessage(jsonrpc.CodeServerError, "Server error", "3")},
			{name: "invalid params", req: call("subtract", `["x"]`, "4"), want: wantError(jsonrpc.CodeInvalidParams, "4"), data: "param"},
		} {
			checkCase(t, srv, c)
		}
	}
}
