package jsonrpc_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
)

func TestPrincipalOf(t *testing.T) {
	ctx := context.Background()
	if p := jsonrpc.PrincipalOf(ctx); p != nil {
		t.Errorf("PrincipalOf(Background) = %v, want nil", p)
	}
	alice := &jsonrpc.Principal{Subject: "alice", Scopes: []string{"read", "write"}}
	ctx = jsonrpc.WithPrincipal(ctx, alice)
	if p := jsonrpc.PrincipalOf(ctx); p != alice {
		t.Errorf("PrincipalOf = %v, want alice", p)
	}
	if p := jsonrpc.PrincipalOf(jsonrpc.WithPrincipal(ctx, nil)); p != nil {
		t.Errorf("PrincipalOf after WithPrincipal(nil) = %v, want nil (anonymous)", p)
	}

	// A method and an interceptor see the Principal of the context the
	// server was given; an interceptor may give its next another.
	srv := jsonrpc.NewServer(jsonrpc.Intercept(func(ctx context.Context, c *jsonrpc.Call, next func(context.Context) error) error {
		if jsonrpc.PrincipalOf(ctx) != alice {
			t.Errorf("the interceptor sees %v", jsonrpc.PrincipalOf(ctx))
		}
		if c.Method() == "as" {
			ctx = jsonrpc.WithPrincipal(ctx, &jsonrpc.Principal{Subject: "service"})
		}
		return next(ctx)
	}))
	srv.MustRegister("whoami", func(ctx context.Context) string { return jsonrpc.PrincipalOf(ctx).Subject })
	srv.MustRegister("as", func(ctx context.Context) string { return jsonrpc.PrincipalOf(ctx).Subject })
	for _, tc := range []struct{ req, want string }{
		{`{"jsonrpc":"2.0","method":"whoami","id":1}`, `{"jsonrpc":"2.0","result":"alice","id":1}`},
		{`{"jsonrpc":"2.0","method":"as","id":1}`, `{"jsonrpc":"2.0","result":"service","id":1}`},
	} {
		if got := srv.ProcessString(ctx, tc.req); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.req, got, tc.want)
		}
	}
}

func TestPrincipalScopesAndExpiry(t *testing.T) {
	var none *jsonrpc.Principal
	if none.HasScope("read") || none.Expired(time.Now()) {
		t.Error("a nil Principal has a scope or has expired")
	}
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	p := &jsonrpc.Principal{Scopes: []string{"read"}, Expiry: now}
	if !p.HasScope("read") || p.HasScope("Read") || p.HasScope("write") {
		t.Errorf("HasScope of %v", p.Scopes)
	}
	if p.Expired(now.Add(-time.Nanosecond)) || !p.Expired(now) || !p.Expired(now.Add(time.Hour)) {
		t.Error("Expired is not true from Expiry on")
	}
	if (&jsonrpc.Principal{}).Expired(now) {
		t.Error("a Principal without Expiry has expired")
	}
}

// A method learns who calls it with PrincipalOf. Hosts set the Principal
// from what authenticated the connection or request (a client
// certificate, a bearer token); a program serving standard input, which
// authenticates nothing, may set it itself with WithPrincipal.
func ExamplePrincipalOf() {
	srv := jsonrpc.NewServer()
	srv.MustRegister("whoami", func(ctx context.Context) (string, error) {
		p := jsonrpc.PrincipalOf(ctx)
		if p == nil {
			return "", jsonrpc.NewError(-32001, "anonymous")
		}
		return fmt.Sprintf("%s %v", p.Subject, p.Scopes), nil
	})

	req := `{"jsonrpc":"2.0","method":"whoami","id":1}`
	fmt.Println(srv.ProcessString(context.Background(), req))
	ctx := jsonrpc.WithPrincipal(context.Background(), &jsonrpc.Principal{Subject: "alice", Scopes: []string{"read"}})
	fmt.Println(srv.ProcessString(ctx, req))
	// Output:
	// {"jsonrpc":"2.0","error":{"code":-32001,"message":"anonymous"},"id":1}
	// {"jsonrpc":"2.0","result":"alice [read]","id":1}
}
