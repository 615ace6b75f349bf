package stream

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync/atomic"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/framing"
	"github.com/jsonrpc-go/jsonrpc/peer"
	"github.com/jsonrpc-go/jsonrpc/protocol/enumerator"
	"github.com/jsonrpc-go/jsonrpc/transport"
)

// A conn is one served connection: a peer.Conn over the connection's
// framing (conn is its carrier, a transport.Conn), with the connection's
// timeouts, its share of the Server's MaxBuffered, and its graceful close.
//
// The peer.Conn's read loop reads messages through Read; answers and the
// connection's own calls go through Write and Flush, which the peer.Conn
// calls from one goroutine at a time (its writer). The peer.Conn sends
// what it has answered before each Read that may block (the framing's
// Ready tells it which), and tells the connection's read clock when calls
// are in flight; the conn never calls the peer.Conn from its Read.
type conn struct {
	st     settings
	srv    *Server
	rwc    io.ReadWriteCloser
	rdl    readDeadliner        // nil when rwc has no working read deadline
	wdl    writeDeadliner       // nil when rwc has no working write deadline
	clock  *transport.ReadClock // the read deadlines of rdl; nil without
	rd     framing.Reader
	wr     framing.Writer // the peer.Conn's writer's
	peer   *peer.Conn
	ctx    context.Context
	cancel context.CancelFunc
	stopAf func() bool  // stops the context.AfterFunc watching ServeConn's ctx
	log    *slog.Logger // the Server's Logger with the peer's address; nil logs nothing

	// Read side, used by the read loop only.
	starter  starter           // rd, when it tells when a message begins
	newRead  bool              // a Read of the next message has started; no read from rwc yet
	newMsg   bool              // without a starter: no byte of the next message has been read
	buffered *transport.Budget // the Server's MaxBuffered
	sinceMsg int64             // bytes read for the message being read
	taken    int64             // of them, taken from buffered

	// Lifecycle. The read deadlines (the idle and read timeouts, Shutdown's
	// interruption, the linger) are the clock's to set.
	stopping atomic.Bool           // Shutdown: start no call; read only what is buffered
	closeErr atomic.Pointer[error] // why the connection was closed, once close was called
}

// A starter is a Reader that tells when the next message has begun (the
// Readers of package framing do; see framing.Reader): the Server times a
// message from its start (ReadTimeout) and the wait for one before it
// (IdleTimeout).
type starter interface{ Begun() bool }

type readDeadliner interface{ SetReadDeadline(time.Time) error }
type writeDeadliner interface{ SetWriteDeadline(time.Time) error }

var errStopping = errors.New("stream: connection stopping")

func newConn(s *Server, parent context.Context, rwc io.ReadWriteCloser, client string, principal *jsonrpc.Principal, st settings) *conn {
	c := &conn{st: st, srv: s, rwc: rwc}
	if c.log = s.logger(); c.log != nil {
		if attrs := remoteAttrs(rwc); attrs != nil {
			c.log = c.log.With(attrs[0])
		}
	}
	if d, ok := rwc.(readDeadliner); ok && d.SetReadDeadline(time.Time{}) == nil {
		c.rdl = d
		c.clock = transport.NewReadClock(d.SetReadDeadline, st.IdleTimeout, st.ReadTimeout)
	}
	if d, ok := rwc.(writeDeadliner); ok && d.SetWriteDeadline(time.Time{}) == nil {
		c.wdl = d
	}
	c.ctx, c.cancel = context.WithCancel(transport.WithContextValues(parent, rwc, client, principal))
	c.stopAf = context.AfterFunc(parent, func() { c.close(parent.Err()) })
	c.buffered = s.gatesBudget().Client(client)
	c.rd = st.framing.NewReader(connReader{c}, st.MaxMessage)
	c.starter, _ = c.rd.(starter)
	c.wr = st.framing.NewWriter(connWriter{c})
	carrier := transport.Carrier{Conn: c, Traits: transport.Traits{Clock: c.clock}}
	if r, ok := c.rd.(interface{ Ready() bool }); ok {
		carrier.Ready = r.Ready
	}
	c.peer = peer.New(enumerator.Enable(c.ctx), carrier, peer.Options{
		Server:   st.handler,
		Order:    st.order,
		Protocol: st.protocol,
		Limits:   st.Limits,
		Logger:   c.log,
	})
	return c
}

// serve runs the connection: the peer.Conn's read loop, then finish. When
// a method ends the read goroutine with runtime.Goexit, the read loop goes
// on on a new goroutine, which runs finish (the code after Run does not run
// on the old one).
func (c *conn) serve() error {
	var result error
	c.peer.Run(func(err error) {
		c.buffered.Give(c.taken) // the message being read, if any, is dropped
		c.taken = 0
		result = c.finish(err)
	})
	return result
}

