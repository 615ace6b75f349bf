package stream

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/internal/budget"
	"github.com/jsonrpc-go/jsonrpc/transport"
)

// A conn is one served connection. Its read goroutine (serve) reads
// messages and runs ProcessAsync on them. Responses go through the framing's
// Writer, which only one goroutine uses at a time:
//
//   - Inline ordering: the read goroutine, and the goroutine of a suspended
//     call while the read goroutine waits for it. The hand-over is an atomic
//     counter of replies (replies), so an inline reply takes no lock.
//   - Concurrent ordering: whoever holds wmu.
type conn struct {
	st     settings
	srv    *Server
	rwc    io.ReadWriteCloser
	rdl    readDeadliner  // nil when rwc has no working read deadline
	wdl    writeDeadliner // nil when rwc has no working write deadline
	rd     Reader
	wr     Writer
	ctx    context.Context
	cancel context.CancelFunc
	stopAf func() bool // stops the context.AfterFunc watching ServeConn's ctx

	dst   []byte       // inline answers are appended here
	reply func([]byte) // replyInline or replyConcurrent, bound once

	// Read side, used by the read goroutine only.
	starter     starter        // rd, when it tells when a message begins
	newRead     bool           // a Read of the next message has started; no read from rwc yet
	newMsg      bool           // without a starter: no byte of the next message has been read
	msgDeadline time.Time      // when the message being read must be complete; set under dmu
	ahead       bool           // reading ahead while a suspended call runs (Inline)
	buffered    *budget.Budget // the Server's MaxBuffered
	sinceMsg    int64          // bytes read for the message being read
	taken       int64          // of them, taken from buffered
	inCall      []byte         // the message ProcessAsync is handling on this goroutine

	// Inline ordering.
	calls   uint64        // ProcessAsync calls made, times two
	replies atomic.Uint64 // replies delivered times two, plus 1 while the reader waits
	wake    chan struct{} // a reply wakes the waiting reader

	// Concurrent ordering; guarded by wmu.
	wmu         sync.Mutex
	cond        sync.Cond
	inflight    int  // requests passed to ProcessAsync and not yet replied to
	readerIdle  bool // the reader is blocked: replies must be flushed
	waiters     bool // the reader waits on cond
	flushQueued bool // the flusher has been asked to flush
	flushReq    chan struct{}
	flusherDone chan struct{}

	// running mirrors inflight for the read deadline, which is set under dmu
	// (Concurrent ordering).
	running atomic.Int64

	// idleArmable is set while the reader waits for a new message with no
	// idle timeout because calls are in flight; armIdle starts the timeout
	// when the last one replies. idleDeadline is when the wait for the
	// next message ends, once set: white space read meanwhile does not
	// move it. Guarded by dmu.
	idleArmable  bool
	idleDeadline time.Time
	readDeadline time.Time // the read deadline last set on rdl

	// Lifecycle.
	lingering bool        // lingerClose is draining the input; guarded by dmu
	dmu       sync.Mutex  // orders stopReading with the read deadlines
	stopping  atomic.Bool // Shutdown: start no call; read only what is buffered
	cmu       sync.Mutex  // guards err
	closed    atomic.Bool // close was called
	err       error       // why the connection was closed
	done      chan struct{}
}

type readDeadliner interface{ SetReadDeadline(time.Time) error }
type writeDeadliner interface{ SetWriteDeadline(time.Time) error }

var errStopping = errors.New("stream: connection stopping")

