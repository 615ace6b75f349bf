package a2a_test

import (
	"testing"

	"github.com/jsonrpc-go/jsonrpc/internal/peertest"
	"github.com/jsonrpc-go/jsonrpc/protocol/a2a"
)

// TestCodes: every code the library chooses under A2A is the profile's,
// and none falls among the codes A2A defines (-32001 to -32009:
// jsonrpc.CodeLimitExceeded would be ContentTypeNotSupported).
func TestCodes(t *testing.T) {
	p := a2a.Protocol()
	peertest.CheckCodes(t, p.Codes, []peertest.Range{
		peertest.JSONRPCPredefined,
		{Lo: a2a.CodeVersionNotSupported, Hi: a2a.CodeTaskNotFound, Why: "A2A's own errors"},
	}, nil)
	peertest.CheckLibraryCodes(t, p)
}
