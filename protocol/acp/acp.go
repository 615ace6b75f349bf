// Package acp is the profile of the Agent Client Protocol for the
// connections of package peer: newline-delimited JSON-RPC over stdio in
// both directions, between a code editor (the client) and a coding agent,
// with its own request cancellation, and the error codes the library
// chooses under it.
//
//	s := &stream.Server{Server: agent, Framing: framing.Line, Protocol: acp.Protocol()}
//	err := s.ServeConn(ctx, stream.Stdio())
//
// # Agent and client
//
// The client starts the agent and calls initialize, session/new and
// session/prompt (the Method constants); the agent answers each prompt
// turn with its StopReason once the turn is over, and streams the turn
// meanwhile as session/update notifications (Update). Its requests to the
// client (session/request_permission, fs/read_text_file,
// fs/write_text_file, terminal/*) are ordinary calls on the same
// connection, from a method registered with jsonrpc.Blocking:
//
//	var perm struct{ Outcome struct{ Outcome, OptionID string } }
//	err := peer.FromContext(ctx).Call(ctx, acp.MethodRequestPermission, params, &perm)
//
// ACP's messages carry members this side may not model (_meta, and the
// fields of later versions): a Server of ACP is made with
// jsonrpc.AllowUnknownFields.
//
// # Cancellation
//
// ACP cancels in two ways. "$/cancel_request" with {"requestId"} cancels
// one request, in either direction: the Conn handles it as soon as it is
// read, the method's context ends, and the call is answered with
// RequestCancelled (-32800); when the context of a call the agent makes
// ends, the Conn sends the client "$/cancel_request" for it.
// session/cancel ends a prompt turn: it is a notification of the
// protocol's own, for the agent to register, after which the turn is
// answered with StopCancelled, not an error.
//
// # Codes
//
// A method's plain Go error answers Internal error (-32603), as ACP's own
// libraries answer, since ACP gives -32000 to AuthRequired and keeps the
// range -32099 to -32000 for its codes. A call the library ends for
// reasons of its own (a limit, a shutdown, a deadline) is answered with
// RequestCancelled, as ACP asks of a request cancelled internally, with
// data naming why.
package acp

import (
	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/peer"
)

// The error codes ACP defines beside JSON-RPC's, in the range it keeps
// for them (-32099 to -32000): the library chooses none of that range.
// CodeUnsupportedProtocolVersion is of the draft of ACP v2.
const (
	CodeAuthRequired               jsonrpc.Code = -32000
	CodeResourceNotFound           jsonrpc.Code = -32002
	CodeUnsupportedProtocolVersion jsonrpc.Code = -32022
)

// CodeRequestCancelled is ACP's RequestCancelled, which it shares with
// LSP: jsonrpc.CodeCancelled.
const CodeRequestCancelled = jsonrpc.CodeCancelled

// CodeForbidden answers, under ACP, a call whose Principal lacks a scope
// its method requires (jsonrpc.RequireScopes): ACP defines no code for it,
// and the code the library chooses elsewhere (jsonrpc.CodeForbidden) lies
// in the range ACP keeps, so it is one outside JSON-RPC's reserved range,
// MCP's for the same meaning.
const CodeForbidden jsonrpc.Code = -31012

// CodeUnknownToken answers, under ACP, a pull of a sequence result whose
// token names none: Invalid params, since the code the library chooses
// elsewhere lies in the range ACP keeps.
const CodeUnknownToken = jsonrpc.CodeInvalidParams

// Protocol returns ACP's profile: "$/cancel_request" with {"requestId"}
// cancels a call in flight, which is then answered with RequestCancelled
// (-32800, jsonrpc.CodeCancelled), and the codes above. A call that
// requires a Principal made by none (jsonrpc.RequireScopes, RequireAuth:
// Codes.Unauthenticated) answers AuthRequired, the code of that meaning;
// a Principal without a scope the method requires gets CodeForbidden.
// Each call returns a profile of its own.
func Protocol() peer.Protocol {
	return peer.Protocol{
		CancelMethod:    MethodCancelRequest,
		CancelID:        "requestId",
		AnswerCancelled: true,
		Codes: jsonrpc.Codes{
			ServerError:     jsonrpc.CodeInternalError,
			Limit:           CodeRequestCancelled,
			Shutdown:        CodeRequestCancelled,
			Deadline:        CodeRequestCancelled,
			Cancelled:       CodeRequestCancelled,
			UnknownToken:    CodeUnknownToken,
			Unauthenticated: CodeAuthRequired,
			Forbidden:       CodeForbidden,
		},
	}
}
