// Package acp is the profile of the Agent Client Protocol for the
// connections of package peer: newline-delimited JSON-RPC over stdio in
// both directions, between a code editor (the client) and a coding agent,
// with its own request cancellation, and the error codes the library
// chooses under it.
//
//	s := &stream.Server{Server: agent, Protocol: acp.Protocol()} // over stream.Stdio()
package acp

import (
	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/peer"
)

// The error codes ACP defines beside JSON-RPC's: the library chooses
// neither for another meaning.
const (
	CodeAuthRequired     jsonrpc.Code = -32000
	CodeResourceNotFound jsonrpc.Code = -32002
)

// CodeUnknownToken answers, under ACP, a pull of a sequence result whose
// token names none.
const CodeUnknownToken jsonrpc.Code = -32011

// Protocol returns ACP's profile: "$/cancel_request" with {"requestId"}
// cancels a call in flight, which is then answered with RequestCancelled
// (-32800, jsonrpc.CodeCancelled); a method's plain Go error answers
// Internal error (-32603), as ACP's own libraries answer, since ACP gives
// -32000 to AuthRequired, which answers a call that requires a Principal
// made by none (jsonrpc.RequireScopes, RequireAuth: Codes.Unauthenticated);
// a Principal without a scope the method requires gets
// jsonrpc.CodeForbidden (-32013). Each call returns a profile of its own.
func Protocol() peer.Protocol {
	return peer.Protocol{
		CancelMethod:    "$/cancel_request",
		CancelID:        "requestId",
		AnswerCancelled: true,
		Codes: jsonrpc.Codes{
			ServerError:     jsonrpc.CodeInternalError,
			UnknownToken:    CodeUnknownToken,
			Unauthenticated: CodeAuthRequired,
		},
	}
}