// finish ends the connection after its read loop returned err: it waits for
// the calls in flight and writes their answers, closes the connection
// (lingering when the server ends it, see lingerClose), and lets the Server
// forget it. It returns what ServeConn returns.
func (c *conn) finish(err error) error {
	graceful := errors.Is(err, errStopping)
	if !graceful {
		// The peer's input ended or failed, or the server ends the
		// connection: calls in flight are cancelled; their answers are
		// still written if the peer reads them.
		c.cancel()
	}
	c.peer.Shutdown()
	c.peer.Wait()
	why := err
	if err == io.EOF || graceful {
		// A clean end: report a failed final write, if any.
		why = nil
	}
	if graceful || serverEnds(err) {
		c.lingerClose(why)
	} else {
		c.close(why)
	}
	c.cancel()
	c.stopAf()
	ret := ErrServerClosed
	if !graceful {
		ret = *c.closeErr.Load()
	}
	if c.log != nil {
		if ret != nil {
			c.log.Debug("connection closed", "error", ret)
		} else {
			c.log.Debug("connection closed")
		}
	}
	c.srv.forget(c) // last: a Shutdown waiting for the connections returns
	return ret
}

// Stop begins the connection's graceful end, for the Server's Shutdown
// (transport.Hosted).
func (c *conn) Stop() { c.stopReading() }

// Kill closes the connection at once, for the Server's Close
// (transport.Hosted).
func (c *conn) Kill() { c.close(ErrServerClosed) }

// serverEnds reports whether err, which ended the read loop, is the server's
// decision to end a working connection (a timeout, input that breaks the
// framing or its limit), after which the peer may still be sending.
func serverEnds(err error) bool {
	var tl *framing.TooLargeError
	return errors.Is(err, os.ErrDeadlineExceeded) || errors.Is(err, framing.ErrMalformed) || errors.As(err, &tl) || errors.Is(err, errBusy)
}

// Read returns the next message for the peer.Conn. A message over the size
// limit, or one the Server's MaxBuffered has no room for, is refused with
// a *transport.MessageError, which the peer.Conn answers; it reads on when
// the framing can find the next message.
func (c *conn) Read() ([]byte, error) {
	if err := c.closedErr(); err != nil {
		return nil, err
	}
	c.startRead()
	msg, err := c.rd.Read()
	if err == nil {
		return msg, nil
	}
	c.logReadError(err)
	var refused *transport.MessageError
	var tl *framing.TooLargeError
	switch {
	case errors.As(err, &tl):
		refused = &transport.MessageError{
			Err:         jsonrpc.NewError(jsonrpc.CodeLimitExceeded, "").WithData(fmt.Sprintf("message exceeds the limit of %d bytes", tl.Limit)),
			ID:          tl.ID,
			Recoverable: tl.Recoverable,
			Cause:       err,
		}
	case errors.Is(err, errBusy):
		refused = &transport.MessageError{Err: errBusyAnswer, Cause: err}
	}
	if c.stopping.Load() && (refused == nil || !refused.Recoverable) {
		err = errStopping
		if refused != nil {
			refused.Cause = fmt.Errorf("%w (%w)", refused.Cause, errStopping)
		}
	}
	if refused != nil {
		return nil, refused
	}
	return nil, err
}

// logReadError logs the error of the framing's Read that the Server
// answers or ends the connection for (see Server.Logger).
func (c *conn) logReadError(err error) {
	if c.log == nil {
		return
	}
	var tl *framing.TooLargeError
	switch {
	case errors.As(err, &tl):
		c.log.Warn("message too large", "limit", tl.Limit, "recoverable", tl.Recoverable)
	case errors.Is(err, errBusy):
		c.log.Warn("message refused", "reason", "server busy: MaxBuffered spent", "max_buffered", c.buffered.Max())
	case errors.Is(err, framing.ErrMalformed):
		c.log.Warn("framing error", "error", err)
	case errors.Is(err, os.ErrDeadlineExceeded) && c.begun() && !c.stopping.Load():
		c.log.Warn("read timeout inside a message", "timeout", c.st.ReadTimeout)
	}
}

// Write appends a message to the writer. The size of an answer is bounded
// where it is built (jsonrpc.Limits.MaxResponse).
func (c *conn) Write(_ context.Context, msg []byte) error {
	if len(msg) == 0 {
		return nil
	}
	if err := c.closedErr(); err != nil {
		return err // nobody to write it to
	}
	if err := c.wr.Write(msg); err != nil {
		c.close(err)
		return err
	}
	return nil
}

// Flush writes out what the writer holds.
func (c *conn) Flush() error {
	if c.wr.Buffered() == 0 {
		return nil
	}
	if err := c.wr.Flush(); err != nil {
		c.close(err)
		return err
	}
	return nil
}

// Close closes the connection (peer.Transport).
func (c *conn) Close() error {
	c.close(os.ErrClosed)
	return nil
}

// startRead runs before each Read of the framing: the message it reads has
// its own read timeout, and the wait for it its own idle timeout.
func (c *conn) startRead() {
	c.newRead = true
	c.newMsg = c.rd.Buffered() == 0
	// The message before is answered or copied: its bytes leave the budget.
	c.buffered.Give(c.taken)
	c.taken, c.sinceMsg = 0, int64(c.rd.Buffered())
}