func newConn(s *Server, parent context.Context, rwc io.ReadWriteCloser, st settings) *conn {
	c := &conn{st: st, srv: s, rwc: rwc, done: make(chan struct{}), wake: make(chan struct{}, 1)}
	if d, ok := rwc.(readDeadliner); ok && d.SetReadDeadline(time.Time{}) == nil {
		c.rdl = d
	}
	if d, ok := rwc.(writeDeadliner); ok && d.SetWriteDeadline(time.Time{}) == nil {
		c.wdl = d
	}
	c.ctx, c.cancel = context.WithCancel(transport.WithContextValue(parent, rwc))
	c.stopAf = context.AfterFunc(parent, func() { c.close(parent.Err()) })
	c.buffered = s.gatesBudget()
	c.rd = st.framing.NewReader(connReader{c}, st.maxMessage)
	c.starter, _ = c.rd.(starter)
	c.wr = st.framing.NewWriter(connWriter{c})
	c.dst = make([]byte, 0, 4<<10)
	c.cond.L = &c.wmu
	if st.order == Concurrent {
		c.reply = c.replyConcurrent
		c.flushReq = make(chan struct{}, 1)
	} else {
		c.reply = c.replyInline
	}
	return c
}

// serve runs the connection: the read loop, then finish. When a method
// ends the read goroutine with runtime.Goexit, abandoned hands both to a
// new goroutine (the code after readLoop does not run on the old one).
func (c *conn) serve() error {
	if c.flushReq != nil {
		c.flusherDone = make(chan struct{})
		go c.flusher(c.flusherDone)
	}
	err := c.readLoop()
	c.buffered.Give(c.taken) // the message being read, if any, is dropped
	c.taken = 0
	return c.finish(err)
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
	c.drain()
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
	if c.flushReq != nil {
		close(c.flushReq)
		<-c.flusherDone
	}
	c.stopAf()
	c.srv.forget(c)
	close(c.done)
	if graceful {
		return ErrServerClosed
	}
	c.cmu.Lock()
	defer c.cmu.Unlock()
	return c.err
}

// serverEnds reports whether err, which ended the read loop, is the server's
// decision to end a working connection (a timeout, input that breaks the
// framing or its limit), after which the peer may still be sending.
func serverEnds(err error) bool {
	var tl *TooLargeError
	return errors.Is(err, os.ErrDeadlineExceeded) || errors.Is(err, ErrMalformed) || errors.As(err, &tl) || errors.Is(err, errBusy)
}

func (c *conn) readLoop() error {
	var (
		msg     []byte
		err     error
		pending bool // msg and err were read ahead and are still to be handled
	)
	defer func() {
		if c.inCall != nil {
			// The goroutine ends inside ProcessAsync, which will not
			// reply.
			msg := c.inCall
			c.inCall = nil
			c.abandoned(msg)
		}
	}()
	for {
		if err := c.closedErr(); err != nil {
			return err
		}
		if !pending {
			c.startRead()
			msg, err = c.rd.Read()
		}
		pending = false
		if err != nil {
			var tl *TooLargeError
			if errors.As(err, &tl) {
				resp := transport.AppendError(nil, jsonrpc.NewError(jsonrpc.CodeLimitExceeded, "").
					WithData(fmt.Sprintf("message exceeds the limit of %d bytes", tl.Limit)), tl.ID)
				c.writeOwn(resp)
				if tl.Recoverable {
					continue
				}
			}
			if errors.Is(err, errBusy) {
				c.writeOwn(transport.AppendError(nil, errBusyAnswer, nil))
			}
			if c.stopping.Load() {
				return errStopping
			}
			return err
		}
		if c.stopping.Load() {
			// Read before Shutdown stopped the reading, and not started.
			c.refuse(msg)
			continue
		}
		if c.st.order == Concurrent {
			if !c.acquire() {
				c.refuse(msg)
				continue
			}
			c.process(msg)
			continue
		}
		c.calls += 2
		c.process(msg)
		if c.replies.Load() != c.calls {
			msg, err, pending = c.await()
		}
	}
}

// errShutdown answers the requests that Shutdown leaves unstarted.
var errShutdown = jsonrpc.NewError(jsonrpc.CodeLimitExceeded, "").WithData("server shutting down")

// refuse answers a message that will not run because the Server is shutting
// down: each request in it with errShutdown.
func (c *conn) refuse(msg []byte) {
	c.writeOwn(appendErrors(c.dst[:0], msg, errShutdown))
}

