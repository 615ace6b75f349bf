// Package mcp is the profile of the Model Context Protocol for the
// connections of package peer and for the servers behind its transports:
// the rules by which a client and a server cancel calls and report
// progress, and the error codes the library chooses under it.
//
//	s := &stream.Server{Server: srv, Protocol: mcp.Protocol()}
//	h := &streamhttp.Handler{Server: srv} // mcp.Protocol() by default
//
// MCP 2026-07-28 asks implementations not to use -32000 to -32019 and
// reserves -32020 to -32099 for the codes its specification defines
// (2025-11-25 defines -32002 and -32042 there): every code the library
// chooses under this profile lies outside the range JSON-RPC reserves
// (-32768 to -32000), in -31000 to -31099.
package mcp

import (
	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/peer"
	"github.com/jsonrpc-go/jsonrpc/protocol/progress"
)

// The codes the library chooses under MCP, where elsewhere it chooses the
// defaults of jsonrpc.Codes.
const (
	CodeServerError   jsonrpc.Code = -31000 // a method's plain Go error (jsonrpc.CodeServerError elsewhere)
	CodeUnknownToken  jsonrpc.Code = -31001 // a pull of a sequence result whose token names none
	CodeLimitExceeded jsonrpc.Code = -31005 // a limit refused the call or its answer
	CodeShuttingDown  jsonrpc.Code = -31006 // the server was shutting down and did not run the call
	CodeCancelled     jsonrpc.Code = -31008 // the call's context was cancelled (a call its client cancels gets no answer)
	CodeDeadline      jsonrpc.Code = -31010 // the call's deadline passed
	// A call refused for who is calling (jsonrpc.RequireScopes,
	// RequireAuth): without a Principal, and by one without a scope the
	// method requires. Over Streamable HTTP a single request refused so
	// is answered 401 or 403 with the challenge MCP's authorization asks
	// for, the error as its body.
	CodeUnauthenticated jsonrpc.Code = -31011
	CodeForbidden       jsonrpc.Code = -31012
)

// codes are the codes above, as the profile gives them.
var codes = jsonrpc.Codes{
	ServerError:  CodeServerError,
	Limit:        CodeLimitExceeded,
	Shutdown:     CodeShuttingDown,
	Deadline:     CodeDeadline,
	Cancelled:    CodeCancelled,
	UnknownToken: CodeUnknownToken,

	Unauthenticated: CodeUnauthenticated,
	Forbidden:       CodeForbidden,
}

// Protocol returns MCP's profile: "notifications/cancelled" with
// {"requestId", "reason"}, after which a cancelled call gets no answer,
// "notifications/progress" with {"progressToken", "progress", "total",
// "message"} for the "_meta.progressToken" of a call's params, and the
// codes above. Each call returns a profile of its own.
func Protocol() peer.Protocol {
	return peer.Protocol{
		CancelMethod: "notifications/cancelled",
		CancelID:     "requestId",
		CancelReason: "reason",
		Preempt: []peer.Preempter{&progress.Rules{
			Method:    "notifications/progress",
			Token:     "progressToken",
			TokenPath: []string{"_meta", "progressToken"},
		}},
		Codes: codes,
	}
}

// Progress is the value of an MCP progress notification, for
// progress.Reporter.Report.
type Progress struct {
	Progress float64 `json:"progress"`
	Total    float64 `json:"total,omitempty"`
	Message  string  `json:"message,omitempty"`
}
