// Package a2a is the profile of the Agent2Agent protocol (A2A) for the
// servers of this module: the error codes A2A defines, and those the
// library chooses under it, which must not be among them. A2A's JSON-RPC
// binding runs over HTTP, one request a POST:
//
//	srv := jsonrpc.NewServer(jsonrpc.UseCodes(a2a.Protocol().Codes))
package a2a

import (
	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/peer"
)

// The error codes A2A v1.0 defines, -32001 to -32009.
const (
	CodeTaskNotFound                 jsonrpc.Code = -32001
	CodeTaskNotCancelable            jsonrpc.Code = -32002
	CodePushNotificationNotSupported jsonrpc.Code = -32003
	CodeUnsupportedOperation         jsonrpc.Code = -32004
	CodeContentTypeNotSupported      jsonrpc.Code = -32005
	CodeInvalidAgentResponse         jsonrpc.Code = -32006
	CodeExtendedCardNotConfigured    jsonrpc.Code = -32007
	CodeExtensionSupportRequired     jsonrpc.Code = -32008
	CodeVersionNotSupported          jsonrpc.Code = -32009
)

// The codes the library chooses under A2A where its defaults are A2A's:
// a limit's refusal (jsonrpc.CodeLimitExceeded is A2A's
// ContentTypeNotSupported), a shutdown's, and an unknown sequence token
// (-32001 is TaskNotFound).
const (
	CodeLimitExceeded jsonrpc.Code = -32050
	CodeShuttingDown  jsonrpc.Code = -32051
	CodeUnknownToken  jsonrpc.Code = -32052
)

// Protocol returns A2A's profile: no notifications of its own on a
// connection, and the codes above. A call refused for who is calling
// (jsonrpc.RequireScopes, RequireAuth) keeps the library's codes,
// jsonrpc.CodeUnauthenticated (-32012) and CodeForbidden (-32013), clear of
// A2A's, which defines none of that meaning: A2A leaves authentication to
// HTTP, where the hosts answer a single request refused so with 401 or
// 403 and the Bearer challenge. Each call returns a profile of its own.
func Protocol() peer.Protocol {
	return peer.Protocol{
		Codes: jsonrpc.Codes{
			Limit:        CodeLimitExceeded,
			Shutdown:     CodeShuttingDown,
			UnknownToken: CodeUnknownToken,
		},
	}
}
