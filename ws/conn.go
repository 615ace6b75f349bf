package ws

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"math"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"

	"github.com/jsonrpc-go/jsonrpc/internal/wire"
	"github.com/jsonrpc-go/jsonrpc/peer"
	"github.com/jsonrpc-go/jsonrpc/transport"
)

// A wsConn is one served WebSocket: a peer.Conn over its messages (wsConn
// is its carrier, a transport.Conn), with the connection's idle and read
// timeouts, its share of the Handler's MaxBuffered, and its close
// handshake.
//
// The peer.Conn's read loop reads messages through Read, which tells the
// connection's read clock where its reading is; the clock, which the
// peer.Conn tells when calls are in flight, sets the deadline of a timer
// that begins the close handshake (expire). A message read while shutting
// down is passed on, and the peer.Conn refuses it.
// Answers and the calls of methods go through Write, from the peer.Conn's
// writer, each a message of its own. Every close goes through startClose,
// which writes the close frame, or kill. The connection's state is a few
// atomics, each changed once (attached, stopping, closing, killed) or by
// the read loop alone (reading, inMessage).
type wsConn struct {
	buffered     *transport.Budget // the Handler's MaxBuffered
	limit        int64             // MaxMessage
	limits       transport.Limits  // the Handler's, with the defaults applied
	client       string            // the client's name (Handler.ClientKey)
	writeTimeout time.Duration     // 0: none
	closeDone    chan struct{}     // closed when the close begun by startClose has ended
	log          *slog.Logger      // the Handler's Logger with the remote address, or nil
	pings        *pinger           // PingInterval and PongTimeout; nil: no pings

	clock *transport.ReadClock // the idle and read timeouts, on timer

	// Set by attach, before the read loop starts.
	ctx     context.Context
	cancel  context.CancelFunc
	conn    *websocket.Conn
	netConn net.Conn // the hijacked connection, or nil
	peer    *peer.Conn

	// The read loop's own.
	buf   []byte // the message last read
	taken int64  // what buf holds of buffered

	attached atomic.Bool // attach has recorded the connection
	stopping atomic.Bool // Shutdown: run no further message
	closing  atomic.Bool // a close has begun, or the connection is ending: pass on nothing
	killed   atomic.Bool // Shutdown's deadline passed: close at once

	// The read deadline, set by the clock (setReadDeadline): timer
	// fires at deadline (Unix nanoseconds; 0: none), and expire begins
	// the close when a read is under way then (reading), inside a message
	// (read timeout) or waiting for one (idle, or quiet at shutdown).
	timer     *time.Timer // made by admit; never replaced
	deadline  atomic.Int64
	reading   atomic.Bool // the read loop reads from the connection
	inMessage atomic.Bool // it reads a message whose first frame has arrived
}

// shutdownQuiet is how long a connection that shuts down, with nothing in
// flight, waits for another message before it begins the close handshake:
// a message the peer sent before it learnt of the shutdown may already be
// on its way, or read by the socket and not yet by the connection, and it
// is answered (with the shutdown error) only if it is read before the
// close frame goes out; after it, nothing may be sent.
const shutdownQuiet = 50 * time.Millisecond

// attach records the upgraded connection and its peer.Conn; false means
// Shutdown's deadline has passed and it must not be served.
func (c *wsConn) attach(ctx context.Context, cancel context.CancelFunc, conn *websocket.Conn, netConn net.Conn, p *peer.Conn) bool {
	c.ctx, c.cancel, c.conn, c.netConn, c.peer = ctx, cancel, conn, netConn, p
	// attached, then stopping and killed; stop and kill set theirs, then
	// read attached: one of the two sees the other.
	c.attached.Store(true)
	if c.stopping.Load() {
		c.shutdown()
	}
	if c.killed.Load() {
		return false
	}
	c.pings.start(conn) // finish ends them
	return true
}

// setReadDeadline arms the timer for d (a zero d disarms it), for the
// clock, which calls it one at a time.
func (c *wsConn) setReadDeadline(d time.Time) error {
	if d.IsZero() {
		c.deadline.Store(0)
		c.timer.Stop()
		return nil
	}
	c.deadline.Store(d.UnixNano())
	c.timer.Reset(time.Until(d))
	return nil
}

// Buffer sizes of a connection's reading.
const (
	initialBuffer = 4 << 10
	maxKeptBuffer = 64 << 10 // a larger buffer is dropped after its message
)

// msgBufs holds the message buffers of connections that wait for their
// next message: a connection takes one when a message begins and gives it
// back (up to maxKeptBuffer) once the message is answered, so that
// thousands of connections that wait hold none, however large their last
// message was.
var msgBufs sync.Pool

func getMsgBuf() []byte {
	if p, ok := msgBufs.Get().(*[]byte); ok {
		return (*p)[:0]
	}
	return make([]byte, 0, initialBuffer)
}

