// Package peer runs two-way JSON-RPC 2.0 connections: each end answers the
// other's calls with a *jsonrpc.Server and calls the other on the same
// transport, as language servers and their editors, and agents and their
// tools, do.
//
// A Conn reads a transport.Conn (the framing of a byte stream, WebSocket
// messages, a client's channel) on one goroutine, Run, and writes it from
// one goroutine at a time, its writer. The answers to its
// own calls and its peer's cancel notifications are handled there as soon
// as they are read; the peer's calls and notifications go to the Server,
// in the order the Conn's Ordering says. Package stream serves every
// connection of a stream.Server as a Conn, package ws every WebSocket, and
// package client's Client is a Conn over its channel.
//
// # Calling the peer from a method
//
// A method finds the connection its call came on in its context:
//
//	func configuration(ctx context.Context, uri string) (Settings, error) {
//		var s Settings
//		err := peer.FromContext(ctx).Call(ctx, "workspace/configuration", params, &s)
//		return s, err
//	}
//
// A method that waits for its peer's answer must be registered with
// jsonrpc.Blocking: other methods run on the goroutine that reads the
// connection, the one that would read that answer, and Call refuses to
// wait there (ErrNotBlocking) rather than deadlock. Notify never waits for
// an answer and may be used from any method.
//
// # Cancellation and progress
//
// A Protocol names the notifications that cancel a call and report its
// progress; LSP and MCP are provided. A cancel notification is handled
// ahead of the messages waiting to run: a call still waiting is answered
// without running, and a running call of a Blocking method sees its
// context cancelled. The call is then answered with jsonrpc.CodeCancelled
// (LSP), or not at all (MCP). When the context of one of the Conn's own
// calls ends, Call returns at once and the cancel notification is sent on
// another goroutine. A method reports progress to its caller with
// ProgressOf; a caller asks for progress with OnProgress.
//
// # Push and sequences
//
// Push sends a notification without waiting, behind what the Conn has
// queued, in a queue bounded by Limits.MaxPush and MaxPushBytes. A method
// that returns an iter.Seq or iter.Seq2 streams its items as its caller's
// Protocol shapes them: StreamJsonRpc's $/enumerator protocol by default,
// LSP partial results when the call carries a partialResultToken.
//
// # The seam
//
// A package above the engine reaches a Conn through a few functions and
// nothing more: PushMessage (a notification encoded once), AfterAnswer (run
// something once a call's answer is on its way), Local (its state per
// connection), OnClose, Limits, LimitError (a refusal in the Protocol's
// code) and LiveSequence. Package pubsub's topics are built on them alone.
// Below, the engine runs on a transport.Carrier: it calls the carrier,
// never the reverse, and knows of it only what its Traits declare.
package peer
