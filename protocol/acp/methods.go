package acp

// ProtocolVersion is the version of ACP this package speaks, the
// protocolVersion of initialize: 1.
const ProtocolVersion = 1

// The methods of ACP v1 the client calls on the agent.
const (
	MethodInitialize     = "initialize"
	MethodAuthenticate   = "authenticate"
	MethodSessionNew     = "session/new"
	MethodSessionLoad    = "session/load"
	MethodSessionPrompt  = "session/prompt"
	MethodSessionSetMode = "session/set_mode"
	// MethodSessionCancel is a notification: it ends the session's prompt
	// turn, which is then answered with StopCancelled.
	MethodSessionCancel = "session/cancel"
)

// The methods of ACP v1 the agent calls on the client.
const (
	// MethodSessionUpdate is a notification: it streams a prompt turn
	// (see Update).
	MethodSessionUpdate       = "session/update"
	MethodRequestPermission   = "session/request_permission"
	MethodReadTextFile        = "fs/read_text_file"
	MethodWriteTextFile       = "fs/write_text_file"
	MethodTerminalCreate      = "terminal/create"
	MethodTerminalOutput      = "terminal/output"
	MethodTerminalWaitForExit = "terminal/wait_for_exit"
	MethodTerminalKill        = "terminal/kill"
	MethodTerminalRelease     = "terminal/release"
)

// MethodCancelRequest is the notification that cancels a request, sent by
// either side; the profile (Protocol) handles it.
const MethodCancelRequest = "$/cancel_request"

// A StopReason is why a prompt turn ended: the stopReason of the answer to
// session/prompt.
type StopReason string

// The stop reasons of ACP v1.
const (
	StopEndTurn         StopReason = "end_turn"          // the model finished without asking for more
	StopMaxTokens       StopReason = "max_tokens"        // the token limit was reached
	StopMaxTurnRequests StopReason = "max_turn_requests" // the limit of model requests in a turn was reached
	StopRefusal         StopReason = "refusal"           // the agent refuses to go on
	StopCancelled       StopReason = "cancelled"         // the client cancelled the turn (session/cancel)
)