// begun reports whether the message being read has begun: a byte of it
// other than white space between messages has been read. Without a
// starter, any byte begins it.
func (c *conn) begun() bool {
	if c.starter != nil {
		return c.starter.Begun()
	}
	return !c.newMsg
}

// beforeRead runs before each read from the connection, which may block:
// it sets the read deadline. (The peer.Conn has sent what it answered
// before it called Read.)
func (c *conn) beforeRead() error {
	if c.stopping.Load() {
		return errStopping
	}
	fresh := c.newRead
	c.newRead = false
	if c.clock != nil {
		c.clock.Before(fresh, c.begun())
	}
	return nil
}

// afterRead runs after each read from the connection.
func (c *conn) afterRead(n int) {
	if n > 0 {
		c.newMsg = false
	}
}

// stopReading makes the read loop stop reading from the connection: it
// handles what it has read already (answering requests not yet started
// with errShutdown), and is interrupted when it is blocked reading or
// waiting for room for a message.
func (c *conn) stopReading() {
	c.peer.Shutdown()
	c.stopping.Store(true)
	if c.clock != nil {
		c.clock.Stop() // a read deadline in the past, unless it lingers already
		return
	}
	if cr, ok := c.rwc.(interface{ CloseRead() error }); !ok || cr.CloseRead() != nil {
		// No way to interrupt a read alone: the answers in flight are
		// lost.
		c.close(ErrServerClosed)
	}
}

// lingerClose closes a connection that the server ends while the peer may
// still be sending (Shutdown, a timeout, a framing error), once the answers
// are flushed: it shuts down the writing side (CloseWrite), so that the peer
// reads every answer and then the end of the input, and reads and drops the
// peer's input until it ends or LingerTimeout passes, before it closes.
// Closing with input unread would make the kernel reset the connection,
// and the peer could lose answers it had not read yet. Connections without
// CloseWrite or read deadlines are closed at once.
func (c *conn) lingerClose(why error) {
	cw, ok := c.rwc.(interface{ CloseWrite() error })
	if !ok || c.rdl == nil || c.st.linger <= 0 || c.closeErr.Load() != nil || cw.CloseWrite() != nil {
		c.close(why)
		return
	}
	c.clock.Linger(c.st.linger)
	buf := make([]byte, 4<<10)
	for {
		if _, err := c.rwc.Read(buf); err != nil {
			break
		}
	}
	c.close(why)
}

// close closes the connection once, recording why, and cancels the calls'
// context. It may be called from any goroutine.
func (c *conn) close(why error) {
	if !c.closeErr.CompareAndSwap(nil, &why) {
		return
	}
	c.cancel()
	c.rwc.Close()
}

// closedErr returns why the connection was closed, or nil while it is open.
func (c *conn) closedErr() error {
	p := c.closeErr.Load()
	switch {
	case p == nil:
		return nil
	case *p == nil:
		return os.ErrClosed
	}
	return *p
}

// connReader is the io.Reader under the framing's Reader.
type connReader struct{ c *conn }

func (r connReader) Read(p []byte) (int, error) {
	if err := r.c.beforeRead(); err != nil {
		return 0, err
	}
	n, err := r.c.rwc.Read(p)
	r.c.afterRead(n)
	if err == nil && !r.c.account(n) {
		err = errBusy
	}
	return n, err
}

// account counts n more bytes read for the message being read and takes
// what passes transport.SmallMessage of them from the Server's MaxBuffered, twice:
// the framing's buffer, which grows by doubling as the bytes arrive, holds
// up to twice what it read. Bytes past MaxMessage are not counted: the
// framing skips such a message without keeping it. false means the budget
// has no room.
func (c *conn) account(n int) bool {
	c.sinceMsg += int64(n)
	held := min(c.sinceMsg, int64(c.st.MaxMessage))
	return c.buffered.Hold(&c.taken, 2*max(held-transport.SmallMessage, 0))
}

// errBusy is the read error of a message for which the Server's
// MaxBuffered has no room.
var errBusy = errors.New("stream: MaxBuffered spent")

// refuseClient writes, before the connection is served, the one error
// that refuses it for its client's share (MaxConnsPerClient).
func (c *conn) refuseClient() {
	msg := transport.AppendError(nil, c.st.protocol.Codes.Refuse(errClientFull, false), nil)
	if c.wr.Write(msg) == nil {
		c.wr.Flush()
	}
}

// errClientFull refuses a connection past its client's share.
var errClientFull = jsonrpc.NewError(jsonrpc.CodeLimitExceeded, "").WithData("too many connections from this client")

// errBusyAnswer answers a message refused for errBusy.
var errBusyAnswer = jsonrpc.NewError(jsonrpc.CodeLimitExceeded, "").WithData("server busy: too many large messages at once")

// connWriter is the io.Writer under the framing's Writer.
type connWriter struct{ c *conn }

func (w connWriter) Write(p []byte) (int, error) {
	if w.c.wdl != nil && w.c.st.WriteTimeout > 0 {
		w.c.wdl.SetWriteDeadline(time.Now().Add(w.c.st.WriteTimeout))
	}
	return w.c.rwc.Write(p)
}
