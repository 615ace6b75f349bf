//go:build !race && !jsonrpc_noadapters

package jsonrpc_test

import (
	"context"
	"testing"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/internal/demo"
	"github.com/jsonrpc-go/jsonrpc/transport"
)

// TestPrincipalAllocs: a Principal in the context costs a call nothing:
// the inline path of a method without a context allocates nothing with
// one, as without; a method that reads it with PrincipalOf allocates what
// any method taking a context does (its call's context), and PrincipalOf
// nothing.
func TestPrincipalAllocs(t *testing.T) {
	alice := &jsonrpc.Principal{Subject: "alice", Scopes: []string{"read"}}
	ctx := transport.WithContextValues(context.Background(), "conn", "10.0.0.1", alice)
	srv := demo.NewServer()
	srv.MustRegister("whoami", func(ctx context.Context) string { return jsonrpc.PrincipalOf(ctx).Subject })
	srv.MustRegister("anyone", func(ctx context.Context) string { return "x" })
	buf := make([]byte, 0, 256)
	count := func(ctx context.Context, req, want string) float64 {
		out := srv.Process(ctx, buf[:0], []byte(req))
		if string(out) != want {
			t.Fatalf("%s: %s, want %s", req, out, want)
		}
		r := []byte(req)
		return testing.AllocsPerRun(500, func() { buf = srv.Process(ctx, buf[:0], r) })
	}
	const add = `{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`
	if n := count(ctx, add, `{"jsonrpc":"2.0","result":3,"id":1}`); n != 0 {
		t.Errorf("add with a Principal: %v allocations, want 0", n)
	}
	whoami := count(ctx, `{"jsonrpc":"2.0","method":"whoami","id":1}`, `{"jsonrpc":"2.0","result":"alice","id":1}`)
	anyone := count(ctx, `{"jsonrpc":"2.0","method":"anyone","id":1}`, `{"jsonrpc":"2.0","result":"x","id":1}`)
	if whoami != anyone || whoami > 1 {
		t.Errorf("whoami (PrincipalOf): %v allocations, a method taking a context: %v; want them equal, at most 1", whoami, anyone)
	}
	if n := testing.AllocsPerRun(500, func() { jsonrpc.PrincipalOf(ctx) }); n != 0 {
		t.Errorf("PrincipalOf: %v allocations", n)
	}
	t.Logf("add: 0; a method reading PrincipalOf: %v, one taking a context: %v", whoami, anyone)
}
