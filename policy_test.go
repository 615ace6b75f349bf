package jsonrpc_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
)

var (
	alice  = &jsonrpc.Principal{Subject: "alice", Scopes: []string{"files:read", "files:write"}}
	bob    = &jsonrpc.Principal{Subject: "bob", Scopes: []string{"files:read"}}
	stale  = &jsonrpc.Principal{Subject: "carol", Scopes: []string{"files:read", "files:write"}, Expiry: time.Now().Add(-time.Minute)}
	asNone = context.Background()
)

func as(p *jsonrpc.Principal) context.Context { return jsonrpc.WithPrincipal(context.Background(), p) }

const (
	unauthenticated = `{"jsonrpc":"2.0","error":{"code":-32012,"message":"Authentication required"},"id":1}`
	forbiddenWrite  = `{"jsonrpc":"2.0","error":{"code":-32013,"message":"Insufficient scope","data":{"scope":"files:read files:write"}},"id":1}`
)

func policyCall(method string) string { return `{"jsonrpc":"2.0","method":"` + method + `","id":1}` }

func allowed(result string) string { return `{"jsonrpc":"2.0","result":` + result + `,"id":1}` }

// TestRequireScopes: a method with RequireScopes runs for a Principal
// with every scope listed; without a Principal (or with an expired one)
// its call is refused with Codes.Unauthenticated, and with a Principal
// that lacks a scope with Codes.Forbidden naming the scopes; with none
// listed any Principal may call it. The method does not run when refused.
func TestRequireScopes(t *testing.T) {
	var ran atomic.Int32
	srv := jsonrpc.NewServer()
	srv.MustRegister("write", func() string { ran.Add(1); return "w" }, jsonrpc.RequireScopes("files:read", "files:write"))
	srv.MustRegister("anyone", func(ctx context.Context) string { ran.Add(1); return jsonrpc.PrincipalOf(ctx).Subject }, jsonrpc.RequireScopes())
	srv.MustRegister("open", func() string { ran.Add(1); return "o" })
	for _, tc := range []struct {
		name   string
		ctx    context.Context
		method string
		want   string
	}{
		{"anonymous", asNone, "write", unauthenticated},
		{"expired", as(stale), "write", unauthenticated},
		{"missing a scope", as(bob), "write", forbiddenWrite},
		{"every scope", as(alice), "write", allowed(`"w"`)},
		{"any Principal, none", asNone, "anyone", unauthenticated},
		{"any Principal", as(bob), "anyone", allowed(`"bob"`)},
		{"no policy, anonymous", asNone, "open", allowed(`"o"`)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := ran.Load()
			got := srv.ProcessString(tc.ctx, policyCall(tc.method))
			if got != tc.want {
				t.Errorf("%s: %s, want %s", tc.method, got, tc.want)
			}
			if refused := tc.want[len(`{"jsonrpc":"2.0","`):][0] == 'e'; refused == (ran.Load() != before) {
				t.Errorf("refused %v, yet the method ran %d times", refused, ran.Load()-before)
			}
		})
	}
}

// TestRequireAuth (issue 35): once the server requires authentication, a
// method registered without a policy is refused to an anonymous caller,
// a method declared Public is not, and RequireScopes still decides its
// own; Public and RequireScopes replace one another, the later winning.
func TestRequireAuth(t *testing.T) {
	srv := jsonrpc.NewServer(jsonrpc.RequireAuth())
	srv.MustRegister("plain", func() string { return "p" })
	srv.MustRegister("health", func() string { return "h" }, jsonrpc.Public())
	srv.MustRegister("write", func() string { return "w" }, jsonrpc.RequireScopes("files:read", "files:write"))
	srv.MustRegister("publicAfterScopes", func() string { return "x" }, jsonrpc.RequireScopes("files:write"), jsonrpc.Public())
	srv.MustRegister("scopesAfterPublic", func() string { return "y" }, jsonrpc.Public(), jsonrpc.RequireScopes("files:read", "files:write"))
	for _, tc := range []struct {
		ctx          context.Context
		method, want string
	}{
		{asNone, "plain", unauthenticated},
		{as(stale), "plain", unauthenticated},
		{as(bob), "plain", allowed(`"p"`)},
		{asNone, "health", allowed(`"h"`)},
		{as(bob), "write", forbiddenWrite},
		{asNone, "publicAfterScopes", allowed(`"x"`)},
		{as(bob), "scopesAfterPublic", forbiddenWrite},
		{as(alice), "scopesAfterPublic", allowed(`"y"`)},
	} {
		if got := srv.ProcessString(tc.ctx, policyCall(tc.method)); got != tc.want {
			t.Errorf("%s as %v: %s, want %s", tc.method, jsonrpc.PrincipalOf(tc.ctx), got, tc.want)
		}
	}
	// A method of no policy unknown by name is still "Method not
	// found": the check runs for a method that would run.
	if got := srv.ProcessString(asNone, policyCall("nope")); got != `{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found","data":"nope"},"id":1}` {
		t.Errorf("unknown method: %s", got)
	}

	// The services' methods, and the sessions made with the option.
	if err := srv.RegisterService("svc", &fileService{}, jsonrpc.ForMethod("Stat", jsonrpc.Public()), jsonrpc.ForMethod("Remove", jsonrpc.RequireScopes("files:write"))); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		ctx          context.Context
		method, want string
	}{
		{asNone, "svc.stat", allowed(`"stat"`)},
		{asNone, "svc.read", unauthenticated},
		{as(bob), "svc.read", allowed(`"read"`)},
		{as(bob), "svc.remove", `{"jsonrpc":"2.0","error":{"code":-32013,"message":"Insufficient scope","data":{"scope":"files:write"}},"id":1}`},
	} {
		if got := srv.ProcessString(tc.ctx, policyCall(tc.method)); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.method, got, tc.want)
		}
	}
	sessions := &jsonrpc.Sessions{Options: []jsonrpc.Option{jsonrpc.RequireAuth()}}
	s, err := sessions.Create("s1")
	if err != nil {
		t.Fatal(err)
	}
	s.MustRegister("plain", func() string { return "p" })
	if got := s.ProcessString(asNone, policyCall("plain")); got != unauthenticated {
		t.Errorf("a session's method without a policy: %s", got)
	}
}

