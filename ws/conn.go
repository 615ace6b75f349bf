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
	"time"

	"github.com/coder/websocket"

	"github.com/jsonrpc-go/jsonrpc/internal/budget"
	"github.com/jsonrpc-go/jsonrpc/internal/wire"
	"github.com/jsonrpc-go/jsonrpc/peer"
)

// A wsConn is one served WebSocket: a peer.Conn over its messages (wsConn
// is its peer.Transport), with the connection's idle and read timeouts,
// its share of the Handler's MaxBuffered, and its close handshake.
//
// The peer.Conn's read loop reads messages through Read, which arms the
// timeouts and refuses the messages read while shutting down; answers and
// the calls of methods go through Write, from any goroutine, each a
// message of its own (the library serializes them). Every close goes
// through startClose, which writes the close frame, or kill.
type wsConn struct {
	buffered     *budget.Budget // the Handler's MaxBuffered
	limit        int64          // MaxMessage
	idleTimeout  time.Duration  // 0: none
	readTimeout  time.Duration
	writeTimeout time.Duration
	closeDone    chan struct{} // closed when the close begun by startClose has ended
	log          *slog.Logger  // the Handler's Logger with the remote address, or nil

	// Set by attach, before the read loop starts.
	ctx     context.Context
	cancel  context.CancelFunc
	conn    *websocket.Conn
	netConn net.Conn // the hijacked connection, or nil
	peer    *peer.Conn

	// The read loop's own.
	buf   []byte // the message last read
	taken int64  // what buf holds of buffered

	mu        sync.Mutex // protects the fields below
	attached  bool
	waiting   bool // the read loop waits for the first frame of a message
	stopping  bool // Shutdown: run no further message
	closing   bool // a close has begun, or the connection is ending: pass on nothing
	closeSent bool // startClose began the close handshake
	killed    bool // Shutdown's deadline passed: close at once
	timer     *time.Timer
	kind      timerKind // what the timer is armed for, or noTimer
	deadline  time.Time // when the armed timer is due
}

// The kinds of timer a connection arms.
type timerKind uint8

const (
	noTimer    timerKind = iota
	idleTimer            // waiting for a message with no call in flight
	readTimer            // reading a message
	quietTimer           // shutting down: waiting for the messages already sent
)

// shutdownQuiet is how long a connection that shuts down, with nothing in
// flight, waits for another message before it begins the close handshake:
// a message the peer sent before it learnt of the shutdown may already be
// on its way, or read by the socket and not yet by the connection, and it
// is answered (with the shutdown error) only if it is read before the
// close frame goes out; after it, nothing may be sent.
const shutdownQuiet = 50 * time.Millisecond

// What Read does with a message it has read.
type action uint8

const (
	pass   action = iota // return it, for the peer.Conn to handle
	refuse               // answer it with the shutdown error
	drop                 // nothing: the close frame is sent, no answer can follow
)

