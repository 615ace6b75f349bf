package jsonrpc_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/internal/demo"
)

func TestSessions(t *testing.T) {
	t.Parallel()
	var seen []string // sessions seen by the interceptor
	pre := jsonrpc.Intercept(func(ctx context.Context, c *jsonrpc.Call, next func(context.Context) error) error {
		seen = append(seen, c.SessionID())
		return next(ctx)
	})
	root := demo.NewServer(pre)
	sessions := &jsonrpc.Sessions{Options: []jsonrpc.Option{pre}}
	if ids := sessions.IDs(); len(ids) != 0 {
		t.Fatalf("a new set lists sessions %q", ids)
	}
	if _, ok := sessions.Lookup("a"); ok {
		t.Fatal(`Lookup("a") found a session in an empty set`)
	}
	if _, ok := sessions.Lookup("a"); ok {
		t.Fatal("Lookup created a session")
	}
	a, err := sessions.Create("a")
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := sessions.Lookup("a"); !ok || got != a {
		t.Fatalf(`Lookup("a") = %p, %v; want %p, true`, got, ok, a)
	}
	if _, err := sessions.Create("a"); !errors.Is(err, jsonrpc.ErrDuplicate) {
		t.Errorf(`second Create("a"): %v, want ErrDuplicate`, err)
	}
	if _, err := sessions.Create(""); err == nil {
		t.Error(`Create("") succeeded`)
	}
	if err := a.Register("only_a", func() string { return "a" }); err != nil {
		t.Fatal(err)
	}
	b, err := sessions.Create("b")
	if err != nil {
		t.Fatal(err)
	}
	if ids := sessions.IDs(); !slices.Equal(ids, []string{"a", "b"}) {
		t.Errorf("IDs() = %q, want [a b]", ids)
	}
	checkCase(t, a, rpcCase{name: "own method", req: call("only_a", "", "1"), want: wantResult(`"a"`, "1")})
	checkCase(t, root, rpcCase{name: "not on root", req: call("only_a", "", "1"), want: notFound("only_a")})
	checkCase(t, b, rpcCase{name: "not on b", req: call("only_a", "", "1"), want: notFound("only_a")})
	checkCase(t, a, rpcCase{name: "root methods not on a", req: call("subtract", "[42,23]", "1"), want: notFound("subtract")})
	if err := a.Register("subtract", func(a, b int) int { return b - a }); err != nil {
		t.Fatalf("registering a root method name on a session: %v", err)
	}
	checkCase(t, a, rpcCase{name: "own subtract", req: call("subtract", "[42,23]", "1"), want: wantResult("-19", "1")})
	checkCase(t, root, rpcCase{name: "root subtract", req: call("subtract", "[42,23]", "1"), want: wantResult("19", "1")})
	if want := []string{"a", "a", ""}; !slices.Equal(seen, want) {
		t.Errorf("pre hook saw sessions %q, want %q: sessions get the options of their set", seen, want)
	}

	if !sessions.Destroy("a") {
		t.Error(`Destroy("a") = false, want true`)
	}
	if sessions.Destroy("a") {
		t.Error(`second Destroy("a") = true, want false`)
	}
	if _, ok := sessions.Lookup("a"); ok {
		t.Error(`Lookup("a") found a destroyed session`)
	}
	checkCase(t, a, rpcCase{name: "a destroyed session still answers its holder", req: call("only_a", "", "1"), want: wantResult(`"a"`, "1")})
	a2, err := sessions.Create("a")
	if err != nil || a2 == a {
		t.Fatalf(`Create("a") after Destroy: %p, %v; want a new session`, a2, err)
	}
	checkCase(t, a2, rpcCase{name: "new session is empty", req: call("only_a", "", "1"), want: notFound("only_a")})
	checkCase(t, root, rpcCase{name: "root still serves", req: call("subtract", "[42,23]", "1"), want: wantResult("19", "1")})
}

// A method finds its session, and may register methods in it for later
// calls of the same session only.
func TestSessionFromMethod(t *testing.T) {
	t.Parallel()
	sessions := &jsonrpc.Sessions{}
	for _, id := range []string{"x", "y"} {
		s, err := sessions.Create(id)
		if err != nil {
			t.Fatal(err)
		}
		s.MustRegister("login", func(ctx context.Context) (string, error) {
			c := jsonrpc.CallOf(ctx)
			return c.SessionID(), c.Server().Register("secret", func() string { return "for " + c.SessionID() })
		})
	}
	x, _ := sessions.Lookup("x")
	y, _ := sessions.Lookup("y")
	checkCase(t, x, rpcCase{name: "login x", req: call("login", "", "1"), want: wantResult(`"x"`, "1")})
	checkCase(t, x, rpcCase{name: "secret x", req: call("secret", "", "2"), want: wantResult(`"for x"`, "2")})
	checkCase(t, y, rpcCase{name: "no secret in y", req: call("secret", "", "1"), want: notFound("secret")})
}

// Sessions, registration and processing may run concurrently (run with
// -race).
func TestConcurrentSessions(t *testing.T) {
	t.Parallel()
	const workers, iterations = 16, 200
	root := demo.NewServer()
	sessions := &jsonrpc.Sessions{}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range iterations {
				id := fmt.Sprint("s", (w+i)%4)
				sess, ok := sessions.Lookup(id)
				if !ok {
					var err error
					if sess, err = sessions.Create(id); errors.Is(err, jsonrpc.ErrDuplicate) {
						sess, ok = sessions.Lookup(id)
					}
					if sess == nil {
						continue // destroyed again in between
					}
				}
				name := fmt.Sprintf("m%d_%d", w, i)
				if err := sess.Register(name, func(x int) int { return x + w }); err != nil {
					t.Errorf("worker %d: Register(%q): %v", w, name, err)
					return
				}
				req := call(name, fmt.Sprintf("[%d]", i), fmt.Sprint(i))
				if code, res := outcome(sess.ProcessString(context.Background(), req)); code != 0 || res != fmt.Sprint(i+w) {
					t.Errorf("worker %d: session %s answered %s with code %d, result %s; want result %d", w, id, req, code, res, i+w)
					return
				}
				if code, _ := outcome(root.ProcessString(context.Background(), req)); code != jsonrpc.CodeMethodNotFound {
					t.Errorf("worker %d: root answered %s with code %d, want -32601", w, req, code)
				}
				if code, res := outcome(root.ProcessString(context.Background(), demo.Batch)); code != 0 || !strings.HasPrefix(res, "[") || strings.Contains(res, `"error"`) {
					t.Errorf("worker %d: demo batch answered with code %d, result %s", w, code, res)
				}
				if !sess.Unregister(name) {
					t.Errorf("worker %d: Unregister(%q) = false", w, name)
				}
				sessions.IDs()
				if i%50 == 49 {
					sessions.Destroy(id)
				}
			}
		})
	}
	wg.Wait()
}
