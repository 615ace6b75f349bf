package stream

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"sync"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/framing"
	"github.com/jsonrpc-go/jsonrpc/internal/ratelog"
	"github.com/jsonrpc-go/jsonrpc/peer"
	"github.com/jsonrpc-go/jsonrpc/transport"
)

// ErrServerClosed is returned by Serve and ServeConn after Shutdown or Close.
var ErrServerClosed = errors.New("stream: server closed")

// Ordering says in which order a connection runs its peer's messages; see
// peer.Ordering.
type Ordering = peer.Ordering

// The orderings of package peer.
const (
	// Ordered (the default) runs calls concurrently and notifications in
	// order: a notification that runs on holds back the messages after
	// it.
	Ordered = peer.Ordered
	// Sequential runs messages one after another, answered in request
	// order.
	Sequential = peer.Sequential
	// Concurrent runs every message at once, up to MaxInFlight.
	Concurrent = peer.Concurrent
)

// DefaultLingerTimeout is the default of LingerTimeout: long enough for a
// peer on a network to read the last answers and close its end, short
// enough not to hold a connection's slot (MaxConns) for long, and what
// net/http waits in the same case, doubled.
const DefaultLingerTimeout = time.Second

// A Server serves a *jsonrpc.Server over byte streams: the connections of a
// net.Listener (Serve) or any io.ReadWriteCloser (ServeConn).
//
// The zero value is ready to use with the defaults of transport.Limits; set the fields
// before the first call to Serve or ServeConn and do not change them after.
// A Server's methods are safe for concurrent use.
//
// Each method call's context carries the connection as its transport's
// context value (jsonrpc.Call.ContextValue): the net.Conn
// accepted by Serve, or the io.ReadWriteCloser given to ServeConn. It is
// cancelled when the connection closes: when the peer's input ends or fails,
// after a write fails, and on Close.
//
// Timeouts apply to connections that support deadlines (net.Conn, and
// ReadWriteCloser over deadline-capable files such as pipes); others are
// served without them.
//
// Over TLS (TLSConfig, or the *tls.Conn of a tls.Listen listener), a
// method learns who is calling with jsonrpc.PrincipalOf: the Principal of
// the connection's verified client certificate (transport.TLSPrincipal),
// found once, at the handshake. Other connections authenticate nobody:
// their calls have the Principal of the context given to ServeConn, if
// any (jsonrpc.WithPrincipal), as a program serving standard input and
// output may give one.
type Server struct {
	// Server answers the requests. nil serves an empty method table, so
	// that every call is answered with "Method not found".
	Server transport.Handler

	// Framing splits the input into messages and frames the responses:
	// framing.Line, framing.Header, framing.Raw, or one of the user's own.
	// nil means framing.Line.
	Framing framing.Framing

	// Order is how a connection runs its peer's messages: Ordered (the
	// zero value), Sequential or Concurrent.
	Order Ordering

	// Protocol names the notifications by which the two ends cancel calls
	// and report progress: lsp.Protocol(), mcp.Protocol(), or the zero Protocol (none).
	Protocol peer.Protocol

	// Limits bound the connections, the same on every host (see
	// transport.Limits; the zero value means the defaults). Over a byte stream:
	//
	//   - A message over MaxMessage is answered with
	//     jsonrpc.CodeLimitExceeded, data naming the limit, and the
	//     message's id when the bytes read of it hold one
	//     (framing.TooLargeError.ID): Line and Header read such a message
	//     to its end without buffering it, answer it there and go on; Raw
	//     answers at once and closes the connection, since it cannot find
	//     the end.
	//   - A message that would pass MaxBuffered is answered with
	//     CodeLimitExceeded ("server busy", id null) and its connection
	//     closed.
	//   - Under a Protocol with a code of its own for a limit's refusal
	//     (peer.Protocol.Codes: mcp.Protocol()'s -31005), that code answers
	//     in place of CodeLimitExceeded, for MaxMessage and MaxBuffered.
	//   - At MaxConns, over all the Server's listeners and ServeConn calls,
	//     Serve holds the connection it accepted last, unserved, and
	//     accepts no other until a connection ends, so that the kernel's
	//     listen backlog holds the rest and the number of open files stays
	//     bounded (by MaxConns and one per listener); ServeConn waits
	//     likewise before serving. An idle connection holds about 75 KiB
	//     (its read and write buffers and its goroutine), so the default
	//     4096 of them about 300 MiB.
	//   - White space between messages (blank lines, the newline after a
	//     Raw value) does not begin a message for IdleTimeout and
	//     ReadTimeout, nor restart the wait; with a Framing whose Reader has
	//     no Begun method (see framing.Reader), any byte begins one.
	//   - The timeouts apply to connections that take deadlines.
	transport.Limits

	// TLSConfig, when set, serves every connection over TLS with it: those
	// Serve accepts, and the net.Conns given to ServeConn (another
	// io.ReadWriteCloser is refused, with an error). With its ClientCAs
	// and a ClientAuth that verifies client certificates
	// (tls.RequireAndVerifyClientCert, or tls.VerifyClientCertIfGiven),
	// the connections are mutual TLS, and the subject of a client's
	// certificate reaches its calls (see jsonrpc.PrincipalOf). The
	// handshake runs on the connection's goroutine, before any message,
	// within ReadTimeout; a connection whose handshake fails or times out
	// is closed (logged at slog.LevelWarn), and ServeConn returns the
	// error. A connection that is a *tls.Conn already, as a listener of
	// tls.Listen accepts them, is served over its own TLS whether
	// TLSConfig is set or not. nil: plain connections.
	TLSConfig *tls.Config

	// Budget, when set, is the budget of MaxBuffered's bytes that the
	// server shares with other hosts (see transport.Budget), so that all of
	// them together hold at most its Max; MaxBuffered is then not used.
	Budget *transport.Budget

	// LingerTimeout is how long a connection that the server ends while
	// its peer may still be sending (at Shutdown, on a timeout, or after
	// input that breaks the framing or its limit) goes on reading, after
	// its last answer is written and its writing side shut down, for the
	// peer to close its end: closing with input unread would make the
	// kernel reset the connection, and the peer lose answers it had not
	// read yet. The input read meanwhile is dropped. It applies to
	// connections with CloseWrite and read deadlines (TCP and Unix
	// sockets; ReadWriteCloser over files with deadlines); others close at
	// once. 0 means DefaultLingerTimeout (1 s); a negative value disables
	// it.
	LingerTimeout time.Duration

	// Logger, when set, receives structured records of what the Server
	// does with its connections (each connection's records carry its
	// peer's address as "remote", when it has one):
	//
	//   - slog.LevelDebug: a connection opened and closed, with the error
	//     that ended it ("error"), if any.
	//   - slog.LevelInfo: shutdown progress: Shutdown or Close begun, with
	//     the connections open ("conns"), and Shutdown done.
	//   - slog.LevelWarn: protocol errors (input that breaks the framing, a
	//     message over MaxMessage, a message that stalls past ReadTimeout),
	//     limit refusals (MaxConns reached, so that a connection waits; a
	//     message refused for MaxBuffered; a message refused at Shutdown or
	//     past MaxInFlight, see peer.Options.Logger), errors accepting
	//     connections, and a Shutdown that ran out of time.
	//
	// nil, the default, logs nothing. The jsonrpc.Server logs what its
	// methods do (jsonrpc.UseLogger). A peer decides how often most of
	// these happen, so the Server logs at most 10 records of one level and
	// message in 10 seconds, then one of how many it dropped (package
	// ratelog; a Logger whose handler was made by ratelog.New keeps its
	// own bounds).
	Logger *slog.Logger

	// ErrorLog, the older log of the two, receives a line for each
	// connection that ends with an error other than the peer's end of
	// input, and for errors accepting connections. nil logs nothing. It
	// works alongside Logger, which says more.
	ErrorLog *log.Logger

	// ClientKey names the client of a connection, for
	// Limits.MaxConnsPerClient; "" puts the connection in no client's
	// share. nil means transport.ClientOf of the connection's RemoteAddr, when
	// it has one: the IP address of a TCP connection. A connection past
	// its client's share is answered with one error, id null (code
	// jsonrpc.CodeLimitExceeded, or the Protocol's; data "too many
	// connections from this client"), and closed, and ServeConn returns
	// transport.ErrClientFull.
	ClientKey func(c io.ReadWriteCloser) string

	host     transport.Host    // the listeners and connections, and their shutdown
	once     sync.Once         // makes slots and buffered
	slots    chan struct{}     // one element per connection served (MaxConns)
	buffered *transport.Budget // MaxBuffered
	log      *slog.Logger      // Logger within ratelog's bounds, made with the gates
}

