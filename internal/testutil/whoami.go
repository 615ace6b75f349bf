package testutil

import (
	"context"

	"github.com/jsonrpc-go/jsonrpc"
)

// WhoamiServer returns a server whose method whoami, and each of the
// methods named (one that begins a session, say), answers the subject of
// its call's Principal, "" when the call is anonymous: what the tests of
// who is calling ask each host.
func WhoamiServer(also ...string) *jsonrpc.Server {
	srv := jsonrpc.NewServer()
	who := func(ctx context.Context) string {
		if p := jsonrpc.PrincipalOf(ctx); p != nil {
			return p.Subject
		}
		return ""
	}
	for _, name := range append([]string{"whoami"}, also...) {
		srv.MustRegister(name, who)
	}
	return srv
}
