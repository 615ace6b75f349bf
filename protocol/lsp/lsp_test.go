package lsp_test

import (
	"testing"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/internal/peertest"
	"github.com/jsonrpc-go/jsonrpc/protocol/lsp"
	"github.com/jsonrpc-go/jsonrpc/protocol/progress"
)

// TestCodes: every code the library chooses under LSP is the profile's,
// and none falls where LSP defines codes of its own for other meanings:
// -32002 and -32001 (ServerNotInitialized, UnknownErrorCode) and its range
// -32899 to -32800, where RequestCancelled is the library's Cancelled.
func TestCodes(t *testing.T) {
	p := lsp.Protocol()
	peertest.CheckCodes(t, p.Codes, []peertest.Range{
		peertest.JSONRPCPredefined,
		{Lo: lsp.CodeServerNotInitialized, Hi: lsp.CodeUnknownErrorCode, Why: "LSP's ServerNotInitialized and UnknownErrorCode"},
		{Lo: -32899, Hi: -32800, Why: "LSP's own range"},
	}, map[string]jsonrpc.Code{"Cancelled": jsonrpc.CodeCancelled})
	peertest.CheckLibraryCodes(t, p)
}

// TestProtocolIsAValue: each Protocol is a profile of its own; changing
// one changes no other.
func TestProtocolIsAValue(t *testing.T) {
	a := lsp.Protocol()
	a.Preempt[0].(*progress.Rules).TokenPath[0] = "changed"
	a.CancelMethod = "changed"
	if b := lsp.Protocol(); b.Preempt[0].(*progress.Rules).TokenPath[0] != "workDoneToken" || b.CancelMethod != "$/cancelRequest" {
		t.Fatalf("a change to one profile reached the next: %+v", b)
	}
}