// settings are a Server's fields with the defaults applied (a negative
// timeout is none).
type settings struct {
	handler  transport.Handler
	framing  framing.Framing
	order    Ordering
	protocol peer.Protocol
	transport.Limits
	linger time.Duration
}

func (s *Server) settings() settings {
	st := settings{
		handler:  s.Server,
		framing:  s.Framing,
		order:    s.Order,
		protocol: s.Protocol,
		Limits:   s.Limits.WithDefaults(),
		linger:   timeout(s.LingerTimeout, DefaultLingerTimeout),
	}
	if st.handler == nil {
		st.handler = jsonrpc.NewServer()
	}
	if st.framing == nil {
		st.framing = framing.Line
	}
	return st
}

func timeout(d, def time.Duration) time.Duration {
	switch {
	case d == 0:
		return def
	case d < 0:
		return 0
	}
	return d
}

// Serve accepts connections on l and serves each on a goroutine of its own
// until Shutdown or Close, after which it returns ErrServerClosed. While the
// Server serves MaxConns connections it accepts none (see MaxConns). It returns
// any other error of l.Accept that is not temporary. Serve closes l when it
// returns. Connections are served with context.Background as the base of
// their calls' contexts.
func (s *Server) Serve(l net.Listener) error {
	if !s.host.AddListener(l) {
		l.Close()
		return ErrServerClosed
	}
	defer func() {
		s.host.RemoveListener(l)
		l.Close()
	}()

	var backoff time.Duration
	for {
		nc, err := l.Accept()
		if err != nil {
			if s.host.Closing() {
				return ErrServerClosed
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() || isTemporary(err) {
				// Out of file descriptors and the like: wait, then retry.
				backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
				s.logf("stream: accept error: %v; retrying in %v", err, backoff)
				if l := s.logger(); l != nil {
					l.Warn("accept error; retrying", "error", err, "backoff", backoff)
				}
				t := time.NewTimer(backoff)
				<-t.C
				continue
			}
			return err
		}
		backoff = 0
		if err := s.acquire(context.Background(), nc); err != nil {
			nc.Close()
			return err
		}
		go func() {
			if err := s.serveConn(context.Background(), nc); err != nil && err != ErrServerClosed {
				s.logf("stream: connection %v: %v", nc.RemoteAddr(), err)
			}
		}()
	}
}

// gatesBudget returns the Server's MaxBuffered budget, made with the gates.
func (s *Server) gatesBudget() *transport.Budget {
	s.gates()
	return s.buffered
}

// gates returns the Server's connection slots, making them and the
// MaxBuffered budget on first use.
func (s *Server) gates() chan struct{} {
	s.once.Do(func() {
		lim := s.Limits.WithDefaults()
		s.slots = make(chan struct{}, lim.MaxConns)
		s.buffered = s.Budget
		if s.buffered == nil {
			s.buffered = transport.NewBudget(lim.MaxBuffered)
		}
		s.log = ratelog.Wrap(s.Logger)
	})
	return s.slots
}

// logger returns Logger within ratelog's bounds (see Logger), made with the
// gates; nil when Logger is nil.
func (s *Server) logger() *slog.Logger {
	s.gates()
	return s.log
}

// acquire takes a connection slot for c, waiting while MaxConns
// connections are served. It fails when the Server closes or ctx ends
// first.
func (s *Server) acquire(ctx context.Context, c io.ReadWriteCloser) error {
	slots := s.gates()
	select {
	case slots <- struct{}{}:
		return nil
	default:
	}
	if l := s.logger(); l != nil {
		l.LogAttrs(ctx, slog.LevelWarn, "connection limit reached; waiting", append(remoteAttrs(c), slog.Int("max_conns", cap(slots)))...)
	}
	select {
	case slots <- struct{}{}:
		return nil
	case <-s.host.Closed():
		return ErrServerClosed
	case <-ctx.Done():
		return ctx.Err()
	}
}

// release gives back a slot taken by acquire.
func (s *Server) release() { <-s.slots }

func isTemporary(err error) bool {
	t, ok := err.(interface{ Temporary() bool })
	return ok && t.Temporary()
}

// ServeConn serves the connection c until the peer's input ends, an error
// ends it, ctx is cancelled, or the Server is shut down, and then closes c.
// Methods' contexts derive from ctx and carry c as the transport's context
// value. c may be any io.ReadWriteCloser: a net.Conn, or a reader and writer
// joined with ReadWriteCloser (Stdio for standard input and output). While
// the Server serves MaxConns connections, ServeConn waits for one to end
// before it begins.
//
// A method that calls runtime.Goexit on the connection's goroutine ends
// the goroutine that called ServeConn, which then does not return: the
// connection is served on to its end on another goroutine (see the package
// documentation).
//
// It returns nil when the peer's input ended (io.EOF at a message boundary)
// and every response was written; ErrServerClosed after Shutdown or Close;
// ctx's error when ctx was cancelled; otherwise the error that ended the
// connection (a read or write error, a timeout, an error wrapping
// framing.ErrMalformed, or a *framing.TooLargeError the framing cannot
// recover from).
func (s *Server) ServeConn(ctx context.Context, c io.ReadWriteCloser) error {
	if err := s.acquire(ctx, c); err != nil {
		c.Close()
		return err
	}
	return s.serveConn(ctx, c)
}

// serveConn serves c in a slot taken by acquire; the connection gives it
// back when it ends (forget).
func (s *Server) serveConn(ctx context.Context, c io.ReadWriteCloser) error {
	st := s.settings()
	c, principal, err := s.handshake(ctx, c, st.ReadTimeout)
	if err != nil {
		c.Close()
		s.release()
		return err
	}
	client := s.clientKey(c)
	cn := newConn(s, ctx, c, client, principal, st)
	switch s.host.AddFrom(cn, client, 0, st.MaxConnsPerClient) {
	case nil:
	case transport.ErrClientFull:
		if cn.log != nil {
			cn.log.Warn("connection refused", "reason", "too many connections from this client", "max_conns_per_client", st.MaxConnsPerClient)
		}
		cn.refuseClient()
		cn.close(transport.ErrClientFull)
		cn.stopAf()
		s.release()
		return transport.ErrClientFull
	default:
		cn.close(ErrServerClosed)
		cn.stopAf()
		s.release()
		return ErrServerClosed
	}
	if cn.log != nil {
		cn.log.Debug("connection opened")
	}
	return cn.serve()
}

// handshake returns c over TLS, with its handshake done, and the
// Principal of its verified client certificate (nil for none): c itself
// when it is a *tls.Conn, c wrapped with TLSConfig otherwise; c and a nil
// Principal, unchanged, when it is not a *tls.Conn and TLSConfig is nil.
// The handshake is bounded by timeout (when positive), ctx, and the
// Server's Close or Shutdown.
func (s *Server) handshake(ctx context.Context, c io.ReadWriteCloser, timeout time.Duration) (io.ReadWriteCloser, *jsonrpc.Principal, error) {
	tc, ok := c.(*tls.Conn)
	if !ok {
		if s.TLSConfig == nil {
			return c, nil, nil
		}
		nc, ok := c.(net.Conn)
		if !ok {
			return c, nil, errNotNetConn
		}
		tc = tls.Server(nc, s.TLSConfig)
	}
	var cancel context.CancelFunc
	if timeout > 0 {
		ctx, cancel = context.WithTimeout(ctx, timeout)
	} else {
		ctx, cancel = context.WithCancel(ctx)
	}
	defer cancel()
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-s.host.Closed():
			cancel()
		case <-done:
		}
	}()
	if err := tc.HandshakeContext(ctx); err != nil {
		if l := s.logger(); l != nil {
			l.LogAttrs(ctx, slog.LevelWarn, "TLS handshake failed", append(remoteAttrs(c), slog.String("error", err.Error()))...)
		}
		if s.host.Closing() {
			return tc, nil, ErrServerClosed
		}
		return tc, nil, fmt.Errorf("stream: TLS handshake: %w", err)
	}
	cs := tc.ConnectionState()
	return tc, transport.TLSPrincipal(&cs), nil
}

