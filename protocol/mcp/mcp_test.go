package mcp_test

import (
	"testing"

	"github.com/jsonrpc-go/jsonrpc/internal/peertest"
	"github.com/jsonrpc-go/jsonrpc/protocol/mcp"
)

// TestCodes: every code the library chooses under MCP is the profile's,
// and none falls in the range JSON-RPC reserves, which MCP 2026-07-28
// asks implementations to leave alone (-32000 to -32019) or reserves for
// its own codes (-32020 to -32099; 2025-11-25 defines -32002 and -32042
// there): the codes hold under both revisions. Limit and Shutdown differ,
// so that a client can tell them apart.
func TestCodes(t *testing.T) {
	p := mcp.Protocol()
	peertest.CheckCodes(t, p.Codes, []peertest.Range{
		{Lo: -32768, Hi: -32000, Why: "JSON-RPC's reserved range, which MCP 2026-07-28 keeps (legacy, then its own)"},
		{Lo: -32899, Hi: -32800, Why: "LSP's range, which MCP's clients often share"},
	}, nil)
	if c := p.Codes.WithDefaults(); c.Limit == c.Shutdown {
		t.Error("MCP's limit and shutdown codes are one")
	}
	peertest.CheckLibraryCodes(t, p)
}
