package jsonrpc

import (
	"context"

	"github.com/jsonrpc-go/jsonrpc/internal/keys"
)

// Codes are the error codes that the library chooses itself, where the
// JSON-RPC specification leaves the choice to the implementation: the
// answer to a method's plain Go error, to a call a limit refused, to a call
// not run because the server shut down, to a deadline passed, to a call
// cancelled, to a pull of a stream by a token that names none, and to a
// call refused for who is calling (RequireScopes, RequireAuth). The
// defaults sit in the range the specification gives implementations
// (-32000 to -32099), but protocols built on JSON-RPC reserve codes of that
// range for meanings of their own (A2A's TaskNotFound is -32001, ACP's
// AuthRequired -32000, and MCP 2026-07-28 asks implementations to leave
// -32000 to -32099 alone): a protocol's profile gives the codes that do
// not collide with its own (see peer.Protocol and the packages under
// protocol/).
//
// A zero field means its default. A Server answers with the Codes of the
// call's context, when its connection's protocol gives some (a
// peer.Conn's, streamhttp's), and otherwise with its own (UseCodes).
type Codes struct {
	// ServerError answers a method's error that is not an *Error:
	// CodeServerError (-32000) by default.
	ServerError Code
	// Limit answers a call a limit refused, or whose answer it cut:
	// CodeLimitExceeded (-32005) by default.
	Limit Code
	// Shutdown answers a call that was not run because the server was
	// shutting down: Limit by default.
	Shutdown Code
	// Deadline answers a call whose context's deadline passed:
	// CodeDeadline (-32010) by default.
	Deadline Code
	// Cancelled answers a call whose context was cancelled (and a call
	// its peer cancelled, under a protocol that answers those):
	// CodeCancelled (-32800, LSP's RequestCancelled) by default.
	Cancelled Code
	// UnknownToken answers a pull or an abort of a sequence result whose
	// token names none ($/enumerator/next): -32001 (StreamJsonRpc's
	// NoMarshaledObjectFound) by default.
	UnknownToken Code
	// Unauthenticated answers a call that requires a Principal made by
	// none (RequireScopes, RequireAuth): CodeUnauthenticated (-32012) by
	// default.
	Unauthenticated Code
	// Forbidden answers a call whose Principal lacks a scope the method
	// requires (RequireScopes): CodeForbidden (-32013) by default.
	Forbidden Code
}

// CodeUnknownToken is the default of Codes.UnknownToken.
const CodeUnknownToken Code = -32001

// WithDefaults returns c with each zero field set to its default.
func (c Codes) WithDefaults() Codes {
	def := func(v *Code, d Code) {
		if *v == 0 {
			*v = d
		}
	}
	def(&c.ServerError, CodeServerError)
	def(&c.Limit, CodeLimitExceeded)
	def(&c.Shutdown, c.Limit)
	def(&c.Deadline, CodeDeadline)
	def(&c.Cancelled, CodeCancelled)
	def(&c.UnknownToken, CodeUnknownToken)
	def(&c.Unauthenticated, CodeUnauthenticated)
	def(&c.Forbidden, CodeForbidden)
	return c
}

// Refuse returns e, an error of the library's own that refuses a call at a
// limit, or at shutdown when shutdown is set (code CodeLimitExceeded, data
// naming why), with the code c gives that refusal (Limit, Shutdown) and
// its message ("Limit exceeded", "Server shutting down"); the data stays.
// It returns e itself when the code is e's. Hosts call it, with their
// protocol's codes, for the refusals they answer themselves.
func (c Codes) Refuse(e *Error, shutdown bool) *Error {
	c = c.WithDefaults()
	code, msg := c.Limit, "Limit exceeded"
	if shutdown {
		code = c.Shutdown
		if code != c.Limit {
			msg = "Server shutting down"
		}
	}
	if code == e.Code {
		return e
	}
	r := *e
	r.Code, r.Message = code, msg
	return &r
}

// UseCodes sets the codes the server chooses itself (see Codes), for the
// calls whose context gives none. Later calls replace every field.
func UseCodes(c Codes) Option { return func(cf *config) { cf.codes = c.WithDefaults() } }

// WithCodes returns a copy of ctx whose calls a Server answers with the
// codes c (with their defaults), in place of its own: how a connection
// under a protocol's profile, or a host of that protocol, gives its codes
// to the server it serves.
func WithCodes(ctx context.Context, c Codes) context.Context {
	c = c.WithDefaults()
	return context.WithValue(ctx, keys.Codes{}, &c)
}
