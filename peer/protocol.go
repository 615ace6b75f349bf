package peer

import "github.com/jsonrpc-go/jsonrpc"

// A Protocol is the profile of a protocol built on JSON-RPC, as a Conn
// applies it: the notification by which the two ends of a connection
// cancel calls, how a cancelled call is answered, the protocol's other
// messages of its own (Preempt: progress among them), and the error codes
// the library chooses under it (Codes). The zero Protocol has none of them: a
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

	// NullParams makes the Server take a request's "params": null as
	// absent params (jsonrpc.AcceptNullParams) on this connection, as
	// LSP's clients need: Emacs's sends null params for shutdown and
	// exit.
	NullParams bool

	// Preempt handles the protocol's messages of its own, as soon as they
	// are read (see Preempter), in turn after the cancel notification:
	// progress (package protocol/progress), LSP's work-done cancel,
	// ACP's "$/cancel_request", which calls Conn.Cancel. The slice is
	// shared by the Conns made with the Protocol, which only read it.
	Preempt []Preempter

	// Codes are the error codes the library chooses under the protocol
	// (see jsonrpc.Codes): the Conn's refusals (Limit, Shutdown), the
	// answer to a call its peer cancelled (Cancelled, under
	// AnswerCancelled), to a pull of an unknown sequence (UnknownToken,
	// package protocol/enumerator),
	// and, given to the Server in each call's context, the Server's own
	// (jsonrpc.WithCodes). The zero value: the defaults, and the Server's
	// own codes.
	Codes jsonrpc.Codes
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
	return c.codes.Refuse(e, e == errShutdown)
}
