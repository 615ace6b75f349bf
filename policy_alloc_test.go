//go:build !race && !jsonrpc_noadapters

package jsonrpc_test

import (
	"context"
	"testing"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/transport"
)

// TestPolicyAllocs: a policy costs a call nothing it is allowed: on a
// server that requires authentication, a public method, a method of no
// policy of its own and a method that requires scopes all answer the
// inline path's 0 allocations for a Principal that may call them; and
// only a refusal whose codes are not the server's allocates (its copy).
func TestPolicyAllocs(t *testing.T) {
	srv := jsonrpc.NewServer(jsonrpc.RequireAuth())
	srv.MustRegister("public", func(a, b int) int { return a + b }, jsonrpc.Public())
	srv.MustRegister("plain", func(a, b int) int { return a + b })
	srv.MustRegister("scoped", func(a, b int) int { return a + b }, jsonrpc.RequireScopes("files:read", "files:write"))
	p := &jsonrpc.Principal{Subject: "alice", Scopes: []string{"files:read", "files:write"}}
	authed := transport.WithContextValues(context.Background(), "conn", "10.0.0.1", p)
	buf := make([]byte, 0, 256)
	for _, tc := range []struct {
		name, method string
		ctx          context.Context
		want         string
	}{
		{"public, anonymous", "public", context.Background(), `{"jsonrpc":"2.0","result":3,"id":1}`},
		{"no policy, a Principal", "plain", authed, `{"jsonrpc":"2.0","result":3,"id":1}`},
		{"scopes held", "scoped", authed, `{"jsonrpc":"2.0","result":3,"id":1}`},
		{"refused", "scoped", context.Background(), `{"jsonrpc":"2.0","error":{"code":-32012,"message":"Authentication required"},"id":1}`},
	} {
		req := []byte(`{"jsonrpc":"2.0","method":"` + tc.method + `","params":[1,2],"id":1}`)
		if got := string(srv.Process(tc.ctx, buf[:0], req)); got != tc.want {
			t.Fatalf("%s: %s, want %s", tc.name, got, tc.want)
		}
		if n := testing.AllocsPerRun(500, func() { buf = srv.Process(tc.ctx, buf[:0], req) }); n != 0 {
			t.Errorf("%s: %v allocations, want 0", tc.name, n)
		}
	}
}
