package jsonrpc_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/jsonrpc-go/jsonrpc"
)

type ctxMark struct{}

// An interceptor's context reaches the method and the interceptors inside
// it, with the Call still in it, and next reports each call's outcome.
func TestIntercept(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var seen []string // what the interceptor, the hooks and the method saw
	note := func(f string, args ...any) {
		mu.Lock()
		seen = append(seen, fmt.Sprintf(f, args...))
		mu.Unlock()
	}
	srv := jsonrpc.NewServer(
		jsonrpc.Intercept(func(ctx context.Context, c *jsonrpc.Call, next func(context.Context) error) error {
			err := next(context.WithValue(ctx, ctxMark{}, "marked "+c.Method()))
			note("intercept %s %d", c.Method(), jsonrpc.ErrorCode(err))
			return nil // answer as next did
		}),
		jsonrpc.Intercept(func(ctx context.Context, c *jsonrpc.Call, next func(context.Context) error) error {
			note("pre %v", ctx.Value(ctxMark{}))
			return next(ctx)
		}),
	)
	srv.MustRegister("mark", func(ctx context.Context) (string, error) {
		if jsonrpc.CallOf(ctx) == nil {
			return "", errors.New("no Call in the context")
		}
		s, _ := ctx.Value(ctxMark{}).(string)
		return s, nil
	})
	srv.MustRegister("fail", func() error { return jsonrpc.NewError(7, "seven") })
	srv.MustRegister("slow", func(ctx context.Context) string { s, _ := ctx.Value(ctxMark{}).(string); return s }, jsonrpc.Blocking())

	for _, c := range []struct{ req, want string }{
		{`{"jsonrpc":"2.0","method":"mark","id":1}`, `{"jsonrpc":"2.0","result":"marked mark","id":1}`},
		{`{"jsonrpc":"2.0","method":"fail","id":2}`, `{"jsonrpc":"2.0","error":{"code":7,"message":"seven"},"id":2}`},
		{`{"jsonrpc":"2.0","method":"mark"}`, ``},
	} {
		if got := srv.ProcessString(context.Background(), c.req); got != c.want {
			t.Errorf("%s: got %s, want %s", c.req, got, c.want)
		}
	}
	done := make(chan string, 1)
	srv.ProcessAsync(context.Background(), nil, []byte(`[{"jsonrpc":"2.0","method":"slow","id":3},{"jsonrpc":"2.0","method":"mark","id":4}]`), func(b []byte) { done <- string(b) })
	if got, want := <-done, `[{"jsonrpc":"2.0","result":"marked mark","id":4},{"jsonrpc":"2.0","result":"marked slow","id":3}]`; got != want {
		t.Errorf("batch: got %s, want %s", got, want)
	}
	mu.Lock()
	defer mu.Unlock()
	got := strings.Join(seen, "; ")
	for _, want := range []string{
		"pre marked mark; intercept mark 0; pre marked fail; intercept fail 7; pre marked mark; intercept mark 0",
		"intercept slow 0",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("seen: %s\nwant it to contain %s", got, want)
		}
	}
}

// An interceptor that neither calls next nor returns an error, or panics
// before it calls next, leaves the method unrun and the call answered with
// an internal error; a panic after next keeps the outcome; a second call of
// next does not run the method again; a context that is not the call's is
// refused.
func TestInterceptMisuse(t *testing.T) {
	t.Parallel()
	type next = func(context.Context) error
	cases := []struct {
		name string
		f    func(ctx context.Context, next next) error
		want string
		runs int64
	}{
		{"no next", func(context.Context, next) error { return nil }, `"code":-32603,"message":"Internal error","data":"the call's interceptor did not run it"`, 0},
		{"panic before next", func(context.Context, next) error { panic("before") }, `"code":-32603`, 0},
		{"panic after next", func(ctx context.Context, next next) error { next(ctx); panic("after") }, `"result":7`, 1},
		{"next twice", func(ctx context.Context, next next) error { next(ctx); return next(ctx) }, `"result":7`, 1},
		{"foreign context", func(_ context.Context, next next) error { return next(context.Background()) }, `"code":-32603,"message":"Internal error","data":"the call's interceptor passed next a context that is not the call's"`, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := jsonrpc.NewServer(jsonrpc.Intercept(func(ctx context.Context, _ *jsonrpc.Call, next func(context.Context) error) error {
				return c.f(ctx, next)
			}))
			n := target(t, srv)
			got := srv.ProcessString(context.Background(), `{"jsonrpc":"2.0","method":"target","id":1}`)
			if !strings.Contains(got, c.want) || n.Load() != c.runs {
				t.Errorf("got %s with %d runs, want %s with %d", got, n.Load(), c.want, c.runs)
			}
		})
	}
}

