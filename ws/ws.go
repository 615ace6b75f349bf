// Package ws serves and calls JSON-RPC 2.0 over WebSocket: one JSON-RPC
// message (a request, a batch or a response) per WebSocket message. It uses
// github.com/coder/websocket.
//
// Serve a server with a Handler:
//
//	http.Handle("/ws", &ws.Handler{Server: srv})
//
// and call it with a client over Dial:
//
//	ch, err := ws.Dial(ctx, "ws://127.0.0.1:8080/ws", nil)
//	c := client.New(ch)
//
// Under GOOS=js, in a browser, Dial connects with the browser's WebSocket,
// and a Handler cannot serve: github.com/coder/websocket implements no
// server there, so every upgrade fails.
//
// # Limits
//
// Every limit of a Handler is on by default, and each is a field whose zero
// value means its default. It serves at most MaxConns connections at once
// (4096): an upgrade request past them is answered with 503 Service
// Unavailable before any upgrade. A message may hold MaxMessage bytes
// (4 MiB): a longer one closes the connection with status 1009 (message too
// big), and is read only up to the limit; nothing is allocated from the
// length its frames declare. A connection with no call in flight that waits
// IdleTimeout (2 minutes) for a message is closed with status 1001 (going
// away), and one whose peer takes longer than ReadTimeout (30 s) to finish a
// message it has begun is closed with status 1008 (policy violation). At most
// MaxInFlight messages (64) of a connection are being answered at once; its
// reading pauses at the limit. A peer that does not take an answer within
// WriteTimeout (30 s) is disconnected.
//
// The server's own limits (jsonrpc.Limits) bound the rest: MaxResponse
// (16 MiB) every answer, MaxBatch (1024) the requests of a batch, and
// MaxRunning (4096) the goroutines of Blocking calls for every connection
// together. On the client side, a channel from Dial reads messages of up to
// client.DefaultMaxMessage bytes (64 MiB), more than any answer a server
// with the default limits sends.
//
// # Shutdown
//
// Handler.Shutdown closes every connection gracefully: the calls in flight
// finish and are answered, requests that arrive meanwhile are answered with
// an error instead of being run, and the connection ends with the WebSocket
// close handshake (status 1001, going away), so that the peer reads every
// answer written before the close frame.
package ws

import (
	"context"
	"errors"
	"io"
	"math"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/client"
	"github.com/jsonrpc-go/jsonrpc/internal/budget"
	"github.com/jsonrpc-go/jsonrpc/transport"
)

// Defaults of Handler's limits.
const (
	DefaultMaxMessage   = 4 << 20
	DefaultMaxBuffered  = 64 << 20
	DefaultMaxConns     = 4096
	DefaultMaxInFlight  = 64
	DefaultIdleTimeout  = 2 * time.Minute
	DefaultReadTimeout  = 30 * time.Second
	DefaultWriteTimeout = 30 * time.Second
)

