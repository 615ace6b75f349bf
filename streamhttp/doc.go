// Package streamhttp serves a JSON-RPC 2.0 server over Streamable HTTP,
// the HTTP transport of the Model Context Protocol, on which a call is a
// POST and its answer either one JSON document or a stream of server-sent
// events that ends with it.
//
// Each POST carries one JSON-RPC message:
//
//   - A request runs on a connection of its own (a peer.Conn), whose
//     method may report progress (peer.ProgressOf, on the token of the
//     call's params._meta.progressToken under peer.MCP) and send
//     notifications (peer.FromContext(ctx).Notify) before it answers. When
//     it answers before it sends anything else, the answer is an
//     application/json body, as over package httprpc; otherwise, when the
//     client accepts text/event-stream, the POST's answer becomes an event
//     stream: each message one event ("event: message", "data: " and the
//     JSON), the answer last, after which the stream ends. A client that
//     closes the stream (or its connection) cancels the method's context.
//     A client that accepts only application/json gets the answer alone.
//   - A notification, or a response, is answered 202 Accepted with no
//     body, once the server has taken it.
//   - A batch is answered as one application/json array, as over httprpc.
//
// The handler checks what the transport asks of every request: POST only
// (405 otherwise, with Allow: POST); an Origin header, when present, that
// names the handler's own host, a loopback host when the handler's host is
// one, or one of AllowedOrigins (403 otherwise); a Host that is a loopback
// name (localhost, 127.0.0.0/8, ::1) or one of AllowedHosts when the
// connection came to a loopback address, so that a page of another site
// cannot reach a local server through DNS rebinding (403); a Content-Type
// of application/json (415); an Accept that takes application/json or
// text/event-stream (406); a body of at most MaxMessage bytes (413), gzip
// included, with MaxBuffered bounding the memory of large bodies being
// read (503). An event stream carries X-Accel-Buffering: no, so that nginx
// passes each event on at once, and a comment every KeepAlive while it
// waits, so that proxies keep it open.
package streamhttp
