package peer

import "github.com/jsonrpc-go/jsonrpc"

// A Protocol is the profile of a protocol built on JSON-RPC, as a Conn
// applies it: the notifications by which the two ends of a connection
// cancel calls and report progress, how a cancelled call is answered, the
// protocol's other messages of its own (Preempt), and the error codes the
// library chooses under it (Codes). The zero Protocol has none of them: a
// Conn then passes every message to its Server, and the library's codes
// are the defaults. The packages under protocol/ construct the profiles of
// LSP, MCP, ACP and A2A; a profile is a value, and a Conn keeps its own
// copy.
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

	// NullParams makes the Server take a request's "params": null as
	// absent params (jsonrpc.AcceptNullParams) on this connection, as
	// LSP's clients need: Emacs's sends null params for shutdown and
	// exit.
	NullParams bool

	// Preempt, when set, handles the protocol's messages that the fields
	// above do not name, as soon as they are read (see Preempter): ACP's
	// "$/cancel_request", for one, calls Conn.Cancel.
	Preempt Preempter

	// Codes are the error codes the library chooses under the protocol
	// (see jsonrpc.Codes): the Conn's refusals (Limit, Shutdown), the
	// answer to a call its peer cancelled (Cancelled, under
	// AnswerCancelled), to a pull of an unknown sequence (UnknownToken),
	// and, given to the Server in each call's context, the Server's own
	// (jsonrpc.WithCodes). The zero value: the defaults, and the Server's
	// own codes.
	Codes jsonrpc.Codes
}

// Refuse returns e, an error of the library's own that refuses a call at a
// limit, or at shutdown when shutdown is set (code
// jsonrpc.CodeLimitExceeded, data naming why), with the code the Protocol
// gives that refusal (Codes.Limit, Codes.Shutdown) and its message ("Limit
// exceeded", "Server shutting down"); the data stays. It returns e itself
// when the code is e's. Hosts call it for the refusals they answer
// themselves.
func (p *Protocol) Refuse(e *jsonrpc.Error, shutdown bool) *jsonrpc.Error {
	codes := p.Codes.WithDefaults()
	code, msg := codes.Limit, "Limit exceeded"
	if shutdown {
		code = codes.Shutdown
		if code != codes.Limit {
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

// A refusal is an error of the library's own (of) that a Protocol answers
// with a code of its own (answer): errors.As finds answer first, as the
// Server does for the response, and errors.Is matches either.
type refusal struct{ answer, of *jsonrpc.Error }

func (r *refusal) Error() string   { return r.answer.Error() }
func (r *refusal) Unwrap() []error { return []error{r.answer, r.of} }

// refusalOf returns e, an error with which the Conn refuses a message
// (errShutdown, errNoRoom), with the code of the Conn's Protocol.
func (c *Conn) refusalOf(e *jsonrpc.Error) *jsonrpc.Error {
	return c.proto.Refuse(e, e == errShutdown)
}
