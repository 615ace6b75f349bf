package peer

import "github.com/jsonrpc-go/jsonrpc"

// The codes with which MCP answers the calls the library refuses (see
// Refusal). MCP 2026-07-28 asks new implementations not to use -32000 to
// -32019 and reserves -32020 to -32099 for the codes its specification
// defines, and LSP defines -32899 to -32800; it asks for codes of an
// implementation's own outside the JSON-RPC reserved range (-32768 to
// -32000), where these are.
const (
	CodeMCPLimitExceeded jsonrpc.Code = -31005 // a limit refused the call or its answer (jsonrpc.CodeLimitExceeded elsewhere; a Server's own with jsonrpc.LimitCode)
	CodeMCPShuttingDown  jsonrpc.Code = -31006 // the server was shutting down and did not run the call
)

// A Refusal is why a connection answers a call with an error of the
// library's own, without running it or without its result: the error is
// jsonrpc.CodeLimitExceeded (-32005) with data naming the reason, unless
// the connection's Protocol gives the refusal a code of its own
// (Protocol.RefusalCode).
type Refusal uint8

const (
	// RefusedLimit is a limit's refusal: a message or a response over its
	// size limit, more calls in flight than the connection takes, a host's
	// buffered memory spent, too many subscriptions.
	RefusedLimit Refusal = iota
	// RefusedShutdown is the refusal of a call that arrived or waited
	// while the server shut down (data "server shutting down").
	RefusedShutdown
)

// message returns the message of an error of r whose code a Protocol
// changes (the code is then not one jsonrpc.Code.String knows), or "" for
// a Refusal this package does not define.
func (r Refusal) message() string {
	switch r {
	case RefusedLimit:
		return "Limit exceeded"
	case RefusedShutdown:
		return "Server shutting down"
	}
	return ""
}

// A Protocol names the notifications by which the two ends of a connection
// cancel calls and report progress, and how a cancelled call is answered.
// The zero Protocol has neither: a Conn then treats every notification as a
// method call for its Server. LSP and MCP are the two in wide use.
type Protocol struct {
	// CancelMethod is the notification that cancels a call in flight,
	// such as "$/cancelRequest"; "" turns cancellation off. It is handled
	// by the Conn itself, as soon as it is read, ahead of any message
	// waiting to run, and is not passed to the Server.
	CancelMethod string
	// CancelID is the member of the cancel notification's params that
	// holds the id of the call to cancel, such as "id".
	CancelID string
	// CancelReason, when set, is a member of the cancel notification's
	// params that the Conn sets to the error of the caller's context when
	// it cancels a call of its own, such as "reason".
	CancelReason string
	// AnswerCancelled makes a cancelled call answer with
	// jsonrpc.CodeCancelled (LSP); without it a cancelled call gets no
	// answer at all (MCP).
	AnswerCancelled bool

	// ProgressMethod is the notification that reports the progress of a
	// call to its caller, such as "$/progress"; "" turns progress off.
	ProgressMethod string
	// ProgressToken is the member of the progress notification's params
	// that holds the token the caller sent with its call, such as
	// "token".
	ProgressToken string
	// ProgressValue is the member of the progress notification's params
	// that holds the value reported, such as "value"; "" means the
	// members of the value are the params' own, beside the token (MCP's
	// progress, total and message).
	ProgressValue string
	// TokenPath is where a call's params carry the progress token the
	// caller asks progress for: the member names from the params object
	// down, such as ["workDoneToken"] or ["_meta", "progressToken"].
	TokenPath []string
	// PartialResultPath is where a call's params carry the token on which
	// the caller asks for the items of a sequence result as partial
	// results (LSP's ["partialResultToken"]): each batch of items is sent
	// as a progress notification (ProgressMethod) whose value is the
	// array of the batch, and the answer is then an empty array. A call
	// without the token gets the items as the enumerator protocol gives
	// them. nil turns partial results off.
	PartialResultPath []string

	// WorkDoneCreate is the request by which a server asks its client for
	// a progress token of its own, and WorkDoneCancel the notification by
	// which the client cancels the work reported on it (LSP's
	// "window/workDoneProgress/create" and "window/workDoneProgress/cancel",
	// whose params hold the token in ProgressToken's member); see
	// BeginWorkDone. "" turns them off. WorkDoneCancel is handled by the
	// Conn itself and not passed to the Server.
	WorkDoneCreate string
	WorkDoneCancel string

	// NullParams makes the Server take a request's "params": null as
	// absent params (jsonrpc.AcceptNullParams) on this connection, as
	// LSP's clients need: Emacs's sends null params for shutdown and
	// exit.
	NullParams bool

	// Preempt, when set, handles the protocol's messages that the fields
	// above do not name, as soon as they are read (see Preempter): ACP's
	// "$/cancel_request", for one, calls Conn.Cancel.
	Preempt Preempter

	// RefusalCode, when set, returns the error code with which a
	// connection under this Protocol answers a call it refuses for r, in
	// place of jsonrpc.CodeLimitExceeded; returning 0 keeps that code.
	// It is called with each refusal and must be safe for concurrent use
	// by multiple goroutines. nil keeps jsonrpc.CodeLimitExceeded for
	// every refusal (LSP).
	RefusalCode func(r Refusal) jsonrpc.Code
}