// attach records the upgraded connection and its peer.Conn; false means
// Shutdown's deadline has passed and it must not be served.
func (c *wsConn) attach(ctx context.Context, cancel context.CancelFunc, conn *websocket.Conn, netConn net.Conn, p *peer.Conn) bool {
	c.mu.Lock()
	c.ctx, c.cancel, c.conn, c.netConn, c.peer = ctx, cancel, conn, netConn, p
	c.attached = true
	stopping, killed := c.stopping, c.killed
	c.mu.Unlock()
	if stopping {
		p.Shutdown() // and the first awaitMessage closes
	}
	return !killed
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
// Messages read while a one-way connection shuts down are answered here,
// and messages read once the close frame is sent are dropped.
func (c *wsConn) Read() ([]byte, error) {
	for {
		// The message before is answered or copied: its bytes leave the
		// budget.
		c.buffered.Give(c.taken)
		c.taken = 0
		putMsgBuf(c.buf)
		c.buf = nil
		c.awaitMessage()
		// The read's context is Background: the library closes the
		// connection when a read's context ends, and every way of ending a
		// read here closes the connection anyway (a timeout with a close
		// frame, Shutdown's deadline and a failed write at once).
		// What the connection answered so far goes out before the wait
		// for the next message (see peer.Conn.SendQueued).
		c.peer.SendQueued()
		_, r, err := c.conn.Reader(context.Background())
		if err != nil {
			return nil, err
		}
		c.gotFrame()
		c.buf, c.taken, err = readMessage(r, getMsgBuf(), c.limit, c.buffered)
		act := c.gotMessage()
		if errors.Is(err, errBudget) {
			c.mu.Lock()
			c.startClose(websocket.StatusTryAgainLater, reasonBusy)
			c.mu.Unlock()
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
		switch act {
		case refuse:
			if resp := appendRefusal(nil, c.buf); len(resp) > 0 {
				c.peer.Answer(resp)
			}
			continue
		case drop:
			continue
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
	err := c.conn.Write(wctx, websocket.MessageText, msg)
	if err == nil {
		return nil
	}
	c.mu.Lock()
	closing := c.closing
	c.mu.Unlock()
	if !closing {
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
	c.mu.Lock()
	started, killed := c.closeSent, c.killed
	c.closing = true
	c.disarm()
	c.mu.Unlock()
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
}

// readMessage reads the message r holds into buf, which grows as bytes
// arrive, never past limit+1 bytes (the library reads one byte past the
// limit to detect a longer message, and then fails the read). Growth past
// maxKeptBuffer takes from b; it returns what it took, to be given back once
// the buffer is dropped, and errBudget when b had no room.
func readMessage(r io.Reader, buf []byte, limit int64, b *budget.Budget) ([]byte, int64, error) {
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

// awaitMessage notes that the read loop waits for a message, and calls
// idle when nothing is in flight.
func (c *wsConn) awaitMessage() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.waiting = true
	if !c.peer.Busy() {
		c.idle()
	}
}

// onIdle runs when the last message in flight has been answered (the
// peer.Conn's OnIdle): while the read loop waits for a message, the
// connection is idle.
func (c *wsConn) onIdle() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.waiting {
		c.idle()
	}
}

// idle runs when the connection has nothing in flight and its read loop
// waits for a message, having passed on, answered or dropped every message
// it read: a connection shutting down closes, others arm the idle timeout.
// c.mu must be held.
func (c *wsConn) idle() {
	switch {
	case c.closing:
	case c.stopping:
		c.arm(quietTimer, shutdownQuiet)
	default:
		c.arm(idleTimer, c.idleTimeout)
	}
}

// gotFrame notes that a message has begun, and arms the read timeout.
func (c *wsConn) gotFrame() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.waiting = false
	if !c.closing {
		c.arm(readTimer, c.readTimeout)
	}
}

// gotMessage notes that a message has been read, and says what to do with
// it: while shutting down, a one-way connection refuses it here, with
// appendRefusal's answers.
func (c *wsConn) gotMessage() action {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.kind == readTimer {
		c.disarm()
	}
	switch {
	case c.closing:
		return drop
	case c.stopping && !c.peer.TwoWay():
		return refuse
	}
	// A two-way connection's peer.Conn refuses the requests itself, and
	// passes on the answers to its calls and the cancel notifications.
	return pass
}

// arm sets the timer to fire after d, for kind; a zero d disarms it. c.mu
// must be held.
func (c *wsConn) arm(kind timerKind, d time.Duration) {
	if d <= 0 {
		c.disarm()
		return
	}
	c.kind, c.deadline = kind, time.Now().Add(d)
	if c.timer == nil {
		c.timer = time.AfterFunc(d, c.expire)
	} else {
		c.timer.Reset(d)
	}
}

// disarm stops the timer. c.mu must be held.
func (c *wsConn) disarm() {
	if c.kind != noTimer {
		c.kind = noTimer
		c.timer.Stop()
	}
}

// expire runs when the timer fires: an idle connection is closed with 1001
// (going away), one that stalls inside a message with 1008 (policy
// violation). A timer that fires for an arming since replaced finds its
// deadline in the future and does nothing.
func (c *wsConn) expire() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.kind == noTimer || c.closing || time.Now().Before(c.deadline) {
		return
	}
	switch c.kind {
	case idleTimer:
		c.startClose(websocket.StatusGoingAway, reasonIdle)
	case readTimer:
		c.startClose(websocket.StatusPolicyViolation, reasonReadTimeout)
	case quietTimer:
		if c.waiting && !c.peer.Busy() {
			c.startClose(websocket.StatusGoingAway, reasonShutdown)
		}
	}
}

// startClose begins the close handshake with code: nothing more is passed
// on, the close frame is written (for 1001, going away, once every answer
// is), and the connection ends when the peer answers the close frame
// (after at most the library's timeouts). c.mu must be held.
func (c *wsConn) startClose(code websocket.StatusCode, reason string) {
	if c.closing || !c.attached {
		return
	}
	c.closing, c.closeSent = true, true
	c.disarm()
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

// stop makes the connection run no further message; once its messages in
// flight are answered, and a message it is reading is refused, it closes
// with 1001 (going away).
func (c *wsConn) stop() {
	c.mu.Lock()
	if c.stopping {
		c.mu.Unlock()
		return
	}
	c.stopping = true
	p := c.peer
	c.mu.Unlock()
	if p == nil {
		return // attach shuts it down
	}
	p.Shutdown()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.waiting && !p.Busy() {
		c.idle()
	}
}

// Stop begins the connection's graceful end, for the Handler's Shutdown
// (peer.Hosted).
func (c *wsConn) Stop() { c.stop() }

// Kill closes the connection at once, for the Handler's Shutdown past its
// deadline (peer.Hosted).
func (c *wsConn) Kill() { c.kill() }

// kill closes the connection at once and cancels its calls' context.
func (c *wsConn) kill() {
	c.mu.Lock()
	c.killed = true
	attached, cancel, conn, netConn := c.attached, c.cancel, c.conn, c.netConn
	c.mu.Unlock()
	if !attached {
		return // attach sees killed
	}
	cancel()
	if netConn != nil {
		netConn.Close()
	} else {
		go conn.CloseNow()
	}
}
