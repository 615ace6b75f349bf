package peer_test

import (
	"testing"

	"github.com/jsonrpc-go/jsonrpc/internal/peertest"
	"github.com/jsonrpc-go/jsonrpc/peer"
)

// TestCodesOfTheZeroProtocol: with no profile, the library's codes are the
// defaults of jsonrpc.Codes, in the range JSON-RPC gives implementations
// (and LSP's RequestCancelled for a cancelled call).
func TestCodesOfTheZeroProtocol(t *testing.T) {
	var p peer.Protocol
	peertest.CheckCodes(t, p.Codes, []peertest.Range{peertest.JSONRPCPredefined}, nil)
	peertest.CheckLibraryCodes(t, p)
}
