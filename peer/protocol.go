package peer

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

	// NullParams makes the Server take a request's "params": null as
	// absent params (jsonrpc.AcceptNullParams) on this connection, as
	// LSP's clients need: Emacs's sends null params for shutdown and
	// exit.
	NullParams bool
}

// LSP is the Language Server Protocol's: "$/cancelRequest" with {"id"},
// answered with jsonrpc.CodeCancelled, and "$/progress" with {"token",
// "value"} for the "workDoneToken" of a call's params; "params": null is
// taken as no params.
var LSP = Protocol{
	CancelMethod:    "$/cancelRequest",
	CancelID:        "id",
	AnswerCancelled: true,
	ProgressMethod:  "$/progress",
	ProgressToken:   "token",
	ProgressValue:   "value",
	TokenPath:       []string{"workDoneToken"},
	NullParams:      true,
}

// MCP is the Model Context Protocol's: "notifications/cancelled" with
// {"requestId", "reason"}, after which a cancelled call gets no answer, and
// "notifications/progress" with {"progressToken", "progress", "total",
// "message"} for the "_meta.progressToken" of a call's params.
var MCP = Protocol{
	CancelMethod:   "notifications/cancelled",
	CancelID:       "requestId",
	CancelReason:   "reason",
	ProgressMethod: "notifications/progress",
	ProgressToken:  "progressToken",
	TokenPath:      []string{"_meta", "progressToken"},
}
