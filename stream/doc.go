// Package stream carries JSON-RPC over byte streams: TCP and Unix sockets,
// pipes, standard input and output, or any io.ReadWriteCloser. It holds what
// both ends of a stream need, the framings, and the Server that answers
// requests on the connections of a listener.
//
// A Framing splits a stream into messages: Line (one message per line, the
// default), Header (LSP's Content-Length headers) or Raw (back-to-back JSON
// values). A server reads requests and writes responses with it, and a
// client (package client: Dial, Command, Stream) writes requests and reads
// responses with the same values.
//
//	s := &stream.Server{Server: srv}           // Line framing, Inline ordering
//	go s.Serve(listener)                        // or s.ServeConn(ctx, stream.Stdio())
//	...
//	s.Shutdown(ctx)                             // answers the calls in flight, then closes
//
// # Ordering
//
// With Inline ordering (the default) a connection answers its requests one
// after another, in order, on its read goroutine; a method that never waits
// costs what jsonrpc.Server.ProcessAsync costs, and a pipelined burst of
// requests is answered with few write system calls. With Concurrent
// ordering, calls of methods registered with jsonrpc.Blocking wait on
// goroutines of their own while the connection goes on reading, up to
// MaxInFlight unanswered requests, and responses are written as they
// complete, out of order.
//
// # Writes
//
// Responses are appended to a per-connection buffer, which is written when
// it fills and whenever the connection is about to wait for input, so that a
// burst of requests gets few writes and a lone request is answered at once.
// With Concurrent ordering, replies that finish while the connection waits
// for input are written by a per-connection flusher goroutine, so replies
// finishing together share a write.
//
// # Limits
//
// Every limit is on by default: the connections served at once (MaxConns,
// 4096; at the limit no more are accepted until one ends), the size of one
// message (MaxMessage, 4 MiB), the unanswered requests of a connection
// (MaxInFlight, 64), the time a connection may idle (2 minutes),
// take to send one message (30 s) and take to accept a write (30 s). A
// length a peer declares (Header's Content-Length) is checked against the
// limit before anything is allocated for it, and a message over the limit
// is skipped, not buffered. The size of a response is the jsonrpc.Server's
// limit (jsonrpc.Limits.MaxResponse, 16 MiB), checked as the response is
// built. A panicking method is answered with an internal error by the
// jsonrpc package; the connection goes on.
package stream