var errNotNetConn = errors.New("stream: TLSConfig is set, and the connection is not a net.Conn")

// forget removes a connection that has ended and closed, and gives back its
// slot.
func (s *Server) forget(c *conn) {
	s.host.Remove(c)
	s.release()
}

// Shutdown stops the Server gracefully. It closes the listeners at once,
// so that no connection is accepted, and on every connection stops reading:
// the calls that have started finish and their answers are written, and the
// requests read but not started are answered with jsonrpc.CodeLimitExceeded
// and the data "server shutting down", each with its id (the request did
// not run, and may be sent again, to another server); notifications among
// them are dropped. Then each connection shuts down its writing side, so
// that its peer reads every answer and then the end of the input, and
// closes once the peer has closed its end or LingerTimeout has passed.
//
// If ctx ends first, Shutdown closes everything as Close does, cancelling
// the calls still running, and returns ctx's error. Serve and ServeConn
// return ErrServerClosed, and later calls of them fail with it.
func (s *Server) Shutdown(ctx context.Context) error {
	return s.host.Shutdown(ctx, s.Logger)
}

// Close closes the listeners and every connection at once; calls in flight
// see their contexts cancelled and their responses are not written. It
// returns the first error closing a listener. Serve and ServeConn return
// ErrServerClosed; their connections' goroutines end as soon as the calls
// in flight return.
func (s *Server) Close() error {
	return s.host.Close(s.Logger)
}

// remoteAttrs returns the "remote" attribute of c's peer's address, when c
// has one.
// clientKey names c's client (ClientKey).
func (s *Server) clientKey(c io.ReadWriteCloser) string {
	if s.ClientKey != nil {
		return s.ClientKey(c)
	}
	if ra, ok := c.(interface{ RemoteAddr() net.Addr }); ok {
		return transport.ClientOf(ra.RemoteAddr())
	}
	return ""
}

func remoteAttrs(c io.ReadWriteCloser) []slog.Attr {
	if ra, ok := c.(interface{ RemoteAddr() net.Addr }); ok {
		if a := ra.RemoteAddr(); a != nil {
			return []slog.Attr{slog.String("remote", a.String())}
		}
	}
	return nil
}

func (s *Server) logf(format string, args ...any) {
	if s.ErrorLog != nil {
		s.ErrorLog.Printf(format, args...)
	}
}
