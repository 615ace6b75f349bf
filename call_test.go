package jsonrpc_test

import (
	"context"
	"errors"
	"testing"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/internal/testutil"
	"github.com/jsonrpc-go/jsonrpc/transport"
)

type callInfo struct {
	ID, Method, Params string
	IDNil, ParamsNil   bool
	Notification       bool
	ContextValue       any
	Server             *jsonrpc.Server
	SessionID          string
	UserValue          any
}

type userKey struct{}

func TestCallOf(t *testing.T) {
	t.Parallel()
	if c := jsonrpc.CallOf(context.Background()); c != nil {
		t.Errorf("CallOf(context.Background()) = %v, want nil", c)
	}
	tests := []struct {
		name    string
		session string
		ctx     context.Context
		req     string
		want    callInfo // Server and SessionID are filled in
	}{
		{
			name: "request", session: "s1",
			ctx:  context.WithValue(transport.WithContextValue(context.Background(), "transport"), userKey{}, "user"),
			req:  `{"jsonrpc":"2.0","method":"info","params":[ 1, "two" ],"id": 12.50 }`,
			want: callInfo{ID: "12.50", Method: "info", Params: `[ 1, "two" ]`, ContextValue: "transport", UserValue: "user"},
		},
		{
			name: "escaped string id", ctx: context.Background(),
			req:  call("info", "", `"\u00e9"`),
			want: callInfo{ID: `"\u00e9"`, Method: "info", ParamsNil: true},
		},
		{
			name: "null id", ctx: transport.WithContextValue(context.Background(), 42),
			req:  call("info", "[]", "null"),
			want: callInfo{ID: "null", Method: "info", Params: "[]", ContextValue: 42},
		},
		{
			name: "notification", session: "s2", ctx: context.Background(),
			req:  call("info", `[1]`, ""),
			want: callInfo{IDNil: true, Method: "info", Params: "[1]", Notification: true},
		},
		{
			name: "escaped method name", ctx: context.Background(),
			req:  call(`inf\u006f`, "", "1"),
			want: callInfo{ID: "1", Method: "info", ParamsNil: true},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := jsonrpc.NewServer()
			if tt.session != "" {
				var err error
				if srv, err = (&jsonrpc.Sessions{}).Create(tt.session); err != nil {
					t.Fatal(err)
				}
			}
			var got callInfo
			err := srv.Register("info", func(ctx context.Context, _ ...any) bool {
				c := jsonrpc.CallOf(ctx)
				// The Call's slices alias the request: copy them.
				got = callInfo{
					ID: string(c.ID()), Method: c.Method(), Params: string(c.Params()),
					IDNil: c.ID() == nil, ParamsNil: c.Params() == nil, Notification: c.IsNotification(),
					ContextValue: c.ContextValue(), Server: c.Server(), SessionID: c.SessionID(), UserValue: ctx.Value(userKey{}),
				}
				return true
			})
			if err != nil {
				t.Fatal(err)
			}
			out := srv.Process(tt.ctx, nil, []byte(tt.req))
			if tt.want.Notification {
				testutil.CheckAnswer(t, tt.name, tt.req, out, "")
			} else {
				testutil.CheckAnswer(t, tt.name, tt.req, out, wantResult("true", tt.want.ID))
			}
			tt.want.Server, tt.want.SessionID = srv, tt.session
			if got != tt.want {
				t.Errorf("method saw %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestCallSetError(t *testing.T) {
	t.Parallel()
	srv := jsonrpc.NewServer(jsonrpc.ErrorDetails()) // which error won shows in the message
	for name, fn := range map[string]any{
		"replace": func(ctx context.Context) int {
			jsonrpc.CallOf(ctx).SetError(jsonrpc.NewError(-32010, "set by method"))
			return 42
		},
		"clear": func(ctx context.Context) int {
			c := jsonrpc.CallOf(ctx)
			err := errors.New("pending")
			c.SetError(err)
			if c.Err() != err {
				panic("Err does not report the pending error")
			}
			c.SetError(nil)
			if c.Err() != nil {
				panic("Err reports a cleared error")
			}
			return 42
		},
		"overrides returned": func(ctx context.Context) (int, error) {
			jsonrpc.CallOf(ctx).SetError(errors.New("pending wins"))
			return 0, errors.New("returned")
		},
		"from goroutine": func(ctx context.Context) int {
			c := jsonrpc.CallOf(ctx)
			done := make(chan struct{})
			go func() { c.SetError(jsonrpc.NewError(-32011, "async")); close(done) }()
			<-done
			return 1
		},
	} {
		srv.MustRegister(name, fn)
	}
	for _, c := range []rpcCase{
		{name: "replaces result", req: call("replace", "", "1"), want: wantErrorMessage(-32010, "set by method", "1")},
		{name: "notification", req: call("replace", "", ""), want: ""},
		{name: "nil clears", req: call("clear", "", "1"), want: wantResult("42", "1")},
		{name: "pending overrides returned error", req: call("overrides returned", "", "1"), want: wantErrorMessage(jsonrpc.CodeServerError, "pending wins", "1")},
		{name: "from another goroutine", req: call("from goroutine", "", "1"), want: wantErrorMessage(-32011, "async", "1")},
		{name: "does not leak to next call", req: call("clear", "", "2"), want: wantResult("42", "2")},
	} {
		checkCase(t, srv, c)
	}
}