type fileService struct{}

func (*fileService) Stat() string   { return "stat" }
func (*fileService) Read() string   { return "read" }
func (*fileService) Remove() string { return "remove" }

// TestPolicyBatchAndNotifications: a batch refuses element by element,
// answering the others; a refused notification is not run, and answered
// with nothing; the calls of Blocking methods are refused on the goroutine
// they would run on, through ProcessAsync.
func TestPolicyBatchAndNotifications(t *testing.T) {
	var ran atomic.Int32
	srv := jsonrpc.NewServer(jsonrpc.RequireAuth())
	srv.MustRegister("plain", func() string { ran.Add(1); return "p" })
	srv.MustRegister("health", func() string { return "h" }, jsonrpc.Public())
	srv.MustRegister("slow", func(ctx context.Context) string { ran.Add(1); return "s" }, jsonrpc.Blocking(), jsonrpc.RequireScopes("files:write"))
	batch := `[{"jsonrpc":"2.0","method":"plain","id":1},{"jsonrpc":"2.0","method":"health","id":2},{"jsonrpc":"2.0","method":"plain"},{"jsonrpc":"2.0","method":"slow","id":3}]`
	want := `[{"jsonrpc":"2.0","error":{"code":-32012,"message":"Authentication required"},"id":1},{"jsonrpc":"2.0","result":"h","id":2},{"jsonrpc":"2.0","error":{"code":-32012,"message":"Authentication required"},"id":3}]`
	if got := srv.ProcessString(asNone, batch); got != want {
		t.Errorf("batch: %s\nwant %s", got, want)
	}
	done := make(chan string, 1)
	srv.ProcessAsync(as(bob), nil, []byte(batch), func(resp []byte) { done <- string(resp) })
	want = `[{"jsonrpc":"2.0","result":"p","id":1},{"jsonrpc":"2.0","result":"h","id":2},{"jsonrpc":"2.0","error":{"code":-32013,"message":"Insufficient scope","data":{"scope":"files:write"}},"id":3}]`
	if got := <-done; got != want {
		t.Errorf("batch as bob: %s\nwant %s", got, want)
	}
	if n := ran.Load(); n != 2 {
		t.Errorf("the methods ran %d times, want 2 (bob's plain and its notification)", n)
	}
	ran.Store(0)
	if got := srv.ProcessString(asNone, `{"jsonrpc":"2.0","method":"plain"}`); got != "" || ran.Load() != 0 {
		t.Errorf("a refused notification: answered %q, ran %d times", got, ran.Load())
	}
}

// TestPolicyCodes: the refusals are in the codes of the call: the
// server's own (UseCodes), or those of its connection's protocol
// (WithCodes).
func TestPolicyCodes(t *testing.T) {
	srv := jsonrpc.NewServer(jsonrpc.UseCodes(jsonrpc.Codes{Unauthenticated: -31011, Forbidden: -31012}))
	srv.MustRegister("write", func() string { return "w" }, jsonrpc.RequireScopes("files:write"))
	if got, want := srv.ProcessString(asNone, policyCall("write")), `{"jsonrpc":"2.0","error":{"code":-31011,"message":"Authentication required"},"id":1}`; got != want {
		t.Errorf("UseCodes, anonymous: %s", got)
	}
	ctx := jsonrpc.WithCodes(as(bob), jsonrpc.Codes{Forbidden: -32000})
	if got, want := srv.ProcessString(ctx, policyCall("write")), `{"jsonrpc":"2.0","error":{"code":-32000,"message":"Insufficient scope","data":{"scope":"files:write"}},"id":1}`; got != want {
		t.Errorf("WithCodes, bob: %s", got)
	}
	if c := (jsonrpc.Codes{}).WithDefaults(); c.Unauthenticated != jsonrpc.CodeUnauthenticated || c.Forbidden != jsonrpc.CodeForbidden {
		t.Errorf("defaults: %+v", c)
	}
}

