// Package lsp is the profile of the Language Server Protocol for the
// connections of package peer: the rules by which an editor and a
// language server cancel calls and report progress over one JSON-RPC
// connection, and the error codes the library chooses under it.
//
//	s := &stream.Server{Server: srv, Framing: framing.Header, Protocol: lsp.Protocol()}
//
// A method reports progress to its caller with progress.Of, begins
// progress of its own with BeginWorkDone, and streams a sequence
// result as partial results when the call carries a partialResultToken.
package lsp

import (
	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/peer"
	"github.com/jsonrpc-go/jsonrpc/protocol/progress"
)

// The error codes LSP defines in the range JSON-RPC gives implementations
// (-32099 to -32000), and its own range, -32899 to -32800, in which it
// defines RequestCancelled (-32800, jsonrpc.CodeCancelled),
// ContentModified (-32801), ServerCancelled (-32802) and RequestFailed
// (-32803). The library chooses none of them for another meaning.
const (
	CodeServerNotInitialized jsonrpc.Code = -32002
	CodeUnknownErrorCode     jsonrpc.Code = -32001
	CodeContentModified      jsonrpc.Code = -32801
	CodeServerCancelled      jsonrpc.Code = -32802
	CodeRequestFailed        jsonrpc.Code = -32803
)

// CodeUnknownToken answers, under LSP, a pull of a sequence result whose
// token names none: StreamJsonRpc's -32001 is LSP's UnknownErrorCode.
const CodeUnknownToken jsonrpc.Code = -32011

// Protocol returns LSP's profile: "$/cancelRequest" with {"id"}, answered
// with jsonrpc.CodeCancelled (RequestCancelled), "$/progress" with
// {"token", "value"} for the "workDoneToken" of a call's params, partial
// results on its "partialResultToken", work-done progress the server
// begins (BeginWorkDone, WorkDoneCreate and WorkDoneCancel), and
// "params": null taken as no params (Emacs's client sends it). A call
// refused for who is calling (jsonrpc.RequireScopes, RequireAuth) keeps
// the library's codes, jsonrpc.CodeUnauthenticated (-32012) and
// CodeForbidden (-32013), clear of LSP's. Each call returns a profile of
// its own.
func Protocol() peer.Protocol {
	return peer.Protocol{
		CancelMethod:    "$/cancelRequest",
		CancelID:        "id",
		AnswerCancelled: true,
		NullParams:      true,
		Preempt: []peer.Preempter{&progress.Rules{
			Method:            "$/progress",
			Token:             "token",
			Value:             "value",
			TokenPath:         []string{"workDoneToken"},
			PartialResultPath: []string{"partialResultToken"},
		}, rules{}},
		Codes: jsonrpc.Codes{UnknownToken: CodeUnknownToken},
	}
}
