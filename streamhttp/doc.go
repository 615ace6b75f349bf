// Package streamhttp serves a JSON-RPC 2.0 server over Streamable HTTP,
// the HTTP transport of the Model Context Protocol, on which a call is a
// POST and its answer either one JSON document or a stream of server-sent
// events that ends with it. It serves any transport.Handler (a
// *jsonrpc.Server, or middleware around one), and MCP's two eras on one
// endpoint with its MCP profile.
//
//	http.Handle("/mcp", &streamhttp.Handler{Server: srv})
//
// # Requests
//
// Each POST carries one JSON-RPC message:
//
//   - A request runs on a connection of its own (a peer.Conn), whose
//     method may report progress (peer.ProgressOf, on the token of the
//     call's params._meta.progressToken under mcp.Protocol()) and send
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
// # Sessions
//
// With SessionMethod set (MCP 2025-11-25's sessions: "initialize", as the
// MCP profile sets it), a POST of a request of that method without an
// Mcp-Session-Id header begins a session: its answer carries the new id,
// 128 random bits in hex, in Mcp-Session-Id (an error answer begins none).
// The requests that carry the id run on the session's one peer.Conn, for
// its whole life, so that its methods keep state by connection and call
// the client:
//
//   - What a method sends while it runs (progress, notifications, its
//     calls to the client) goes on the stream of the POST of its call, and
//     its answer last; what a method sends outside any call (under a
//     context that is not a call's) goes on the session's GET stream.
//   - The client answers the server's calls in POSTs of their own, which
//     reach the call waiting for them (202).
//   - A GET with the session's id opens its GET stream (one at a time: a
//     second is 409); DELETE ends the session, cancelling its calls. A
//     request with an id that names no session (or an ended one) is
//     answered 404.
//   - Every event of a session's streams has an id, the stream's id and
//     the event's number ("3-7"), and each stream begins with a priming
//     event (an id, the retry field of Retry, and no data). A client whose
//     connection broke resumes a stream with a GET that names the last
//     event it got in Last-Event-ID: it gets the events after it, only
//     those of that stream, then the stream goes on there. The events are
//     kept by an EventStore, a MemoryStore unless EventStore is set.
//   - A client gone from a call's stream does not cancel the call (MCP
//     2025-11-25: a disconnect is not a cancellation); the call goes on,
//     its events kept for the client to resume. A method may end its
//     stream's connection itself, without ending the stream, with
//     CloseStream, so that a long call does not hold a connection open.
//   - A cancel notification (peer.Protocol.CancelMethod) POSTed in the
//     session cancels the call it names, and ends its stream.
//
// # MCP
//
// Handler.MCP applies the rules of the Model Context Protocol to each
// request, deciding its era from the request itself: a request whose
// _meta names a protocol version, or whose MCP-Protocol-Version header
// names a version other than the handshake era's, is a request of MCP
// 2026-07-28, served on its own (no session; GET and DELETE 405; its
// headers checked against its body, HeaderMismatch -32020; an unsupported
// version -32022 with the supported list; an unknown method 404), and
// any other one belongs to the sessions of 2025-11-25. The rules are
// listed under MCP.
//
// # Security
//
// The handler checks what the transport asks of every request: an Origin
// header, when present, that names the handler's own host, a loopback host
// when the handler's host is one, or one of AllowedOrigins (403
// otherwise); a Host that is a loopback name (localhost, 127.0.0.0/8, ::1)
// or one of AllowedHosts when the connection came to a loopback address,
// so that a page of another site cannot reach a local server through DNS
// rebinding (403); POST, or GET and DELETE for sessions (405 otherwise); a
// Content-Type of application/json (415); an Accept that takes
// application/json or text/event-stream (406; a GET must take
// text/event-stream).
//
// Who is calling reaches the methods through jsonrpc.PrincipalOf: the
// Principal that Tokens gives for a request's bearer token (a request
// without one, or with one refused, is answered 401 with a Bearer
// challenge, ahead of the checks above but Host and Origin), or that of
// the verified client certificate of an HTTPS connection. A session's
// calls are those of the subject that began it, with the Principal of
// its latest request, and the requests of another subject do not find it
// (404).
//
// A request of one call that the Server refuses for who is calling
// (jsonrpc.RequireScopes, RequireAuth, CheckScopes; AllowAnonymous lets a
// request without credentials reach the Server) is answered as MCP's
// authorization asks, its error object as the body when it is answered
// with JSON: 401 with the challenge Bearer when the call needs a
// Principal and has none, 403 with Bearer error="insufficient_scope",
// scope="..." naming the scopes the call requires when its Principal
// lacks one; a refused notification the same, without a body. A batch,
// and an answer that goes on an event stream, keep their status. In a
// session the answer's code tells the refusal, in the codes of the
// Protocol (MCP's -31011 and -31012).
//
// # Limits
//
// Every bound is on by default, and each refusal that may pass says when
// to try again (Retry-After). A body is at most MaxMessage bytes (413),
// gzip included, with MaxBuffered bounding the memory of large bodies
// being read (503). MaxConns bounds the requests served at once (503),
// and MaxConnsPerClient those of one client (429). MaxSessions bounds the
// sessions (503 for one more), MaxSessionsPerClient those one client
// begins (429); SessionIdle ends a session unused for that long while
// none of its calls runs, and NewSessionIdle, shorter, one unused since
// its initialize. MaxStreams bounds the streams of a session (its calls
// running, its GET stream, and those kept for resumption, the oldest of
// which make room), and MaxEvents the events kept per stream (a
// Last-Event-ID older than those kept is answered 400). The response of a
// GET that carries a stream ends after StreamIdle without an event, and
// after StreamLifetime in any case; the client opens it again. An event stream carries
// X-Accel-Buffering: no, so that nginx passes each event on at once, and
// a comment every KeepAlive while it waits, so that proxies keep it open.
// An idle session holds about 8 KiB of heap, and the goroutine that reads
// its connection.
//
// A request served on its own is of the client that ClientKey names (by
// default the host of its RemoteAddr), by which the Server shares the
// goroutines of its Blocking calls and the bytes of their request copies
// between clients (jsonrpc.Limits.MaxRunningPerClient, MaxHeldPerClient);
// the calls of a session's connection are of no client. What the handler
// logs of refused requests is bounded, as on every host (see
// Handler.Logger).
//
// # Replicas
//
// Behind a load balancer, several handlers (processes) serve one
// endpoint. Replica names each: the session ids it mints begin with it and
// a '.' ("n0.3f9a..."), so that the balancer routes a request with an
// Mcp-Session-Id to the replica that holds the session (ReplicaOf; the
// nginx recipe of deploy/nginx maps the prefix to an upstream). A
// SessionStore shared by the replicas (package redisrpc keeps one in
// Redis) lets a replica serve a session it does not hold, begun by another
// or before it restarted: the session is revived on a new connection, with
// its id, the MCP protocol version its initialize negotiated, its client
// and the subject of the Principal that began it, whose requests alone
// find it (SessionState, SessionOf). With an EventStore shared too, a stream
// resumed with Last-Event-ID on a replica that did not carry it replays
// the events it missed; the call that sent them ran on the replica that
// ended and runs no more, so what was kept is all the client gets. DELETE
// and idle expiry remove a session from the store; Shutdown and Close
// leave it there for another replica. Without a SessionStore, sessions
// live in the handler's memory only.
//
// A store shared over the network may be slow or down: the handler waits
// for it at most StoreTimeout a call, leaves it alone for a while after
// failures in a row, and does what no request needs (forgetting events,
// saving a session in use again) in the background, so that the sessions
// it holds are served meanwhile, their events written but not kept. A
// request that needs the store then (a session only the store holds) is
// answered 503 with Retry-After and the JSON-RPC error StoreUnavailable
// (ErrStoreUnavailable).
//
// # Concurrency
//
// A Handler is safe for concurrent use. Each session's connection reads
// the session's POSTs in the order they were taken, and runs them as
// peer.Conn does (its methods registered jsonrpc.Blocking on goroutines
// of their own); each stream is written by one goroutine at a time, under
// its lock, so that its events keep their order and numbers.
//
// # Shutdown
//
// Shutdown refuses new requests (503), lets each POST being served end
// with its answer, ends the GET streams at once, then ends the sessions;
// Close ends everything at once.
package streamhttp
