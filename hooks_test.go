package jsonrpc_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/internal/demo"
	"github.com/jsonrpc-go/jsonrpc/internal/testutil"
)

// A panicking parse error hook leaves the error it was given in place, and
// the server keeps serving.
func TestParseErrorHookPanics(t *testing.T) {
	srv := jsonrpc.NewServer(jsonrpc.OnParseError(func([]byte, error, *jsonrpc.Error) *jsonrpc.Error { panic("hook") }))
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

// Call.Result cannot grow into the caller's buffer: what an interceptor
// appends to it goes to an array of its own.
func TestInterceptResultCapped(t *testing.T) {
	var kept []byte
	srv := jsonrpc.NewServer(jsonrpc.Intercept(func(ctx context.Context, c *jsonrpc.Call, next func(context.Context) error) error {
		err := next(ctx)
		kept = append(c.Result(), '\n')
		return err
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

// An interceptor that returns before next refuses the call: the method does
// not run, and the call answers with the interceptor's error.
func TestInterceptBefore(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		before func(context.Context, *jsonrpc.Call) error // nil: call next
		req    string
		want   string
		ran    int64
	}{
		{
			name: "allows",
			req:  call("target", "", "1"), want: wantResult("7", "1"), ran: 1,
		},
		{
			name:   "refuses with *Error",
			before: func(context.Context, *jsonrpc.Call) error { return jsonrpc.NewError(-32001, "denied") },
			req:    call("target", "", "1"), want: wantErrorMessage(-32001, "denied", "1"),
		},
		{
			name:   "refuses with plain error",
			before: func(context.Context, *jsonrpc.Call) error { return errors.New("nope") },
			req:    call("target", "", "1"), want: wantErrorMessage(jsonrpc.CodeServerError, "nope", "1"),
		},
		{
			name: "refuses with SetError",
			before: func(_ context.Context, c *jsonrpc.Call) error {
				c.SetError(jsonrpc.NewError(-32002, "set"))
				return nil // next runs, and returns the pending error without running the method
			},
			req: call("target", "", "1"), want: wantErrorMessage(-32002, "set", "1"),
		},
		{
			name: "SetError nil allows",
			before: func(_ context.Context, c *jsonrpc.Call) error {
				c.SetError(errors.New("x"))
				c.SetError(nil)
				return nil
			},
			req: call("target", "", "1"), want: wantResult("7", "1"), ran: 1,
		},
		{
			name:   "panics",
			before: func(context.Context, *jsonrpc.Call) error { panic("before") },
			req:    call("target", "", "1"), want: wantError(jsonrpc.CodeInternalError, "1"),
		},
		{
			name:   "refuses notification",
			before: func(context.Context, *jsonrpc.Call) error { return errors.New("nope") },
			req:    call("target", "", ""), want: "",
		},
		{
			name: "sees call",
			before: func(ctx context.Context, c *jsonrpc.Call) error {
				if jsonrpc.CallOf(ctx) != c || c.Method() != "target" || string(c.ID()) != `"x"` || string(c.Params()) != "[]" || c.Result() != nil {
					return errors.New("wrong call")
				}
				return nil
			},
			req: call("target", "[]", `"x"`), want: wantResult("7", `"x"`), ran: 1,
		},
		{
			name:   "not run for unknown method",
			before: func(context.Context, *jsonrpc.Call) error { panic("must not run") },
			req:    call("foobar", "", "1"), want: notFound("foobar"),
		},
		{
			name:   "not run for invalid request",
			before: func(context.Context, *jsonrpc.Call) error { panic("must not run") },
			req:    `{"jsonrpc":"2.0","method":"target","params":1,"id":1}`, want: wantError(jsonrpc.CodeInvalidRequest, "1"),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := jsonrpc.NewServer(jsonrpc.ErrorDetails(), jsonrpc.Intercept(func(ctx context.Context, c *jsonrpc.Call, next func(context.Context) error) error {
				if tt.before != nil {
					if err := tt.before(ctx, c); err != nil {
						return err
					}
				}
				return next(ctx)
			}))
			ran := target(t, srv)
			checkCase(t, srv, rpcCase{name: tt.name, req: tt.req, want: tt.want})
			if got := ran.Load(); got != tt.ran {
				t.Errorf("method ran %d times, want %d", got, tt.ran)
			}
		})
	}
}

// An interceptor sees each call's outcome after next (its result with
// Call.Result, its error with ErrorCode), and what it returns replaces it;
// nil keeps it.
func TestInterceptAfter(t *testing.T) {
	t.Parallel()
	type seen struct {
		calls  int
		result string // nil as "<nil>"
		code   jsonrpc.Code
	}
	tests := []struct {
		name   string
		after  func(*jsonrpc.Call, error) error
		req    string
		want   string
		data   string
		seen   seen
		method string
	}{
		{
			name:  "sees result",
			after: func(*jsonrpc.Call, error) error { return nil },
			req:   call("subtract", "[42,23]", "1"), want: wantResult("19", "1"),
			seen: seen{calls: 1, result: "19"},
		},
		{
			name:  "sees structured result",
			after: func(*jsonrpc.Call, error) error { return nil },
			req:   call("get_data", "", "1"), want: wantResult(`["hello",5]`, "1"),
			seen: seen{calls: 1, result: `["hello",5]`},
		},
		{
			name:  "sees error",
			after: func(*jsonrpc.Call, error) error { return nil },
			req:   call("subtract", `["x",1]`, "1"), want: invalidParams, data: "minuend",
			seen: seen{calls: 1, result: "<nil>", code: jsonrpc.CodeInvalidParams},
		},
		{
			name:  "returns next's error",
			after: func(_ *jsonrpc.Call, err error) error { return err },
			req:   call("subtract", `["x",1]`, "1"), want: invalidParams, data: "minuend",
			seen: seen{calls: 1, result: "<nil>", code: jsonrpc.CodeInvalidParams},
		},
		{
			name:  "replaces result",
			after: func(*jsonrpc.Call, error) error { return jsonrpc.NewError(-32003, "after") },
			req:   call("subtract", "[42,23]", "1"), want: wantErrorMessage(-32003, "after", "1"),
			seen: seen{calls: 1, result: "19"},
		},
		{
			name:  "replaces error",
			after: func(*jsonrpc.Call, error) error { return errors.New("after plain") },
			req:   call("foo.bar", "", "1"), want: wantErrorMessage(jsonrpc.CodeServerError, "after plain", "1"),
			seen: seen{calls: 1, result: "<nil>", code: jsonrpc.CodeServerError}, method: "foo.bar",
		},
		{
			name: "SetError replaces result",
			after: func(c *jsonrpc.Call, _ error) error {
				c.SetError(jsonrpc.NewError(-32004, "after set"))
				return nil
			},
			req: call("subtract", "[42,23]", "1"), want: wantErrorMessage(-32004, "after set", "1"),
			seen: seen{calls: 1, result: "19"},
		},
		{
			name:  "panics, and the outcome stays",
			after: func(*jsonrpc.Call, error) error { panic("after") },
			req:   call("subtract", "[42,23]", "1"), want: wantResult("19", "1"),
			seen: seen{calls: 1, result: "19"},
		},
		{
			name:  "runs for notifications",
			after: func(*jsonrpc.Call, error) error { return errors.New("unseen") },
			req:   call("subtract", "[42,23]", ""), want: "",
			seen: seen{calls: 1, result: "19"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var got seen
			srv := demo.NewServer(jsonrpc.ErrorDetails(), jsonrpc.Intercept(func(ctx context.Context, c *jsonrpc.Call, next func(context.Context) error) error {
				err := next(ctx)
				got.calls++
				got.result = "<nil>"
				if r := c.Result(); r != nil {
					got.result = string(r)
				}
				got.code = jsonrpc.ErrorCode(err)
				return tt.after(c, err)
			}))
			if tt.method != "" {
				if err := srv.Register(tt.method, func() error { return errors.New("method failed") }); err != nil {
					t.Fatal(err)
				}
			}
			checkCase(t, srv, rpcCase{name: tt.name, req: tt.req, want: tt.want, data: tt.data})
			if got != tt.seen {
				t.Errorf("the interceptor saw %+v, want %+v", got, tt.seen)
			}
		})
	}
}

// The error next returns is the Go error the call failed with (a
// *PanicError for a panic), and an interceptor may answer with an error
// object of its own instead.
func TestInterceptErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		method  string
		params  string
		rewrite func(t *testing.T, err error) error
		want    string
		data    string
	}{
		{
			name: "rewrites plain error", method: "failPlain",
			rewrite: func(t *testing.T, err error) error {
				if err.Error() != "plain failure" || jsonrpc.ErrorCode(err) != jsonrpc.CodeServerError {
					t.Errorf("next returned %v, want the method's error and -32000", err)
				}
				return jsonrpc.NewError(-32050, "rewritten: "+err.Error())
			},
			want: wantErrorMessage(-32050, "rewritten: plain failure", "1"),
		},
		{
			name: "rewrites panic", method: "panic",
			rewrite: func(t *testing.T, err error) error {
				pe, ok := errors.AsType[*jsonrpc.PanicError](err)
				if !ok {
					t.Errorf("next returned %T, want *jsonrpc.PanicError", err)
					return err
				}
				if pe.Value != "kaboom" || len(pe.Stack) == 0 || jsonrpc.ErrorCode(err) != jsonrpc.CodeInternalError {
					t.Errorf("next returned PanicError{Value: %v, %d bytes of stack}, want kaboom, a stack and -32603", pe.Value, len(pe.Stack))
				}
				return jsonrpc.NewError(-32051, fmt.Sprint("panic: ", pe.Value))
			},
			want: wantErrorMessage(-32051, "panic: kaboom", "1"),
		},
		{
			name: "sees *Error", method: "fail",
			rewrite: func(t *testing.T, err error) error {
				je, ok := errors.AsType[*jsonrpc.Error](err)
				if !ok || je.Code != -32001 || jsonrpc.ErrorCode(err) != -32001 {
					t.Errorf("next returned %v, want the wrapped -32001", err)
				}
				return nil
			},
			want: `{"jsonrpc":"2.0","error":{"code":-32001,"message":"custom failure","data":{"retry":true}},"id":1}`,
		},
		{
			name: "nil keeps param error", method: "subtract", params: `["x",1]`,
			rewrite: func(t *testing.T, err error) error {
				if jsonrpc.ErrorCode(err) != jsonrpc.CodeInvalidParams {
					t.Errorf("next returned %v, want -32602", err)
				}
				return nil
			},
			want: invalidParams, data: "minuend",
		},
		{
			name: "rewrites with data", method: "nan",
			rewrite: func(t *testing.T, err error) error {
				return jsonrpc.ErrInternal.WithData(map[string]string{"why": "NaN"})
			},
			want: `{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error","data":{"why":"NaN"}},"id":1}`,
		},
		{
			name: "nil on success", method: "subtract", params: "[42,23]",
			want: wantResult("19", "1"),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			called := 0
			rs := newRuleServer(t, jsonrpc.Intercept(func(ctx context.Context, c *jsonrpc.Call, next func(context.Context) error) error {
				called++
				if jsonrpc.CallOf(ctx) != c || c.Method() != tt.method {
					t.Errorf("interceptor got the call of %q, want %q", c.Method(), tt.method)
				}
				err := next(ctx)
				if err == nil {
					if tt.rewrite != nil {
						t.Errorf("next returned nil, want an error")
					}
					return nil
				}
				if tt.rewrite == nil {
					t.Errorf("next returned %v, want nil", err)
					return err
				}
				return tt.rewrite(t, err)
			}))
			checkCase(t, rs.Server, rpcCase{name: tt.name, req: call(tt.method, tt.params, "1"), want: tt.want, data: tt.data})
			if called != 1 {
				t.Errorf("interceptor called %d times, want 1", called)
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
