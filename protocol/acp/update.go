package acp

import (
	"context"
	"errors"

	"github.com/jsonrpc-go/jsonrpc/peer"
)

// ErrNoConn is Update's error when the call did not come over a two-way
// connection, the only kind ACP runs on.
var ErrNoConn = errors.New("jsonrpc: the call did not come over a two-way connection, which ACP needs")

// A SessionNotification is the params of session/update: one update of a
// session, whose kind its "sessionUpdate" member names
// ("agent_message_chunk", "tool_call", "tool_call_update", "plan", ...).
type SessionNotification struct {
	SessionID string `json:"sessionId"`
	Update    any    `json:"update"`
}

// Update sends the client the session/update notification of sessionID
// with update, on the connection of the call that ctx belongs to, and
// returns once it is written or queued behind the connection's writer. A
// turn's updates go before its answer when the method sends them before
// it returns; once ctx has ended (the call cancelled) Update returns its
// error. It is safe for concurrent use by multiple goroutines.
func Update(ctx context.Context, sessionID string, update any) error {
	c := peer.FromContext(ctx)
	if c == nil {
		return ErrNoConn
	}
	return c.Notify(ctx, MethodSessionUpdate, SessionNotification{SessionID: sessionID, Update: update})
}

// A Chunk is the update of a piece of a message, its content a text block:
// AgentMessage and AgentThought make the two the agent streams.
type Chunk struct {
	SessionUpdate string `json:"sessionUpdate"`
	Content       Text   `json:"content"`
}

// Text is ACP's text content block, {"type": "text", "text": ...}.
type Text struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// TextBlock returns the text content block of s.
func TextBlock(s string) Text { return Text{Type: "text", Text: s} }

// AgentMessage returns the update of a piece of the agent's answer, text.
func AgentMessage(text string) Chunk {
	return Chunk{SessionUpdate: "agent_message_chunk", Content: TextBlock(text)}
}

// AgentThought returns the update of a piece of the agent's reasoning,
// text.
func AgentThought(text string) Chunk {
	return Chunk{SessionUpdate: "agent_thought_chunk", Content: TextBlock(text)}
}