// Handler serves a JSON-RPC server over WebSocket connections. Each message
// is answered through Server.ProcessAsync: calls of methods that complete
// inline are answered in order on the connection's reading goroutine, and
// calls of Blocking methods run concurrently and are answered as they
// finish. Methods get the connection's context, cancelled when it closes,
// carrying the upgrade's *http.Request as the transport's context value.
//
// The zero value of each field means its default. A Handler is safe for
// concurrent use by multiple goroutines; do not change its fields while it
// serves.
type Handler struct {
	// Server answers the requests.
	Server *jsonrpc.Server

	// MaxMessage is the size limit of one incoming message, in bytes; <= 0
	// means DefaultMaxMessage (4 MiB). A longer message closes the
	// connection with status 1009 (message too big). It is read only up to
	// the limit, and nothing is allocated from the length its frames
	// declare.
	MaxMessage int64

	// MaxBuffered bounds the memory that messages larger than 64 KiB hold
	// while they are read, over all the Handler's connections together;
	// <= 0 means DefaultMaxBuffered (64 MiB). A message that would pass it
	// closes its connection with status 1013 (try again later), so that
	// peers that send large messages slowly cannot hold MaxConns ×
	// MaxMessage bytes between them. Messages up to 64 KiB, read into
	// pooled buffers, do not count.
	MaxBuffered int64

	// MaxConns is how many connections the Handler serves at once; <= 0
	// means DefaultMaxConns (4096). An upgrade request past it is answered
	// with 503 Service Unavailable, before the upgrade; a connection's place
	// frees when it ends.
	MaxConns int

	// MaxInFlight is how many messages of one connection may be unanswered
	// at once; <= 0 means DefaultMaxInFlight (64). At the limit the
	// connection stops reading until one is answered. A batch counts as one
	// message: the goroutines of its Blocking calls are bounded, for all
	// connections together, by the Server's jsonrpc.Limits.MaxRunning.
	MaxInFlight int

	// IdleTimeout is how long a connection with no call in flight may wait
	// for the first frame of its next message before it is closed with
	// status 1001 (going away): the server goes away from a peer that did
	// nothing wrong and may connect again. A call that runs longer is not
	// cut off; the timeout starts again when the last call in flight is
	// answered. Control frames (pings) do not count as messages. 0 means
	// DefaultIdleTimeout (2 minutes); a negative value disables it.
	IdleTimeout time.Duration

	// ReadTimeout bounds the time to read one message once its first frame
	// has arrived. A peer that takes longer is disconnected with status
	// 1008 (policy violation): it broke the server's policy, and cannot
	// hold a buffer of up to MaxMessage bytes for ever. Calls still in
	// flight are cancelled, since their answers cannot follow the close
	// frame. 0 means DefaultReadTimeout (30 s); a negative value disables
	// it.
	ReadTimeout time.Duration

	// WriteTimeout bounds the writing of one answer; a peer that does not
	// read its answers is disconnected. 0 means DefaultWriteTimeout (30 s);
	// a negative value disables it.
	WriteTimeout time.Duration

	// AcceptOptions are passed to websocket.Accept (origin checks,
	// subprotocols, compression). Nil accepts same-origin connections.
	AcceptOptions *websocket.AcceptOptions

	mu       sync.Mutex // protects the fields below
	conns    map[*wsConn]struct{}
	buffered *budget.Budget // MaxBuffered, made by the first admit
	stopping bool
	drained  chan struct{} // made by Shutdown; closed when no connection is left
}

// Close status reasons.
const (
	reasonShutdown    = "server shutting down"
	reasonIdle        = "idle timeout"
	reasonReadTimeout = "read timeout"
	reasonBusy        = "too many large messages at once"
)

// Shutdown stops the handler gracefully. From the moment it is called,
// upgrade requests are refused with 503 Service Unavailable. Each connection
// goes on reading, and answers each message it reads from then on without
// running it: a request with an id gets an error with that id, code
// jsonrpc.CodeLimitExceeded (-32005) and data ShutdownData ("server shutting
// down"); a batch gets an array of such errors, one for each request with an
// id (a batch of more than 1024 requests, jsonrpc's default MaxBatch, gets
// one error with id null); a notification gets nothing. The calls in flight finish and their
// answers are written; then the connection is closed with the close
// handshake and status 1001 (going away), so that the peer receives every
// answer before the connection ends. Messages that arrive after the close
// frame are not answered, as the protocol requires; a client sees the close
// frame and fails their calls.
//
// Shutdown returns nil once every connection has ended. If ctx ends first,
// it cancels the contexts of the calls still running, closes the remaining
// connections at once, and returns ctx's error, without waiting for methods
// that ignore their context. Call it before http.Server.Shutdown, with the
// same context: net/http does not track WebSocket connections.
func (h *Handler) Shutdown(ctx context.Context) error {
	h.mu.Lock()
	h.stopping = true
	if h.drained == nil {
		h.drained = make(chan struct{})
		if len(h.conns) == 0 {
			close(h.drained)
		}
	}
	drained := h.drained
	conns := h.snapshot()
	h.mu.Unlock()
	for _, c := range conns {
		c.stop()
	}
	select {
	case <-drained:
		return nil
	case <-ctx.Done():
	}
	h.mu.Lock()
	conns = h.snapshot()
	h.mu.Unlock()
	for _, c := range conns {
		c.kill()
	}
	return ctx.Err()
}

