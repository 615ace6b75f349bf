package httphost

import (
	"fmt"
	"testing"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/internal/keys"
)

func TestChallenge(t *testing.T) {
	for _, tc := range []struct {
		err, scope, metadata, want string
	}{
		{"", "", "", `Bearer`},
		{"invalid_token", "", "", `Bearer error="invalid_token"`},
		{"insufficient_scope", "a b", "https://x/.well-known/oauth-protected-resource", `Bearer error="insufficient_scope", scope="a b", resource_metadata="https://x/.well-known/oauth-protected-resource"`},
		{"", "", "https://x/m", `Bearer resource_metadata="https://x/m"`},
		{"", `a"b\c`, "", `Bearer scope="a\"b\\c"`},
	} {
		if got := Challenge(tc.err, tc.scope, tc.metadata); got != tc.want {
			t.Errorf("Challenge(%q, %q, %q) = %s, want %s", tc.err, tc.scope, tc.metadata, got, tc.want)
		}
	}
	if s, c := RefusalAnswer(&keys.Refusal{}, ""); s != 401 || c != "Bearer" {
		t.Errorf("anonymous: %d %s", s, c)
	}
	if s, c := RefusalAnswer(&keys.Refusal{Forbidden: true, Scopes: []string{"r", "w"}}, "m"); s != 403 || c != `Bearer error="insufficient_scope", scope="r w", resource_metadata="m"` {
		t.Errorf("forbidden: %d %s", s, c)
	}
}

// TestRefusalIn: a session's answer tells its refusal by its code, in
// the codes of the host's protocol.
func TestRefusalIn(t *testing.T) {
	mcp := jsonrpc.Codes{Unauthenticated: -31011, Forbidden: -31012}
	for _, tc := range []struct {
		resp  string
		codes jsonrpc.Codes
		want  string // fmt of the refusal, "<nil>" for none
	}{
		{`{"jsonrpc":"2.0","error":{"code":-32012,"message":"Authentication required"},"id":1}`, jsonrpc.Codes{}, "&{false []}"},
		{`{"jsonrpc":"2.0","error":{"code":-32012,"message":"Authentication required"},"id":1}`, mcp, "<nil>"},
		{`{"jsonrpc":"2.0","error":{"code":-31012,"message":"Insufficient scope","data":{"scope":"a b"}},"id":1}`, mcp, "&{true [a b]}"},
		{`{"jsonrpc":"2.0","result":{"error":{"code":-31012}},"id":1}`, mcp, "<nil>"},
		{`{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":1}`, mcp, "<nil>"},
		{`[{"jsonrpc":"2.0","error":{"code":-31011,"message":"x"},"id":1}]`, mcp, "<nil>"},
		{``, mcp, "<nil>"},
	} {
		if got := fmt.Sprint(RefusalIn([]byte(tc.resp), tc.codes)); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.resp, got, tc.want)
		}
	}
	for doc, want := range map[string]bool{`{}`: true, " \n{": true, `[{}]`: false, ``: false, ` `: false} {
		if Single([]byte(doc)) != want {
			t.Errorf("Single(%q) != %v", doc, want)
		}
	}
}