// Interceptors nest, the first given outermost; an inner one that does not
// call next stops the call there; what an inner one returns is what the
// outer one's next returns; a panic of an inner one before its next is the
// outer one's error.
func TestInterceptNesting(t *testing.T) {
	t.Parallel()
	var order []string
	layer := func(name string, callNext bool) jsonrpc.Option {
		return jsonrpc.Intercept(func(ctx context.Context, _ *jsonrpc.Call, next func(context.Context) error) error {
			order = append(order, name+" in")
			var err error
			if callNext {
				err = next(ctx)
			}
			order = append(order, name+" out")
			return err
		})
	}
	srv := jsonrpc.NewServer(layer("a", true), layer("b", true))
	n := target(t, srv)
	if got := srv.ProcessString(context.Background(), `{"jsonrpc":"2.0","method":"target","id":1}`); got != `{"jsonrpc":"2.0","result":7,"id":1}` {
		t.Errorf("got %s", got)
	}
	if got, want := strings.Join(order, ", "), "a in, b in, b out, a out"; got != want || n.Load() != 1 {
		t.Errorf("order %s with %d runs, want %s with 1", got, n.Load(), want)
	}

	order = nil
	srv = jsonrpc.NewServer(layer("a", true), layer("b", false))
	n = target(t, srv)
	if got := srv.ProcessString(context.Background(), `{"jsonrpc":"2.0","method":"target","id":1}`); !strings.Contains(got, `"code":-32603`) || n.Load() != 0 {
		t.Errorf("inner interceptor without next: got %s with %d runs", got, n.Load())
	}

	// The inner one rewrites, or panics; the outer one sees it.
	var outer []string
	watch := jsonrpc.Intercept(func(ctx context.Context, _ *jsonrpc.Call, next func(context.Context) error) error {
		err := next(ctx)
		outer = append(outer, fmt.Sprintf("%d %T", jsonrpc.ErrorCode(err), err))
		return nil
	})
	rewrite := jsonrpc.Intercept(func(ctx context.Context, _ *jsonrpc.Call, next func(context.Context) error) error {
		if next(ctx) == nil {
			return jsonrpc.NewError(-32099, "rewritten")
		}
		return nil
	})
	crash := jsonrpc.Intercept(func(context.Context, *jsonrpc.Call, func(context.Context) error) error { panic("inner") })
	for _, tc := range []struct {
		inner jsonrpc.Option
		want  string
		seen  string
	}{
		{rewrite, `{"jsonrpc":"2.0","error":{"code":-32099,"message":"rewritten"},"id":1}`, "-32099 *jsonrpc.Error"},
		{crash, `{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error"},"id":1}`, "-32603 *jsonrpc.PanicError"},
	} {
		outer = nil
		srv = jsonrpc.NewServer(watch, tc.inner)
		target(t, srv)
		if got := srv.ProcessString(context.Background(), `{"jsonrpc":"2.0","method":"target","id":1}`); got != tc.want || fmt.Sprint(outer) != "["+tc.seen+"]" {
			t.Errorf("got %s, the outer interceptor saw %v; want %s, and %s", got, outer, tc.want, tc.seen)
		}
	}
}

// ExampleIntercept hands the method a context of the interceptor's, and
// reports each call's outcome.
func ExampleIntercept() {
	type requestTag struct{}
	srv := jsonrpc.NewServer(jsonrpc.Intercept(func(ctx context.Context, c *jsonrpc.Call, next func(context.Context) error) error {
		err := next(context.WithValue(ctx, requestTag{}, "tag-1"))
		if err != nil {
			fmt.Printf("%s failed: %d\n", c.Method(), jsonrpc.ErrorCode(err))
			return err
		}
		fmt.Printf("%s succeeded: %s\n", c.Method(), c.Result())
		return nil
	}))
	srv.MustRegister("tag", func(ctx context.Context) string { return ctx.Value(requestTag{}).(string) })
	fmt.Println(srv.ProcessString(context.Background(), `{"jsonrpc":"2.0","method":"tag","id":1}`))
	fmt.Println(srv.ProcessString(context.Background(), `{"jsonrpc":"2.0","method":"tag","params":[1],"id":2}`))
	// Output:
	// tag succeeded: "tag-1"
	// {"jsonrpc":"2.0","result":"tag-1","id":1}
	// tag failed: -32602
	// {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":"too many params: want at most 0"},"id":2}
}