func putMsgBuf(b []byte) {
	if b != nil && cap(b) <= maxKeptBuffer {
		b = b[:0]
		msgBufs.Put(&b)
	}
}

// Read returns the next message for the peer.Conn, once its last frame has
// arrived: it fails when the peer closed the connection or broke it, a
// limit closed it, or the close handshake begun by startClose is over.
// Messages read once the close frame is sent are dropped.
func (c *wsConn) Read() ([]byte, error) {
	for {
		// The message before is answered or copied: its bytes leave the
		// budget.
		c.buffered.Give(c.taken)
		c.taken = 0
		putMsgBuf(c.buf)
		c.buf = nil
		// The read's context is Background: the library closes the
		// connection when a read's context ends, and every way of ending a
		// read here closes the connection anyway (a timeout with a close
		// frame, Shutdown's deadline and a failed write at once).
		// The idle deadline is set before the wait for the next message
		// (the peer.Conn has sent what it answered before it called
		// Read); reading is set first, so that a deadline that passes from
		// then on ends the read.
		c.inMessage.Store(false)
		c.reading.Store(true)
		c.pings.beginRead()
		c.clock.Before(true, false)
		_, r, err := c.conn.Reader(context.Background())
		if err != nil {
			c.reading.Store(false)
			c.pings.endRead()
			return nil, err
		}
		c.inMessage.Store(true)
		c.clock.Before(false, true) // the read timeout
		c.buf, c.taken, err = readMessage(r, getMsgBuf(), c.limit, c.buffered)
		c.reading.Store(false)
		c.pings.endRead()
		if errors.Is(err, errBudget) {
			c.startClose(websocket.StatusTryAgainLater, reasonBusy)
			return nil, err
		}
		if err != nil {
			if c.log != nil && (int64(len(c.buf)) > c.limit || strings.Contains(err.Error(), "read limited")) {
				// The library failed the read at the limit (SetReadLimit)
				// and closes with 1009.
				c.log.LogAttrs(c.ctx, slog.LevelWarn, "closing", slog.Int("code", int(websocket.StatusMessageTooBig)), slog.String("reason", "message too large"), slog.Int64("limit", c.limit))
			}
			return nil, err
		}
		if c.closing.Load() {
			continue // the close frame is sent: no answer can follow
		}
		return c.buf, nil
	}
}

// Write writes msg as one message. ctx, the context of the call that
// sends it, only decides whether to start: the write runs under the
// connection's context and WriteTimeout, since the library closes the
// connection when the context of a write ends during it, and one call's
// cancellation must not break the connection of the others. A failed write
// ends the connection, unless a close is under way, which ends it anyway.
func (c *wsConn) Write(ctx context.Context, msg []byte) error {
	if len(msg) == 0 {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	wctx := c.ctx
	if c.writeTimeout > 0 {
		var cancel context.CancelFunc
		wctx, cancel = context.WithTimeout(wctx, c.writeTimeout)
		defer cancel()
	}
	began := c.pings.beginWrite()
	err := c.conn.Write(wctx, websocket.MessageText, msg)
	c.pings.endWrite(began)
	if err == nil {
		return nil
	}
	if !c.closing.Load() {
		c.cancel()
		c.conn.CloseNow()
	}
	return err
}

// Flush does nothing: Write sends each message whole.
func (c *wsConn) Flush() error { return nil }

// Close closes the connection at once (peer.Transport).
func (c *wsConn) Close() error { return c.conn.CloseNow() }

// finish ends the connection once its read loop has stopped: the calls
// still in flight are cancelled (their answers can no longer be written),
// and the close handshake, begun by startClose or begun here, ends before
// the connection is closed, so that the peer's last frames are read and
// the socket is not closed on unread input.
func (c *wsConn) finish() {
	c.buffered.Give(c.taken) // the message being read, if any, is dropped
	c.taken = 0
	if c.log != nil {
		defer c.log.LogAttrs(context.Background(), slog.LevelDebug, "connection closed")
	}
	// Closing from here on, unless startClose began it: then its close
	// frame is on its way.
	started := !c.closing.CompareAndSwap(false, true)
	killed := c.killed.Load()
	c.setReadDeadline(time.Time{})
	c.cancel()
	if killed && c.netConn != nil {
		c.netConn.Close()
	}
	c.peer.Shutdown()
	c.peer.Wait()
	switch {
	case killed:
	case started:
		<-c.closeDone
	default:
		// Reading failed: the peer's close frame, a limit the library
		// answered with a close frame of its own, or a broken connection.
		// Close finishes the handshake where there is one to finish.
		c.conn.Close(websocket.StatusInternalError, "")
	}
	c.conn.CloseNow()
	c.pings.end()
}

// readMessage reads the message r holds into buf, which grows as bytes
// arrive, never past limit+1 bytes (the library reads one byte past the
// limit to detect a longer message, and then fails the read). Growth past
// maxKeptBuffer takes from b; it returns what it took, to be given back once
// the buffer is dropped, and errBudget when b had no room.
func readMessage(r io.Reader, buf []byte, limit int64, b *transport.Budget) ([]byte, int64, error) {
	most := limit
	if most < math.MaxInt64 {
		most++
	}
	var taken int64
	for {
		if len(buf) == cap(buf) {
			n := max(2*cap(buf), initialBuffer)
			if int64(n) > most {
				n = int(most)
			}
			if n > len(buf) {
				if !b.Hold(&taken, int64(max(n-maxKeptBuffer, 0))) {
					return buf, taken, errBudget
				}
				buf = wire.AppendLong(make([]byte, 0, n), buf)
			}
		}
		k, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+k]
		switch {
		case errors.Is(err, io.EOF):
			return buf, taken, nil
		case err != nil:
			return buf, taken, err
		case k == 0 && len(buf) == cap(buf):
			return buf, taken, errors.New("ws: message exceeds the limit") // not reached: the library fails the read first
		}
	}
}