// RefusalError returns e, the error with which a connection refuses a call
// for r (code jsonrpc.CodeLimitExceeded, data naming why), with the code p
// gives r and the message of that refusal ("Limit exceeded", "Server
// shutting down"); the data stays. It returns e itself when p gives r no
// code of its own. Hosts call it for the refusals they answer themselves.
func (p *Protocol) RefusalError(r Refusal, e *jsonrpc.Error) *jsonrpc.Error {
	if p.RefusalCode == nil || r.message() == "" {
		return e
	}
	code := p.RefusalCode(r)
	if code == 0 || code == e.Code {
		return e
	}
	c := *e
	c.Code, c.Message = code, r.message()
	return &c
}

// mcpRefusalCode gives MCP's refusals their codes.
func mcpRefusalCode(r Refusal) jsonrpc.Code {
	if r == RefusedShutdown {
		return CodeMCPShuttingDown
	}
	return CodeMCPLimitExceeded
}

// LSP is the Language Server Protocol's: "$/cancelRequest" with {"id"},
// answered with jsonrpc.CodeCancelled, and "$/progress" with {"token",
// "value"} for the "workDoneToken" of a call's params; "params": null is
// taken as no params.
var LSP = Protocol{
	CancelMethod:      "$/cancelRequest",
	CancelID:          "id",
	AnswerCancelled:   true,
	ProgressMethod:    "$/progress",
	ProgressToken:     "token",
	ProgressValue:     "value",
	TokenPath:         []string{"workDoneToken"},
	PartialResultPath: []string{"partialResultToken"},
	WorkDoneCreate:    "window/workDoneProgress/create",
	WorkDoneCancel:    "window/workDoneProgress/cancel",
	NullParams:        true,
}

// MCP is the Model Context Protocol's: "notifications/cancelled" with
// {"requestId", "reason"}, after which a cancelled call gets no answer,
// "notifications/progress" with {"progressToken", "progress", "total",
// "message"} for the "_meta.progressToken" of a call's params, and the
// refusals answered with CodeMCPLimitExceeded and CodeMCPShuttingDown.
var MCP = Protocol{
	CancelMethod:   "notifications/cancelled",
	CancelID:       "requestId",
	CancelReason:   "reason",
	ProgressMethod: "notifications/progress",
	ProgressToken:  "progressToken",
	TokenPath:      []string{"_meta", "progressToken"},
	RefusalCode:    mcpRefusalCode,
}

// A refusal is an error of the library's own (of) that a Protocol answers
// with a code of its own (answer): errors.As finds answer first, as the
// Server does for the response, and errors.Is matches either.
type refusal struct{ answer, of *jsonrpc.Error }

func (r *refusal) Error() string   { return r.answer.Error() }
func (r *refusal) Unwrap() []error { return []error{r.answer, r.of} }

// refusalOf returns e, an error with which the Conn refuses a message
// (errShutdown, errNoRoom), with the code of the Conn's Protocol.
func (c *Conn) refusalOf(e *jsonrpc.Error) *jsonrpc.Error {
	r := RefusedLimit
	if e == errShutdown {
		r = RefusedShutdown
	}
	return c.proto.RefusalError(r, e)
}