// process hands msg to the server. readLoop's deferred check notices a
// method that ends the read goroutine with runtime.Goexit (inCall is still
// set then).
func (c *conn) process(msg []byte) {
	c.inCall = msg
	c.st.handler.ProcessAsync(c.ctx, c.dst[:0], msg, c.reply)
	c.inCall = nil
}

// errGoexit answers the requests of a message whose handling ended the
// goroutine running it.
var errGoexit = jsonrpc.NewError(jsonrpc.CodeInternalError, "").WithData("the call ended without returning (runtime.Goexit)")

// abandoned runs on the read goroutine as it ends inside ProcessAsync (a
// method called runtime.Goexit, or a panic escaped): ProcessAsync will not
// reply, so it answers each request of msg with errGoexit in its place, and
// a new goroutine goes on serving the connection. (The code after readLoop
// in serve does not run on the goroutine that ends.)
func (c *conn) abandoned(msg []byte) {
	c.reply(appendErrors(nil, msg, errGoexit))
	go func() {
		if err := c.finish(c.readLoop()); err != nil && err != ErrServerClosed {
			c.srv.logf("stream: connection: %v", err)
		}
	}()
}

// replyInline writes a response under Inline ordering. It runs on the read
// goroutine, or on a suspended call's goroutine while the reader does not
// touch the writer.
func (c *conn) replyInline(resp []byte) {
	c.write(resp)
	if c.replies.Add(2)&1 != 0 {
		// The reader is reading ahead, waiting for this reply: flush for
		// it, start the idle timeout of the read it may be blocked in, and
		// wake it.
		c.flush()
		c.armIdle()
		c.wake <- struct{}{}
	}
}

// await runs while a call that suspended under Inline ordering has not
// replied. It reads the next message meanwhile, without handling it, so
// that a peer that goes away is noticed at once: when the read fails (the
// input ended, the connection broke, a message timed out) and the server is
// not shutting down, the call's context is cancelled. It returns after the
// reply with what it read, for the read loop to handle next (pending), or
// with pending false when the reply came before it started reading.
//
// While it reads, the writer belongs to the suspended call (beforeRead does
// not flush), and a new message has no idle timeout until the reply comes
// (beforeRead and armIdle).
func (c *conn) await() (msg []byte, err error, pending bool) {
	v := c.replies.Load()
	if v == c.calls || !c.replies.CompareAndSwap(v, v|1) {
		return nil, nil, false // the reply came meanwhile
	}
	c.ahead = true
	c.startRead()
	msg, err = c.rd.Read()
	c.ahead = false
	var tl *TooLargeError
	if err != nil && !c.stopping.Load() && !errors.As(err, &tl) {
		c.cancel() // the peer is gone: stop the call
	}
	<-c.wake
	c.replies.Add(^uint64(0)) // clear the waiting bit
	return msg, err, true
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
		return c.starter.begun()
	}
	return !c.newMsg
}

// busy reports whether calls are in flight while the reader reads: the
// suspended call it reads ahead of (Inline), or any (Concurrent). The
// connection is not idle while they run. It runs on the read goroutine.
func (c *conn) busy() bool {
	if c.st.order == Concurrent {
		return c.running.Load() > 0
	}
	return c.ahead && c.replies.Load()>>1 != c.calls>>1
}

// armIdle starts the idle timeout of a read blocked waiting for a new
// message while calls were in flight (see beforeRead), when the last of
// them replies.
func (c *conn) armIdle() {
	if c.rdl == nil || c.st.idle <= 0 {
		return
	}
	c.dmu.Lock()
	defer c.dmu.Unlock()
	if c.idleArmable && !c.stopping.Load() {
		c.idleArmable = false
		c.idleDeadline = time.Now().Add(c.st.idle)
		c.setReadDeadline(c.idleDeadline)
	}
}