// snapshot returns the connections. h.mu must be held.
func (h *Handler) snapshot() []*wsConn {
	conns := make([]*wsConn, 0, len(h.conns))
	for c := range h.conns {
		conns = append(conns, c)
	}
	return conns
}

// admit registers a new connection, or returns why it is refused.
func (h *Handler) admit() (*wsConn, string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	switch {
	case h.stopping:
		return nil, reasonShutdown
	case len(h.conns) >= orDefault(h.MaxConns, DefaultMaxConns):
		return nil, "too many connections"
	}
	if h.conns == nil {
		h.conns = map[*wsConn]struct{}{}
		h.buffered = budget.New(orDefault(h.MaxBuffered, DefaultMaxBuffered))
	}
	c := &wsConn{
		srv:          h.Server,
		buffered:     h.buffered,
		idleTimeout:  timeout(h.IdleTimeout, DefaultIdleTimeout),
		readTimeout:  timeout(h.ReadTimeout, DefaultReadTimeout),
		writeTimeout: timeout(h.WriteTimeout, DefaultWriteTimeout),
		slots:        make(chan struct{}, orDefault(h.MaxInFlight, DefaultMaxInFlight)),
		stopped:      make(chan struct{}),
		closeDone:    make(chan struct{}),
	}
	c.replyFunc = c.reply
	h.conns[c] = struct{}{}
	return c, ""
}

// release removes an ended connection.
func (h *Handler) release(c *wsConn) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.conns, c)
	if h.stopping && len(h.conns) == 0 {
		close(h.drained)
	}
}

func orDefault[T int | int64](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}

// timeout returns the timeout v means: def for 0, none (0) for a negative v.
func timeout(v, def time.Duration) time.Duration {
	switch {
	case v == 0:
		return def
	case v < 0:
		return 0
	}
	return v
}

// ServeHTTP upgrades the request to a WebSocket connection and serves it
// until the peer closes it, a limit or an error ends it, or the handler
// shuts down. It answers 503 Service Unavailable, without upgrading, when
// MaxConns connections are open or the handler is shutting down.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c, refused := h.admit()
	if c == nil {
		http.Error(w, refused, http.StatusServiceUnavailable)
		return
	}
	defer h.release(c)
	var aw http.ResponseWriter = w
	rec := recordHijack(w)
	if rec != nil {
		aw = rec
	}
	conn, err := websocket.Accept(aw, r, h.AcceptOptions)
	if err != nil {
		return // Accept has answered the request
	}
	var netConn net.Conn
	if rec != nil {
		netConn = rec.conn
	}
	conn.SetReadLimit(orDefault(h.MaxMessage, DefaultMaxMessage))
	ctx, cancel := context.WithCancel(transport.WithContextValue(r.Context(), r))
	defer cancel()
	if c.attach(ctx, cancel, conn, netConn) {
		c.serve(orDefault(h.MaxMessage, DefaultMaxMessage))
	}
	c.finish()
}

// The kinds of timer a connection arms.
type timerKind uint8

const (
	noTimer   timerKind = iota
	idleTimer           // waiting for a message with no call in flight
	readTimer           // reading a message
)

// What the reading goroutine does with a message it has read.
type action uint8

const (
	run    action = iota // run it
	refuse               // answer it with the shutdown error
	drop                 // nothing: the close frame is sent, no answer can follow
)

// wsConn is one served connection.
type wsConn struct {
	srv          *jsonrpc.Server
	buffered     *budget.Budget // the Handler's MaxBuffered
	idleTimeout  time.Duration  // 0: none
	readTimeout  time.Duration
	writeTimeout time.Duration
	slots        chan struct{} // one element per message in flight, up to MaxInFlight
	stopped      chan struct{} // closed by stop
	closeDone    chan struct{} // closed when the close begun by startClose has ended
	calls        sync.WaitGroup
	replyFunc    func([]byte) // c.reply, bound once

	// Set by attach, before the reading goroutine starts.
	ctx     context.Context
	cancel  context.CancelFunc
	conn    *websocket.Conn
	netConn net.Conn // the hijacked connection, or nil

	mu        sync.Mutex // protects the fields below
	attached  bool
	inflight  int  // messages dispatched and not yet answered
	waiting   bool // the reading goroutine waits for the first frame of a message
	stopping  bool // Shutdown: run no further message
	closing   bool // a close has begun, or the connection is ending: dispatch nothing
	closeSent bool // startClose began the close handshake
	killed    bool // Shutdown's deadline passed: close at once
	timer     *time.Timer
	kind      timerKind // what the timer is armed for, or noTimer
	deadline  time.Time // when the armed timer is due
}