// errBudget is readMessage's error when the Handler's MaxBuffered has no
// room for the message.
var errBudget = errors.New("ws: MaxBuffered spent")

// expire runs when the timer fires: a read that waits for a message past
// its deadline ends the connection with 1001 (going away: idle, or quiet
// at shutdown), one inside a message with 1008 (policy violation). A
// timer that fires for a deadline since replaced, or when no read is
// under way (the read loop sets the next deadline before it reads again),
// does nothing.
func (c *wsConn) expire() {
	d := c.deadline.Load()
	if d == 0 || !c.reading.Load() || time.Now().UnixNano() < d {
		return
	}
	switch {
	case c.inMessage.Load():
		c.startClose(websocket.StatusPolicyViolation, reasonReadTimeout)
	case c.stopping.Load():
		c.startClose(websocket.StatusGoingAway, reasonShutdown)
	default:
		c.startClose(websocket.StatusGoingAway, reasonIdle)
	}
}

// startClose begins the close handshake with code: nothing more is passed
// on, the close frame is written (for 1001, going away, once every answer
// is), and the connection ends when the peer answers the close frame
// (after at most the library's timeouts).
func (c *wsConn) startClose(code websocket.StatusCode, reason string) {
	if !c.attached.Load() || !c.closing.CompareAndSwap(false, true) {
		return
	}
	if c.log != nil {
		level := slog.LevelWarn
		if code == websocket.StatusGoingAway {
			level = slog.LevelDebug // idle, or shutting down
		}
		c.log.LogAttrs(c.ctx, level, "closing", slog.Int("code", int(code)), slog.String("reason", reason))
	}
	conn, p := c.conn, c.peer
	go func() {
		if code == websocket.StatusGoingAway {
			// Nothing runs or waits to run (idle); the answers and
			// refusals handed to the peer.Conn may still be on their way.
			p.Wait()
		}
		conn.Close(code, reason)
		close(c.closeDone)
	}()
}

// missedPong closes the connection whose peer missed a pong (see pinger)
// with 1011 (internal error, as other WebSocket hosts close on a ping
// timeout), at once: calls still in flight are cancelled, since their
// answers would not reach the peer. unsent: the ping could not even be
// written, and the library has closed the connection, with no close frame
// (1006, abnormal closure); the read loop may be ending it already, so
// the close is logged here.
func (c *wsConn) missedPong(unsent bool) {
	if !unsent {
		c.startClose(websocket.StatusInternalError, reasonPing)
		return
	}
	if c.log != nil {
		c.log.LogAttrs(c.ctx, slog.LevelWarn, "closing", slog.Int("code", int(websocket.StatusAbnormalClosure)), slog.String("reason", reasonPing))
	}
}

// stop makes the connection run no further message; once its messages in
// flight are answered, and a message it is reading is refused, it closes
// with 1001 (going away).
func (c *wsConn) stop() {
	if !c.stopping.CompareAndSwap(false, true) {
		return
	}
	if c.attached.Load() {
		c.shutdown() // else attach does
	}
}

// shutdown shuts the peer.Conn down, and makes the read that waits for a
// message end once nothing has been in flight for shutdownQuiet.
func (c *wsConn) shutdown() {
	c.peer.Shutdown()
	c.clock.StopWhenQuiet(shutdownQuiet)
}

// kill closes the connection at once and cancels its calls' context.
func (c *wsConn) kill() {
	c.killed.Store(true)
	if !c.attached.Load() {
		return // attach sees killed
	}
	c.cancel()
	if c.netConn != nil {
		c.netConn.Close()
	} else {
		go c.conn.CloseNow()
	}
}

// Stop begins the connection's graceful end, for the Handler's Shutdown
// (transport.Hosted).
func (c *wsConn) Stop() { c.stop() }

// Kill closes the connection at once, for the Handler's Shutdown past its
// deadline (transport.Hosted).
func (c *wsConn) Kill() { c.kill() }