// acquire takes a slot for one request under Concurrent ordering, waiting
// while MaxInFlight messages are unanswered. It reports false, taking none,
// once Shutdown has stopped the reading.
func (c *conn) acquire() bool {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	for c.inflight >= c.st.maxInFlight && !c.stopping.Load() {
		c.flush()
		c.readerIdle, c.waiters = true, true
		c.cond.Wait()
	}
	c.readerIdle = false
	if c.stopping.Load() {
		return false
	}
	c.inflight++
	c.running.Add(1)
	return true
}

// replyConcurrent writes a response under Concurrent ordering, from any
// goroutine.
func (c *conn) replyConcurrent(resp []byte) {
	if c.running.Add(-1) == 0 {
		defer c.armIdle() // after wmu is released: dmu is never taken under it
	}
	c.wmu.Lock()
	c.write(resp)
	c.inflight--
	if c.readerIdle && !c.flushQueued {
		// Leave the flush to the flusher, so that replies finishing
		// together share a write.
		c.flushQueued = true
		c.flushReq <- struct{}{}
	}
	if c.waiters {
		c.waiters = false
		c.cond.Signal()
	}
	c.wmu.Unlock()
}

// flusher flushes, under Concurrent ordering, the replies written while the
// reader is blocked: each request to flush covers every reply written before
// the flusher takes the lock.
func (c *conn) flusher(done chan<- struct{}) {
	defer close(done)
	for range c.flushReq {
		c.wmu.Lock()
		c.flushQueued = false
		c.flush()
		c.wmu.Unlock()
	}
}

// drain waits until every call in flight has replied, and flushes.
func (c *conn) drain() {
	if c.st.order != Concurrent {
		c.flush()
		return
	}
	c.wmu.Lock()
	c.readerIdle = true
	for c.inflight > 0 {
		c.flush()
		c.waiters = true
		c.cond.Wait()
	}
	c.flush()
	c.wmu.Unlock()
}

// writeOwn writes a response of the read goroutine's own (not a reply).
func (c *conn) writeOwn(resp []byte) {
	if c.st.order == Concurrent {
		c.wmu.Lock()
		c.write(resp)
		c.wmu.Unlock()
		return
	}
	c.write(resp)
}

// write appends a response to the writer; the caller owns it. The size of
// a response is bounded where it is built (jsonrpc.Limits.MaxResponse).
func (c *conn) write(resp []byte) {
	if len(resp) == 0 || c.closed.Load() {
		return // nothing to write, or nobody to write it to
	}
	if err := c.wr.Write(resp); err != nil {
		c.close(err)
	}
}

// flush flushes the writer; the caller owns it.
func (c *conn) flush() {
	if c.wr.Buffered() == 0 {
		return
	}
	if err := c.wr.Flush(); err != nil {
		c.close(err)
	}
}

// beforeRead runs before each read from the connection, which may block:
// it flushes the responses written so far and sets the read deadline.
func (c *conn) beforeRead() error {
	switch {
	case c.st.order == Concurrent:
		c.wmu.Lock()
		c.flush()
		c.readerIdle = true
		c.wmu.Unlock()
	case !c.ahead: // reading ahead, the writer is the suspended call's
		c.flush()
	}
	c.dmu.Lock()
	defer c.dmu.Unlock()
	if c.stopping.Load() {
		return errStopping
	}
	c.idleArmable = false
	if c.newRead {
		c.newRead = false
		c.idleDeadline, c.msgDeadline = time.Time{}, time.Time{}
	}
	if c.rdl == nil {
		return nil
	}
	var d time.Time
	switch {
	case !c.begun():
		// Waiting for the next message. While calls are in flight the
		// connection is not idle: armIdle starts the timeout when the last
		// one replies. busy is read under dmu, as armIdle runs, so that no
		// reply is missed. White space between messages does not restart
		// the timeout, nor turn it into the read timeout.
		switch {
		case c.st.idle <= 0:
		case !c.idleDeadline.IsZero():
			d = c.idleDeadline
		case c.busy():
			c.idleArmable = true
		default:
			c.idleDeadline = time.Now().Add(c.st.idle)
			d = c.idleDeadline
		}
	case c.st.readTimeout > 0:
		// Inside a message: the read timeout runs from the first read
		// that finds it begun.
		if c.msgDeadline.IsZero() {
			c.msgDeadline = time.Now().Add(c.st.readTimeout)
		}
		d = c.msgDeadline
	}
	c.setReadDeadline(d)
	return nil
}

