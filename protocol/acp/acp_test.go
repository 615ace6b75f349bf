package acp_test

import (
	"testing"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/internal/peertest"
	"github.com/jsonrpc-go/jsonrpc/protocol/acp"
)

// TestCodes: every code the library chooses under ACP is the profile's,
// and none is one ACP defines for another meaning (AuthRequired -32000,
// ResourceNotFound -32002); a cancelled call is ACP's RequestCancelled,
// a plain error JSON-RPC's Internal error and a call that needs a
// Principal made by none AuthRequired, each the code of its meaning.
func TestCodes(t *testing.T) {
	p := acp.Protocol()
	peertest.CheckCodes(t, p.Codes, []peertest.Range{
		peertest.JSONRPCPredefined,
		{Lo: acp.CodeAuthRequired, Hi: acp.CodeAuthRequired, Why: "ACP's AuthRequired"},
		{Lo: acp.CodeResourceNotFound, Hi: acp.CodeResourceNotFound, Why: "ACP's ResourceNotFound"},
		{Lo: -32899, Hi: -32801, Why: "LSP's range, whose RequestCancelled (-32800) ACP shares"},
	}, map[string]jsonrpc.Code{"Cancelled": jsonrpc.CodeCancelled, "ServerError": jsonrpc.CodeInternalError, "Unauthenticated": acp.CodeAuthRequired})
	peertest.CheckLibraryCodes(t, p)
}