// TestPolicyAfterInterceptors: the check runs where the method would,
// after the interceptors: an interceptor that maps who is calling to
// another Principal decides what the check sees, and every interceptor
// sees a refusal as next's error.
func TestPolicyAfterInterceptors(t *testing.T) {
	var seen atomic.Int64
	srv := jsonrpc.NewServer(jsonrpc.Intercept(func(ctx context.Context, c *jsonrpc.Call, next func(context.Context) error) error {
		if p := jsonrpc.PrincipalOf(ctx); p != nil && p.Subject == "cert:ops" {
			ctx = jsonrpc.WithPrincipal(ctx, &jsonrpc.Principal{Subject: p.Subject, Scopes: []string{"files:write"}})
		}
		err := next(ctx)
		seen.Store(int64(jsonrpc.ErrorCode(err)))
		return err
	}))
	srv.MustRegister("write", func() string { return "w" }, jsonrpc.RequireScopes("files:write"))
	if got := srv.ProcessString(as(&jsonrpc.Principal{Subject: "cert:ops"}), policyCall("write")); got != allowed(`"w"`) {
		t.Errorf("a Principal the interceptor maps: %s", got)
	}
	srv.ProcessString(asNone, policyCall("write"))
	if seen.Load() != int64(jsonrpc.CodeUnauthenticated) {
		t.Errorf("the interceptor saw code %d", seen.Load())
	}
}

// TestCheckScopes: what a protocol layer checks inside a method (an MCP
// tool of tools/call) answers as the policy would.
func TestCheckScopes(t *testing.T) {
	srv := jsonrpc.NewServer(jsonrpc.UseCodes(jsonrpc.Codes{Forbidden: -31012}))
	srv.MustRegister("tool", func(ctx context.Context, name string) (string, error) {
		scopes := map[string][]string{"delete": {"files:write"}, "list": nil}[name]
		if err := jsonrpc.CheckScopes(ctx, scopes...); err != nil {
			return "", err
		}
		return name, nil
	})
	for _, tc := range []struct {
		ctx       context.Context
		tool, out string
	}{
		{asNone, "list", `{"jsonrpc":"2.0","error":{"code":-32012,"message":"Authentication required"},"id":1}`},
		{as(bob), "list", allowed(`"list"`)},
		{as(bob), "delete", `{"jsonrpc":"2.0","error":{"code":-31012,"message":"Insufficient scope","data":{"scope":"files:write"}},"id":1}`},
		{as(alice), "delete", allowed(`"delete"`)},
	} {
		if got := srv.ProcessString(tc.ctx, `{"jsonrpc":"2.0","method":"tool","params":["`+tc.tool+`"],"id":1}`); got != tc.out {
			t.Errorf("%s as %v: %s, want %s", tc.tool, jsonrpc.PrincipalOf(tc.ctx), got, tc.out)
		}
	}
	err := jsonrpc.CheckScopes(as(bob), "admin")
	if !errors.Is(err, &jsonrpc.Error{Code: jsonrpc.CodeForbidden}) {
		t.Errorf("CheckScopes outside a call: %v", err)
	}
}

// A server that fails closed: every method needs a caller, unless it is
// declared public, and a method can need scopes. The host sets who calls
// (here the program, with WithPrincipal).
func ExampleRequireAuth() {
	srv := jsonrpc.NewServer(jsonrpc.RequireAuth())
	srv.MustRegister("version", func() string { return "1.0" }, jsonrpc.Public())
	srv.MustRegister("list", func() []string { return []string{"a.txt"} })
	srv.MustRegister("remove", func(name string) bool { return true }, jsonrpc.RequireScopes("files:write"))

	anonymous := context.Background()
	bob := jsonrpc.WithPrincipal(context.Background(), &jsonrpc.Principal{Subject: "bob", Scopes: []string{"files:read"}})
	fmt.Println(srv.ProcessString(anonymous, `{"jsonrpc":"2.0","method":"version","id":1}`))
	fmt.Println(srv.ProcessString(anonymous, `{"jsonrpc":"2.0","method":"list","id":2}`))
	fmt.Println(srv.ProcessString(bob, `{"jsonrpc":"2.0","method":"list","id":3}`))
	fmt.Println(srv.ProcessString(bob, `{"jsonrpc":"2.0","method":"remove","params":["a.txt"],"id":4}`))
	// Output:
	// {"jsonrpc":"2.0","result":"1.0","id":1}
	// {"jsonrpc":"2.0","error":{"code":-32012,"message":"Authentication required"},"id":2}
	// {"jsonrpc":"2.0","result":["a.txt"],"id":3}
	// {"jsonrpc":"2.0","error":{"code":-32013,"message":"Insufficient scope","data":{"scope":"files:write"}},"id":4}
}