// setReadDeadline sets the read deadline, when it changes: reads that go on
// under one deadline (a message arriving in pieces) do not reset it. It
// runs under dmu. An error (net.Pipe's after the peer closed) is left to
// the read to report.
func (c *conn) setReadDeadline(d time.Time) {
	if d.Equal(c.readDeadline) {
		return
	}
	c.readDeadline = d
	c.rdl.SetReadDeadline(d)
}

// afterRead runs after each read from the connection.
func (c *conn) afterRead(n int) {
	if c.st.order == Concurrent {
		c.wmu.Lock()
		c.readerIdle = false
		c.wmu.Unlock()
	}
	if n > 0 {
		c.newMsg = false
	}
}

// stopReading makes the read goroutine stop reading from the connection:
// it handles what it has read already (answering requests not yet started
// with errShutdown), and is interrupted when it is blocked reading or
// waiting for a slot (MaxInFlight).
func (c *conn) stopReading() {
	c.dmu.Lock()
	c.stopping.Store(true)
	switch {
	case c.lingering:
		// Closing already: the linger ends by itself.
	case c.rdl != nil:
		c.setReadDeadline(time.Unix(1, 0))
	default:
		if cr, ok := c.rwc.(interface{ CloseRead() error }); !ok || cr.CloseRead() != nil {
			// No way to interrupt a read alone: the answers in flight are
			// lost.
			c.close(ErrServerClosed)
		}
	}
	c.dmu.Unlock()
	c.wmu.Lock()
	if c.waiters {
		c.waiters = false
		c.cond.Broadcast()
	}
	c.wmu.Unlock()
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
	if !ok || c.rdl == nil || c.st.linger <= 0 || c.closed.Load() || cw.CloseWrite() != nil {
		c.close(why)
		return
	}
	c.dmu.Lock()
	c.lingering = true
	c.setReadDeadline(time.Now().Add(c.st.linger))
	c.dmu.Unlock()
	buf := c.dst[:cap(c.dst)] // no call is in flight
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
	c.cmu.Lock()
	if c.closed.Load() {
		c.cmu.Unlock()
		return
	}
	c.err = why
	c.closed.Store(true)
	c.cmu.Unlock()
	c.cancel()
	c.rwc.Close()
}

// closedErr returns why the connection was closed, or nil while it is open.
func (c *conn) closedErr() error {
	if !c.closed.Load() {
		return nil
	}
	c.cmu.Lock()
	defer c.cmu.Unlock()
	if c.err == nil {
		return os.ErrClosed
	}
	return c.err
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
// what passes budget.Small of them from the Server's MaxBuffered, twice:
// the framing's buffer, which grows by doubling as the bytes arrive, holds
// up to twice what it read. false means the budget has no room.
func (c *conn) account(n int) bool {
	c.sinceMsg += int64(n)
	return c.buffered.Hold(&c.taken, 2*max(c.sinceMsg-budget.Small, 0))
}

// errBusy is the read error of a message for which the Server's
// MaxBuffered has no room.
var errBusy = errors.New("stream: MaxBuffered spent")

// errBusyAnswer answers a message refused for errBusy.
var errBusyAnswer = jsonrpc.NewError(jsonrpc.CodeLimitExceeded, "").WithData("server busy: too many large messages at once")

// connWriter is the io.Writer under the framing's Writer.
type connWriter struct{ c *conn }

func (w connWriter) Write(p []byte) (int, error) {
	if w.c.wdl != nil && w.c.st.writeTimeout > 0 {
		w.c.wdl.SetWriteDeadline(time.Now().Add(w.c.st.writeTimeout))
	}
	return w.c.rwc.Write(p)
}
