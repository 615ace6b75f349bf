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
// # Cancellation
//
// A Protocol names the notification that cancels a call (the profiles of
// LSP, MCP, ACP and A2A are under protocol/). It is handled ahead of the
// messages waiting to run: a call still waiting is answered without
// running, and a running call of a Blocking method sees its context
// cancelled; it is then answered with the Protocol's Codes.Cancelled
// (LSP), or not at all (MCP). When the context of one of the Conn's own
// calls ends, Call returns at once and the cancel notification is sent on
// another goroutine. Push sends a notification without waiting, behind
// what the Conn has queued, bounded by Limits.MaxPush and MaxPushBytes.
//
// # The seam
//
// A package above the engine reaches a Conn through a few functions and
// nothing more: Preempt (its messages of its own, such as progress,
// protocol/progress, and $/enumerator pulls, protocol/enumerator),
// Cancel, PushMessage (a notification encoded once), AfterAnswer (run
// something once a call's answer is on its way), Detach (a call's context
// past its answer), Local (its state per connection), OnClose, Limits and
// LimitError (a refusal in the Protocol's code). Package pubsub's topics
// are built on them alone. Below, the engine runs on a transport.Carrier:
// it calls the carrier, never the reverse, and knows of it only what its
// Traits declare.
package peer