// attach records the upgraded connection; false means Shutdown's deadline
// has passed and it must not be served.
func (c *wsConn) attach(ctx context.Context, cancel context.CancelFunc, conn *websocket.Conn, netConn net.Conn) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ctx, c.cancel, c.conn, c.netConn = ctx, cancel, conn, netConn
	c.attached = true
	return !c.killed // if stopping, the first awaitMessage closes
}

// serve reads and answers messages until reading fails: the peer closed the
// connection or broke it, a limit closed it, or the close handshake begun by
// startClose is over.
func (c *wsConn) serve(limit int64) {
	buf := make([]byte, 0, initialBuffer)
	for {
		c.awaitMessage()
		// The read's context is Background: the library closes the
		// connection when a read's context ends, and every way of ending a
		// read here closes the connection anyway (a timeout with a close
		// frame, Shutdown's deadline and a failed write at once).
		_, r, err := c.conn.Reader(context.Background())
		if err != nil {
			break
		}
		c.gotFrame()
		var taken int64
		buf, taken, err = readMessage(r, buf[:0], limit, c.buffered)
		c.gotMessage()
		if errors.Is(err, errBudget) {
			c.buffered.Give(taken)
			c.mu.Lock()
			c.startClose(websocket.StatusTryAgainLater, reasonBusy)
			c.mu.Unlock()
			break
		}
		if err != nil {
			c.buffered.Give(taken)
			break
		}
		ok := c.dispatch(buf)
		if cap(buf) > maxKeptBuffer {
			buf = make([]byte, 0, initialBuffer)
		}
		c.buffered.Give(taken) // the message is answered, or copied by the server
		if !ok {
			break
		}
	}
}

// finish ends the connection once its reading has stopped: the calls still
// in flight are cancelled (their answers can no longer be written), and the
// close handshake, begun by startClose or begun here, ends before the
// connection is closed, so that the peer's last frames are read and the
// socket is not closed on unread input.
func (c *wsConn) finish() {
	c.mu.Lock()
	started, killed := c.closeSent, c.killed
	c.closing = true
	c.disarm()
	cancel, conn := c.cancel, c.conn
	c.mu.Unlock()
	cancel()
	if killed && c.netConn != nil {
		c.netConn.Close()
	}
	c.calls.Wait()
	switch {
	case killed:
	case started:
		<-c.closeDone
	default:
		// Reading failed: the peer's close frame, a limit the library
		// answered with a close frame of its own, or a broken connection.
		// Close finishes the handshake where there is one to finish.
		conn.Close(websocket.StatusInternalError, "")
	}
	conn.CloseNow()
}

// Buffer sizes of a connection's reading.
const (
	initialBuffer = 4 << 10
	maxKeptBuffer = 64 << 10 // a larger buffer is dropped after its message
)

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
				buf = append(make([]byte, 0, n), buf...)
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

// dispatch runs the message msg, refuses it or drops it, and reports whether
// reading goes on.
func (c *wsConn) dispatch(msg []byte) bool {
	held := false
	select {
	case c.slots <- struct{}{}:
		held = true
	case <-c.stopped: // refused below, without waiting for a slot
	case <-c.ctx.Done():
		return false
	}
	switch c.begin() {
	case run:
		c.calls.Add(1)
		// The answer of a call that completes inline is appended after the
		// message, in the same buffer.
		c.srv.ProcessAsync(c.ctx, msg[len(msg):], msg, c.replyFunc)
		return true
	case refuse:
		if resp := appendRefusal(nil, msg); len(resp) > 0 {
			c.write(resp)
		}
	}
	if held {
		<-c.slots
	}
	return true
}

