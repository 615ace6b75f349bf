// Package stream serves JSON-RPC over byte streams: TCP and Unix sockets,
// pipes, standard input and output, or any io.ReadWriteCloser. Its Server
// answers requests on the connections of a listener (Serve) or on one
// connection (ServeConn).
//
// A framing of package framing splits a connection's input into messages
// and frames the answers: framing.Line (one message per line, the
// default), framing.Header (LSP's Content-Length headers) or framing.Raw
// (back-to-back JSON values). A client (package client: Dial, Command,
// Stream) writes requests and reads responses with the same values; it
// does not import this package.
//
//	s := &stream.Server{Server: srv}           // framing.Line, Ordered ordering
//	go s.Serve(listener)                        // or s.ServeConn(ctx, stream.Stdio())
//	...
//	s.Shutdown(ctx)                             // answers every request read, then closes
//
// # Two-way connections and ordering
//
// Each connection is a peer.Conn: both ends may call each other on it. A
// method reaches its peer through its context (peer.FromContext) and may
// notify it, or, when it is registered with jsonrpc.Blocking, call it and
// wait for the answer; the connection reads on meanwhile, so that the
// answer is not stuck behind the method that waits for it. With a
// Protocol (lsp.Protocol(), mcp.Protocol()) the connection also handles its peer's
// cancel notifications, ahead of every message waiting to run, and
// methods report progress (peer.ProgressOf).
//
// Methods not registered Blocking run on the connection's read goroutine,
// in order: a method that never waits costs what
// jsonrpc.Server.ProcessAsync costs, and a pipelined burst of requests is
// answered with few write system calls. The Order says what happens while
// Blocking methods run on goroutines of their own: Ordered (the default)
// runs calls concurrently and notifications in order, Sequential runs one
// message at a time and answers in request order, and Concurrent runs
// everything at once; all three up to MaxInFlight.
//
// # TLS and who is calling
//
// With a TLSConfig, the Server serves TLS (over TCP; client.DialTLS dials
// it); with ClientCAs and a ClientAuth that verifies client certificates,
// mutual TLS. The handshake runs on the connection's goroutine, within
// ReadTimeout. A method learns who is calling with jsonrpc.PrincipalOf:
// the subject of the client's verified certificate, found once per
// connection (transport.TLSPrincipal). A connection that authenticates
// nobody, such as standard input and output, has the Principal of the
// context given to ServeConn, if the program gives one
// (jsonrpc.WithPrincipal), and none otherwise.
//
//	s := &stream.Server{Server: srv, TLSConfig: &tls.Config{
//		Certificates: []tls.Certificate{cert},
//		ClientCAs:    clientCAs,
//		ClientAuth:   tls.RequireAndVerifyClientCert,
//	}}
//
// # Writes
//
// Responses are appended to a per-connection buffer, which is written when
// it fills and whenever the connection is about to wait for input, so that a
// burst of requests gets few writes and a lone request is answered at once.
// Answers of Blocking methods, and the connection's own calls, are written
// and flushed by the goroutine that has them, under a per-connection lock.
//
// # Limits
//
// Every bound is on by default; each is a field of Server, with its
// default:
//
//   - MaxConns (4096): the connections served at once; at the limit no
//     more are accepted until one ends.
//   - MaxMessage (4 MiB): the size of one incoming message. A length a
//     peer declares (Header's Content-Length) is checked before anything
//     is allocated for it; a message over the limit is never buffered
//     whole, and is answered with jsonrpc.CodeLimitExceeded and its id
//     when the bytes read of it hold one.
//   - MaxInFlight (64): the messages of a connection that run on
//     goroutines of their own, and again the ones that wait to run. The
//     calls of Blocking methods are also bounded server-wide by the
//     jsonrpc.Server (jsonrpc.Limits.MaxRunning).
//   - IdleTimeout (2 minutes): the wait for the next message to begin.
//   - ReadTimeout (30 s): the time to read one message once it has begun,
//     and the TLS handshake.
//   - WriteTimeout (30 s): the time one write may take.
//   - LingerTimeout (1 s): how long a connection that the server closes
//     (Shutdown, a timeout, a framing error) goes on reading, after its
//     last answer, for the peer to close first, so that unread input does
//     not make the kernel reset the connection and lose those answers.
//
// The size of a response is the jsonrpc.Server's limit
// (jsonrpc.Limits.MaxResponse, 16 MiB), checked as the response is built.
// A panicking method is answered with an internal error by the jsonrpc
// package; the connection goes on. So does a method that calls
// runtime.Goexit on the connection's goroutine (one not registered
// Blocking): the connection answers each request of the message with an
// internal error and goes on serving on a new goroutine, while the
// goroutine that called ServeConn ends, as Goexit ends it.
package stream
