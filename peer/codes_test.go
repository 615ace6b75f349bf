package peer_test

import (
	"testing"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/internal/peertest"
	"github.com/jsonrpc-go/jsonrpc/peer"
)

// TestCodesOfTheZeroProtocol: with no profile, the library's codes are the
// defaults of jsonrpc.Codes, in the range JSON-RPC gives implementations
// (and LSP's RequestCancelled for a cancelled call).
func TestCodesOfTheZeroProtocol(t *testing.T) {
	var p peer.Protocol
	peertest.CheckCodes(t, p.Codes, []peertest.Range{peertest.JSONRPCPredefined}, nil)
	want := p.Codes.WithDefaults()
	got := peertest.LibraryCodes(t, p)
	for name, code := range map[string]jsonrpc.Code{"ServerError": want.ServerError, "Deadline": want.Deadline, "Cancelled": want.Cancelled,
		"Limit": want.Limit, "UnknownToken": want.UnknownToken, "Shutdown": want.Shutdown} {
		if got[name] != code {
			t.Errorf("%s answered %d, want the profile's %d", name, got[name], code)
		}
	}
}