// reply writes the answer of a message and counts it answered.
func (c *wsConn) reply(resp []byte) {
	if len(resp) > 0 {
		c.write(resp)
	}
	<-c.slots
	c.end()
	c.calls.Done()
}

// write writes one answer. A failed write ends the connection, unless a
// close is under way, which ends it anyway.
func (c *wsConn) write(resp []byte) {
	ctx := c.ctx
	if c.writeTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.writeTimeout)
		defer cancel()
	}
	if c.conn.Write(ctx, websocket.MessageText, resp) == nil {
		return
	}
	c.mu.Lock()
	closing := c.closing
	c.mu.Unlock()
	if !closing {
		c.cancel()
		c.conn.CloseNow()
	}
}

// begin decides what to do with a message just read, counting it in flight
// when it runs.
func (c *wsConn) begin() action {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.closing:
		return drop
	case c.stopping:
		return refuse
	}
	c.inflight++
	return run
}

// end counts an answered message. When no call is left in flight and the
// reading goroutine waits for a message, the connection is idle: it closes
// if shutting down, and otherwise starts the idle timeout.
func (c *wsConn) end() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.inflight--
	if c.inflight == 0 && c.waiting {
		c.idle()
	}
}

// awaitMessage notes that the reading goroutine waits for a message, and
// calls idle when no call is in flight.
func (c *wsConn) awaitMessage() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.waiting = true
	if c.inflight == 0 {
		c.idle()
	}
}

// idle runs when the connection has no call in flight and its reading
// goroutine waits for a message, having answered or refused every message
// it read: a connection shutting down closes, others arm the idle timeout.
// c.mu must be held.
func (c *wsConn) idle() {
	switch {
	case c.closing:
	case c.stopping:
		c.startClose(websocket.StatusGoingAway, reasonShutdown)
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

// gotMessage notes that a message has been read.
func (c *wsConn) gotMessage() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.kind == readTimer {
		c.disarm()
	}
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
	}
}

// startClose begins the close handshake with code: the close frame is
// written, nothing more is dispatched, and the connection ends when the peer
// answers the close frame (after at most the library's timeouts). c.mu must
// be held.
func (c *wsConn) startClose(code websocket.StatusCode, reason string) {
	if c.closing || !c.attached {
		return
	}
	c.closing, c.closeSent = true, true
	c.disarm()
	conn := c.conn
	go func() {
		conn.Close(code, reason)
		close(c.closeDone)
	}()
}

// stop makes the connection run no further message; once its calls in
// flight are answered, and a message it is reading is refused, it closes
// with 1001 (going away).
func (c *wsConn) stop() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopping {
		return
	}
	c.stopping = true
	close(c.stopped)
	if c.inflight == 0 && c.waiting {
		c.idle()
	}
}

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

// Dial connects to a JSON-RPC server over WebSocket at url and returns the
// channel for a client.New, which reads messages of up to
// client.DefaultMaxMessage bytes (64 MiB); a longer one closes the
// connection with status 1009 and fails the client's calls. opts are passed
// to websocket.Dial; nil uses its defaults.
func Dial(ctx context.Context, url string, opts *websocket.DialOptions) (client.Channel, error) {
	conn, _, err := websocket.Dial(ctx, url, opts)
	if err != nil {
		return nil, err
	}
	conn.SetReadLimit(client.DefaultMaxMessage)
	ctx, cancel := context.WithCancel(context.Background())
	return &channel{conn: conn, ctx: ctx, cancel: cancel}, nil
}

type channel struct {
	conn   *websocket.Conn
	ctx    context.Context // ends reads when the channel closes
	cancel context.CancelFunc
}

// Send writes msg. The call's ctx only decides whether to start: the write
// itself runs under the channel's context, because the WebSocket library
// closes the connection when the context of a write ends during it, and one
// call's cancellation must not break the connection of the others.
func (c *channel) Send(ctx context.Context, msg []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return c.conn.Write(c.ctx, websocket.MessageText, msg)
}

func (c *channel) Recv() ([]byte, error) {
	_, msg, err := c.conn.Read(c.ctx)
	return msg, err
}

func (c *channel) Close() error {
	c.cancel()
	err := c.conn.Close(websocket.StatusNormalClosure, "")
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}
