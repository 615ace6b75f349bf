package stream

import (
	"context"
	"errors"
	"io"
	"log"
	"log/slog"
	"net"
	"sync"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/framing"
	"github.com/jsonrpc-go/jsonrpc/internal/budget"
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

// Default settings of a Server.
const (
	// DefaultMaxConns is the default of MaxConns. An idle connection holds
	// about 75 KiB (its read and write buffers and its goroutine), so 4096
	// of them about 300 MiB; 4096 open files fit the usual limits of a
	// process (Go raises the soft limit to the hard one, 524288 under
	// systemd) with room for the rest of the program; and it matches the
	// default of jsonrpc.Limits.MaxRunning, one waiting call per connection.
	DefaultMaxConns     = 4096
	DefaultMaxBuffered  = 64 << 20
	DefaultMaxInFlight  = 64
	DefaultIdleTimeout  = 2 * time.Minute
	DefaultReadTimeout  = 30 * time.Second
	DefaultWriteTimeout = 30 * time.Second
	// DefaultLingerTimeout is the default of LingerTimeout: long enough for
	// a peer on a network to read the last answers and close its end, short
	// enough not to hold a connection's slot (MaxConns) for long, and what
	// net/http waits in the same case, doubled.
	DefaultLingerTimeout = time.Second
)

// A Server serves a *jsonrpc.Server over byte streams: the connections of a
// net.Listener (Serve) or any io.ReadWriteCloser (ServeConn).
//
// The zero value is ready to use with the defaults below; set the fields
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
type Server struct {
	// Server answers the requests. nil serves an empty method table, so
	// that every call is answered with "Method not found".
	Server transport.Handler

	// Framing splits the input into messages and frames the responses:
	// framing.Line, framing.Header, framing.Raw, or one of the user's own.
	// nil means framing.Line.
	Framing framing.Framing

	// MaxMessage is the size limit of one incoming message, in bytes;
	// <= 0 means framing.DefaultMaxMessage (4 MiB). A message over it is
	// answered with jsonrpc.CodeLimitExceeded, data naming the limit, and
	// the message's id when the bytes read of it hold one
	// (framing.TooLargeError.ID): Line and Header read such a message to
	// its end without buffering it, answer it there and go on; Raw answers
	// at once and closes the connection, since it cannot find the end.
	// Nothing is ever allocated from a length the peer declares beyond it.
	MaxMessage int

	// MaxBuffered bounds the memory that messages larger than 64 KiB hold
	// while they are read, over all the Server's connections together,
	// counting twice the bytes read past 64 KiB (a buffer that grows as
	// they arrive holds up to that); <= 0 means DefaultMaxBuffered (64 MiB). A message that would pass it
	// is answered with CodeLimitExceeded ("server busy", id null) and its
	// connection closed, so that peers that send large messages slowly
	// cannot hold MaxConns × MaxMessage bytes between them. Messages up to
	// 64 KiB do not count.
	MaxBuffered int64

	// MaxConns is how many connections the Server serves at once, over all
	// its listeners and ServeConn calls; <= 0 means DefaultMaxConns (4096).
	// At the limit Serve holds the connection it accepted last, unserved,
	// and accepts no other until a connection ends, so that the kernel's
	// listen backlog holds the rest and the number of open files stays
	// bounded (by MaxConns and one per listener); ServeConn waits likewise
	// before serving. The connections being served are not affected.
	MaxConns int

	// MaxInFlight is how many messages (a call, a notification or a
	// batch) of one connection may run on goroutines of their own at once
	// (methods registered jsonrpc.Blocking), and how many more may wait
	// to run; <= 0 means DefaultMaxInFlight (64). When both are reached
	// the connection stops reading until one is answered; nothing is lost
	// (see peer.Options.MaxInFlight for the case of a connection that
	// waits for its peer's answer). It bounds what a connection holds for
	// its unanswered messages (each keeps a copy of its request); the
	// goroutines of the calls are bounded server-wide by
	// jsonrpc.Limits.MaxRunning, past which a call runs on the
	// connection's goroutine, which stops reading meanwhile.
	MaxInFlight int

	// MaxQueued bounds the bytes of the messages of one connection that
	// wait to run (see MaxInFlight); <= 0 means peer.DefaultMaxQueued
	// (4 MiB).
	MaxQueued int

	// Order is how a connection runs its peer's messages: Ordered (the
	// zero value), Sequential or Concurrent.
	Order Ordering

	// MaxPush bounds the notifications a connection holds waiting to be
	// sent by peer.Conn.Push and peer.Topic.Publish; <= 0 means
	// peer.DefaultMaxPush (256). Past it they are dropped for that
	// connection only (see peer.Topic's Overflow).
	MaxPush int

	// MaxPushBytes bounds the bytes of those notifications; <= 0 means
	// peer.DefaultMaxPushBytes (1 MiB), so that a peer that does not read
	// holds at most that much of them.
	MaxPushBytes int

	// MaxSubscriptions bounds the peer.Topic subscriptions of one
	// connection; <= 0 means peer.DefaultMaxSubscriptions (1024). Past it
	// Topic.Subscribe fails with peer.ErrTooManySubscriptions.
	MaxSubscriptions int

	// Protocol names the notifications by which the two ends cancel calls
	// and report progress: peer.LSP, peer.MCP, or the zero Protocol (none).
	Protocol peer.Protocol

	// IdleTimeout is how long a connection with no call in flight may wait
	// for its next message to begin before it is closed; white space
	// between messages (blank lines, the newline after a Raw value) does
	// not begin one, nor restart the wait. A call that runs longer is not
	// cut off: the timeout starts when the last call in flight replies.
	// 0 means DefaultIdleTimeout (2 minutes); a negative value disables it.
	IdleTimeout time.Duration

	// ReadTimeout bounds the time to read one message once it has begun
	// (with a byte other than white space between messages; with a Framing
	// whose Reader has no Begun method, see framing.Reader, with any byte), so that a peer that stalls
	// inside a message cannot hold the connection's buffers forever. 0 means
	// DefaultReadTimeout (30 s); a negative value disables it.
	ReadTimeout time.Duration

	// WriteTimeout bounds each write to the connection. A peer that does
	// not read its responses is disconnected when it expires; it never
	// blocks other connections. 0 means DefaultWriteTimeout (30 s); a
	// negative value disables it.
	WriteTimeout time.Duration

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

	host     peer.Host      // the listeners and connections, and their shutdown
	once     sync.Once      // makes slots and buffered
	slots    chan struct{}  // one element per connection served (MaxConns)
	buffered *budget.Budget // MaxBuffered
	log      *slog.Logger   // Logger within ratelog's bounds, made with the gates
}

// settings are a Server's fields with the defaults applied.
type settings struct {
	handler      transport.Handler
	framing      framing.Framing
	maxMessage   int
	maxInFlight  int
	maxQueued    int
	order        Ordering
	protocol     peer.Protocol
	maxPush      int
	maxPushBytes int
	maxSubs      int
	idle         time.Duration // 0: none
	readTimeout  time.Duration // 0: none
	writeTimeout time.Duration // 0: none
	linger       time.Duration // 0: none
}

func (s *Server) settings() settings {
	st := settings{
		handler:      s.Server,
		framing:      s.Framing,
		maxMessage:   s.MaxMessage,
		maxInFlight:  s.MaxInFlight,
		maxQueued:    s.MaxQueued,
		order:        s.Order,
		protocol:     s.Protocol,
		maxPush:      s.MaxPush,
		maxPushBytes: s.MaxPushBytes,
		maxSubs:      s.MaxSubscriptions,
		idle:         timeout(s.IdleTimeout, DefaultIdleTimeout),
		readTimeout:  timeout(s.ReadTimeout, DefaultReadTimeout),
		writeTimeout: timeout(s.WriteTimeout, DefaultWriteTimeout),
		linger:       timeout(s.LingerTimeout, DefaultLingerTimeout),
	}
	if st.handler == nil {
		st.handler = jsonrpc.NewServer()
	}
	if st.framing == nil {
		st.framing = framing.Line
	}
	if st.maxMessage <= 0 {
		st.maxMessage = framing.DefaultMaxMessage
	}
	if st.maxInFlight <= 0 {
		st.maxInFlight = DefaultMaxInFlight
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
func (s *Server) gatesBudget() *budget.Budget {
	s.gates()
	return s.buffered
}

// gates returns the Server's connection slots, making them and the
// MaxBuffered budget on first use.
func (s *Server) gates() chan struct{} {
	s.once.Do(func() {
		s.slots = make(chan struct{}, orDefaultInt(s.MaxConns, DefaultMaxConns))
		s.buffered = budget.New(orDefaultInt(s.MaxBuffered, DefaultMaxBuffered))
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
	cn := newConn(s, ctx, c, s.settings())
	if s.host.Add(cn, 0) != nil {
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

func orDefaultInt[T int | int64](n, def T) T {
	if n <= 0 {
		return def
	}
	return n
}
