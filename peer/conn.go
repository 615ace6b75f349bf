package peer

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/internal/keys"
	"github.com/jsonrpc-go/jsonrpc/internal/registry"
	"github.com/jsonrpc-go/jsonrpc/internal/wire"
	"github.com/jsonrpc-go/jsonrpc/transport"
)

// Options configure a Conn.
type Options struct {
	// Server answers the peer's calls and notifications: a
	// *jsonrpc.Server, or a transport.Handler that wraps one. nil answers
	// every call with "Method not found".
	Server transport.Handler

	// Order is how the peer's messages run; the zero value is Ordered.
	Order Ordering

	// Protocol is the profile of the protocol spoken: its cancel
	// notification, its messages of its own (progress among them), the
	// codes the library chooses.
	Protocol Protocol

	// Caller makes the Conn take every response it reads as the answer
	// to a call of its own, also before it has made one, and never pass
	// a response to Server. Without it, until the Conn first calls its
	// peer, a message is passed to Server whatever it holds, as a server
	// that only answers must treat it (a response object is an invalid
	// request). A client sets it.
	Caller bool

	// Limits bound the Conn's queues (its zero value means the
	// defaults). A Conn applies MaxInFlight, MaxQueued, MaxPush and
	// MaxPushBytes, and gives the packages above it theirs (Conn.Limits);
	// the others are its host's, which times its carrier's reads
	// (transport.ReadClock).
	transport.Limits

	// OnIdle, when set, runs when the last message in flight has been
	// answered and no call of the Conn's own waits for an answer: the
	// connection is idle. It runs on the goroutine that answered, and
	// must not block.
	OnIdle func()

	// Logger, when set, logs at slog.LevelWarn each message of the
	// peer's that the Conn refuses without running it: at Shutdown
	// ("server shutting down") and past MaxInFlight ("too many calls in
	// flight"), with the reason ("reason") and the message's size
	// ("bytes"). A transport adds what identifies the connection
	// (Logger.With). nil logs nothing.
	Logger *slog.Logger
}

// ErrClosed is the error, wrapped with the cause, of the calls of a Conn
// whose transport failed or was closed.
var ErrClosed = errors.New("jsonrpc: connection closed")

// ErrNotBlocking is the error of a call made from a method that is not
// registered with jsonrpc.Blocking, under that method's context: such a
// method runs on the goroutine that reads the connection, so it cannot
// wait for its peer's answer, which that goroutine would read.
var ErrNotBlocking = errors.New("jsonrpc: a method not registered Blocking cannot wait for its peer")

// errShutdown answers the calls that the Conn will not run because it is
// shutting down.
var errShutdown = jsonrpc.NewError(jsonrpc.CodeLimitExceeded, "").WithData("server shutting down")

// errNoRoom answers the calls the Conn has no room for (see MaxInFlight).
var errNoRoom = jsonrpc.NewError(jsonrpc.CodeLimitExceeded, "").WithData("too many calls in flight")

// A Conn is one end of a two-way JSON-RPC connection: it answers the
// peer's calls with its Server and calls the peer on the same transport.
// Run reads the transport; methods reach the Conn through their context
// (FromContext). A Conn is safe for concurrent use.
type Conn struct {
	t       transport.Conn
	ready   func() bool          // the carrier's Traits.Ready; nil: any Read may wait
	clock   *transport.ReadClock // the carrier's Traits.Clock, told when the Conn is busy; nil: none
	srv     transport.Handler
	fast    transport.RequestHandler // srv, when it is one: it takes the classified request
	given   *jsonrpc.Request         // the carrier's Traits.Classified, until the first message takes it
	proto   Protocol
	codes   jsonrpc.Codes  // proto.Codes with the defaults applied
	ctxCode *jsonrpc.Codes // &codes, when proto gives codes: the Server's for the calls (jsonrpc.WithCodes)
	order   policy
	caller  bool
	onIdle  func()
	logger  *slog.Logger    // Options.Logger; nil logs nothing
	ctx     context.Context // the context of every dispatch: carries the Conn, the tracker, the inline mark
	flushes bool            // t buffers writes: Flush before reading (see Run)

	// The read loop's own.
	dst   []byte       // inline answers are appended here
	cur   *incoming    // the record of the next message
	first incoming     // the first record, made with the Conn
	scan  wire.Scanner // the classifier of two-way messages
	kind  wire.MsgKind // the message being handled, as classified; MsgOther when it was not
	sc    wire.Scanned // it and its members, when classified
	pmsg  Message      // the message offered to the preempters
	// A batch's scan, when classified: its first registry.BatchScan
	// requests (made on the first batch), and ScanBatch's results.
	batch []wire.Request
	barr  []byte
	bn    int

	// current is the message being dispatched, for Begin. One goroutine
	// dispatches at a time: the read loop while the queue is empty, the
	// pump otherwise (state.pumping), handed over under mu.
	current *incoming
	pdst    []byte // the pump's answers

	gate atomic.Bool // the read loop may dispatch without taking mu: state.open()

	// mu guards the state of the Conn that changes: the peer's messages
	// (st, trackers), the calls of its own (pending), the
	// outbox and the writer (out, see writer.go), subscriptions, and the
	// end (err). It is the Conn's one mutex.
	mu       sync.Mutex
	changed  chan struct{} // closed at the next change of st or out (waitLocked, wakeLocked)
	st       state
	trackers map[string]*tracked // calls in flight and queued, by id, for cancellation
	pending  map[uint64]chan<- response
	out      outbox
	locals   map[any]any   // the state of the packages above (Local)
	onClose  []func(error) // to run once the read loop has ended (OnClose)
	err      error         // set once the read loop has ended: calls fail with it

	// queued says that messages wait in the outbox, for a holder of the
	// writer that does not take mu to look (the read loop).
	queued atomic.Bool
	// readerWrites says that the read loop holds the writer; the read
	// loop's own.
	readerWrites bool
	// exchanges is set when the carrier sends each message in an
	// exchange of its own (Traits.Exchanges): senders write at once.
	exchanges bool
	// inHand is set when the carrier's input is all in hand
	// (Traits.InputInHand): its read loop writes, two-way or not.
	inHand bool

	// Outgoing calls.
	nextID atomic.Uint64
	// twoWay is set once the Conn has called its peer, or from the start
	// for a Caller or a Protocol with notifications of its own: from then
	// on the read loop and the pump never write to the transport
	// themselves, which could block them while the peer, blocked writing
	// to us, does not read; their writes go through out.
	twoWay atomic.Bool
	// preempts are the preempters (Protocol's, then Preempt's), copied
	// on write under mu; nil while there are none. cancels says that the
	// Protocol has some: the peer may cancel its calls.
	preempts atomic.Pointer[[]Preempter]
	pbuf     [4]Preempter // the Protocol's, in place while they fit (initPreempters)
	plist    []Preempter  // pbuf's used part, which preempts points to until Preempt adds one
	cancels  bool
	lim      transport.Limits // Options.Limits, with the defaults applied
	held     atomic.Int32     // functions waiting for the answer of their call (AfterAnswer)
	done     chan struct{}    // closed when the read loop has ended
}

// state is the Conn's bookkeeping of the peer's messages. It changes only
// in update, which checks its invariants.
type state struct {
	running  int         // messages that went on to run on goroutines of their own
	barriers int         // of them, the ones the Order makes later messages wait for
	queue    []*incoming // messages read and waiting to run, in order
	queued   int         // bytes in queue
	pumping  bool        // a pump goroutine runs the queue
	stopping bool        // Shutdown: run nothing more
	outgoing int         // calls of the Conn's own waiting for answers
}

// incoming is one message of the peer's on its way through the Conn.
type incoming struct {
	c         *Conn
	phase     atomic.Uint32
	batch     bool
	barrier   bool   // counted in state.barriers
	notify    bool   // a notification; known once it is queued or runs on
	id        []byte // a single request's id, once it is queued or runs on
	msg       []byte // a copy, while queued
	answer    []byte // the answer to a message the carrier refused (answerInTurn), if any
	cancelled atomic.Bool
	reply     func([]byte)

	// async is set when the message runs on a goroutine of its own
	// (Begin): its answer may come from there. Set by the dispatcher.
	async bool
	// queuedMsg is set for a message the pump dispatches (enqueue,
	// answerInTurn): its answer comes on the pump. Set before it is queued.
	queuedMsg bool

	// after are the functions waiting for the call's answer
	// (AfterAnswer); guarded by c.mu.
	after []func()
}

// Phases of an incoming message.
const (
	dispatching uint32 = iota // ProcessAsync has not returned
	answered                  // answered before ProcessAsync returned
	detached                  // running on after ProcessAsync returned
)

type tracked struct {
	cancel context.CancelFunc // of a call that runs; nil while queued
	in     *incoming          // the call's message, when it is not a batch
}

type connKey struct{}
type inlineKey struct{}

// connContext is the Conn's context: ctx with the values a call's
// context carries on a Conn (FromContext, its tracker, NullParams, the
// mark of an inline call), in one allocation.
type connContext struct {
	context.Context
	c *Conn
}

func (x *connContext) Value(key any) any {
	switch key.(type) {
	case connKey, inlineKey:
		return x.c
	case keys.Tracker:
		return keys.CallTracker((*tracker)(x.c))
	case keys.Codes:
		if x.c.ctxCode != nil {
			return x.c.ctxCode
		}
	case keys.NullParams:
		if x.c.proto.NullParams {
			return true
		}
	}
	return x.Context.Value(key)
}

// New returns a Conn over the carrier t, as t's Traits say it can be
// used. ctx is the base of the contexts of the methods it runs: cancelling
// it cancels them. Call Run to serve it.
func New(ctx context.Context, t transport.Carrier, opts Options) *Conn {
	lim := opts.Limits.WithDefaults()
	c := &Conn{
		t:         t.Conn,
		ready:     t.Ready,
		clock:     t.Clock,
		exchanges: t.Exchanges,
		inHand:    t.InputInHand,
		srv:       opts.Server,
		proto:     opts.Protocol,
		order:     opts.Order.policy(),
		lim:       lim,
		caller:    opts.Caller,
		onIdle:    opts.OnIdle,
		logger:    opts.Logger,
		done:      make(chan struct{}),
	}
	if c.srv == nil {
		c.srv = jsonrpc.NewServer()
	}
	c.fast, _ = c.srv.(transport.RequestHandler)
	c.given = t.Classified
	c.codes = c.proto.Codes.WithDefaults()
	if c.proto.Codes != (jsonrpc.Codes{}) {
		c.ctxCode = &c.codes
	}
	c.initPreempters()
	if c.caller || c.cancels {
		c.twoWay.Store(true)
	}
	c.ctx = &connContext{Context: ctx, c: c}
	c.first.c = c
	c.first.reply = c.first.onReply
	c.cur = &c.first
	if c.inHand {
		c.dst = make([]byte, 0, 512) // one request's answer, mostly small
	} else {
		c.dst = make([]byte, 0, 4<<10)
	}
	c.gate.Store(true)
	return c
}

// FromContext returns the Conn whose peer made the call that ctx belongs
// to, or nil when the call did not come over a two-way connection (HTTP,
// for one). A method uses it to notify or call its peer.
func FromContext(ctx context.Context) *Conn {
	c, _ := ctx.Value(connKey{}).(*Conn)
	return c
}

func (c *Conn) newIncoming() *incoming {
	in := &incoming{c: c}
	in.reply = in.onReply
	return in
}

// Run reads the transport and handles each message until Read fails, then
// fails the calls of the Conn's own still waiting with an error wrapping
// ErrClosed, and calls end with Read's error. Messages already running go
// on; Wait waits for them.
//
// A method that ends the read loop's goroutine with runtime.Goexit (one
// not registered Blocking runs on it) has its calls answered with an
// internal error, and Run goes on on a new goroutine, which calls end: the
// goroutine that called Run then never returns from it.
func (c *Conn) Run(end func(error)) {
	err := c.readLoop(end)
	c.finish(err, end)
}

func (c *Conn) finish(err error, end func(error)) {
	c.sendQueued() // the read loop lets go of the writer
	c.mu.Lock()
	if err == io.EOF {
		c.err = errClosedEOF
	} else {
		c.err = fmt.Errorf("%w: %w", ErrClosed, err)
	}
	for id, ch := range c.pending {
		close(ch)
		delete(c.pending, id)
	}
	fs := c.onClose
	c.onClose = nil
	c.mu.Unlock()
	close(c.done)
	for _, f := range fs {
		f(c.err)
	}
	if end != nil {
		end(err)
	}
}

// errClosedEOF is the error of a Conn whose input ended cleanly, made
// once.
var errClosedEOF = fmt.Errorf("%w: %w", ErrClosed, io.EOF)

// Done returns a channel that is closed when the Conn's read loop has
// ended: the peer is gone, or the connection is closing.
func (c *Conn) Done() <-chan struct{} { return c.done }

func (c *Conn) readLoop(end func(error)) (err error) {
	var msg []byte
	inCall := false
	defer func() {
		if inCall {
			// The goroutine ends inside ProcessAsync (runtime.Goexit).
			c.abandoned(msg, end)
		}
	}()
	for {
		if c.ready == nil || !c.ready() {
			// Read may block: send the answers so far first.
			if err := c.sendQueued(); err != nil {
				return err
			}
		}
		msg, err = c.t.Read()
		if err != nil {
			refused, ok := errors.AsType[*transport.MessageError](err)
			if !ok {
				return err
			}
			c.answerInTurn(transport.AppendError(nil, c.codes.Refuse(refused.Err, false), refused.ID))
			if !refused.Recoverable {
				return err
			}
			continue
		}
		inCall = true
		c.handle(msg)
		inCall = false
	}
}

// errGoexit answers the calls of a message whose method ended the
// goroutine that ran it.
var errGoexit = jsonrpc.NewError(jsonrpc.CodeInternalError, "").WithData("the call ended without returning (runtime.Goexit)")

// abandoned runs as the read loop's goroutine ends inside ProcessAsync: it
// answers the message in its place and goes on on a new goroutine.
func (c *Conn) abandoned(msg []byte, end func(error)) {
	in := c.cur
	c.cur = c.newIncoming()
	if in.phase.CompareAndSwap(dispatching, answered) {
		c.putReader(transport.AppendErrors(nil, msg, errGoexit))
	}
	go c.Run(end)
}

// handle handles one message the read loop read. Once the Conn is
// two-way or has preempters, the message is classified here, once, by
// internal/wire (on decoded member names): answers to the Conn's own calls
// are handled at once, calls and notifications are offered to the
// preempters, and what the classification found goes on with the message
// (c.kind, c.sc).
func (c *Conn) handle(msg []byte) {
	// Clipped, as the Server clips it: the spans of the classification
	// are at the same distances from its end (wire.Rebase).
	msg = msg[:len(msg):len(msg)]
	c.kind = wire.MsgOther
	ps := c.preempts.Load()
	if ps != nil || c.caller || c.nextID.Load() > 0 {
		if isBatch(msg) {
			if c.batch == nil {
				c.batch = make([]wire.Request, max(registry.BatchScan, 1))
			}
			c.kind, c.barr, c.bn, _ = c.scan.ClassifyBatch(msg, c.batch)
			*c.sc.Req() = c.batch[0]
			c.sc.Set(msg, c.kind)
		} else if g := (*wire.Scanned)(c.given); g != nil && g.Of(msg) {
			c.sc = *(*wire.Scanned)(g)
			c.kind = c.sc.Kind()
		} else {
			c.kind, _ = c.sc.Classify(c.scan, msg)
		}
		c.given = nil
		switch c.kind {
		case wire.MsgResponse, wire.MsgResponses:
			c.deliver(msg, c.kind, c.sc.Req())
			return
		case wire.MsgNotification, wire.MsgRequest:
			if ps != nil && c.preempt(*ps, c.kind) {
				return
			}
		}
	}
	if c.gate.Load() {
		c.run(c.cur, msg, c.dst[:0], true)
		return
	}
	c.slow(msg)
}

// idKey is the key of a request id in the Conn's maps: the id as sent,
// but a string with escapes in its shortest form, so that the id "a/b" of
// a request is the id "a\/b" of the cancel notification that names it.
func idKey(id []byte) string {
	if len(id) > 0 && id[0] == '"' && bytes.IndexByte(id, '\\') >= 0 {
		if s, ok := wire.Unquote(id, false); ok {
			return string(wire.AppendQuote(nil, s))
		}
	}
	return string(id)
}

// run dispatches msg with the record in: ProcessAsync answers it at once,
// or it runs on (detached) and is counted in the state until it answers.
// reader says that the read loop dispatches, with its own record.
func (c *Conn) run(in *incoming, msg, dst []byte, reader bool) {
	if reader {
		in.notify, in.id, in.barrier, in.async = false, nil, false, false
		in.cancelled.Store(false)
		in.batch = isBatch(msg)
	}
	c.current = in
	if !reader || c.fast == nil || !c.processScanned(msg, dst, in) {
		c.srv.ProcessAsync(c.ctx, dst, msg, in.reply)
	}
	if in.phase.Load() != dispatching {
		if reader && in.async {
			// Answered by the call's own goroutine, which may still be
			// using the record (AfterAnswer): the next message gets another.
			c.cur = c.newIncoming()
			return
		}
		in.phase.Store(dispatching) // answered: the record serves again
		return
	}
	// The call may run on: count it, unless it answered meanwhile.
	if !in.batch && !in.notify && in.id == nil {
		if reader && c.kind != wire.MsgOther {
			in.notify = c.kind == wire.MsgNotification
		} else {
			var r wire.Request
			k, _ := c.scan.Classify(msg, &r)
			in.notify = k == wire.MsgNotification
		}
	}
	detachedNow := false
	c.update(func(st *state) {
		if !in.phase.CompareAndSwap(dispatching, detached) {
			return
		}
		detachedNow = true
		st.running++
		if c.order.barrier(in) {
			in.barrier = true
			st.barriers++
		}
	})
	if !detachedNow {
		in.phase.Store(dispatching)
		return
	}
	if reader {
		c.cur = c.newIncoming()
	}
}

// processScanned hands the read loop's message, classified by handle, to
// the Server with what the classification found (a RequestHandler's
// ProcessRequest; a *jsonrpc.Server's batch), so that it is not scanned
// again; false means it was not handed on (the message was not
// classified, or the batch's server must scan it itself).
func (c *Conn) processScanned(msg, dst []byte, in *incoming) bool {
	switch c.kind {
	case wire.MsgRequest, wire.MsgNotification:
		c.fast.ProcessRequest(c.ctx, dst, (*jsonrpc.Request)(&c.sc), in.reply)
		return true
	case wire.MsgBatch:
		s, ok := c.srv.(*jsonrpc.Server)
		return ok && registry.ProcessScannedBatch(s, c.ctx, dst, msg, c.barr, c.batch, c.bn, nil, in.reply)
	}
	return false
}

func isBatch(msg []byte) bool {
	for _, b := range msg {
		switch b {
		case ' ', '\t', '\n', '\r':
			continue
		case '[':
			return true
		}
		return false
	}
	return false
}

// onReply is the reply function of ProcessAsync for the message of in.
func (in *incoming) onReply(resp []byte) {
	c := in.c
	resp = c.cancelledAnswer(in, resp)
	async, queued := in.async, in.queuedMsg // the dispatcher's, until the phase changes
	if async && len(resp) > 0 {
		// From the call's goroutine, maybe before ProcessAsync returned:
		// queued before the phase changes, under mu, so that a dispatcher
		// that sees the call answered sees its answer waiting too (and
		// sends it before it reads); taken back when the dispatcher let
		// the call run on first (detached, under mu): it is sent below.
		// Queued after the phase changed, the answer could come once the
		// dispatcher had looked for what waits, and wait for its next
		// message.
		c.mu.Lock()
		c.addLocked(resp)
		if in.phase.CompareAndSwap(dispatching, answered) {
			c.mu.Unlock()
			if c.held.Load() > 0 {
				c.afterAnswer(in)
			}
			return
		}
		c.unaddLocked()
		c.mu.Unlock()
	} else if in.phase.CompareAndSwap(dispatching, answered) {
		// Before ProcessAsync returned: the dispatcher sends it (the read
		// loop before it reads; the pump after the message).
		switch {
		case async:
			c.putOther(resp) // from the call's goroutine
		case queued:
			c.putPump(resp)
		default:
			c.putReader(resp)
		}
		if c.held.Load() > 0 {
			c.afterAnswer(in)
		}
		return
	}
	c.answer(resp)
	in.phase.Store(answered) // the record is not used again
	if c.held.Load() > 0 {
		c.afterAnswer(in)
	}
	c.update(func(st *state) {
		st.running--
		if in.barrier {
			st.barriers--
		}
	})
}

// cancelledAnswer returns the answer to send for the message of in, which
// answered resp: resp, unless the peer cancelled the call.
func (c *Conn) cancelledAnswer(in *incoming, resp []byte) []byte {
	if !in.cancelled.Load() || in.batch || len(resp) == 0 {
		return resp
	}
	if !c.proto.AnswerCancelled {
		return nil
	}
	return transport.AppendError(nil, c.errCancelled(), in.id)
}

// slow handles a message when the gate is shut: it runs it if the state
// allows after all, and queues it otherwise.
func (c *Conn) slow(msg []byte) {
	c.mu.Lock()
	st := &c.st
	for {
		switch {
		case st.stopping && len(st.queue) == 0 && !st.pumping && c.order.admit(st, c.lim.MaxInFlight):
			c.mu.Unlock()
			c.refuse(msg, errShutdown, true)
			return
		case st.stopping:
			// Refused in its turn, after the answers before it (the
			// reader reads only what it has buffered now).
			c.mu.Unlock()
			c.enqueue(msg)
			return
		case c.open(st):
			c.mu.Unlock()
			c.run(c.cur, msg, c.dst[:0], true)
			return
		case c.room(st, msg):
			c.mu.Unlock()
			c.enqueue(msg)
			return
		case st.outgoing > 0:
			// An answer we wait for may follow: read on.
			c.mu.Unlock()
			c.refuse(msg, errNoRoom, true)
			return
		}
		// Wait for room, having sent what the peer may be waiting for.
		c.mu.Unlock()
		c.sendQueued()
		c.mu.Lock()
		if !st.stopping && !c.open(st) && !c.room(st, msg) && st.outgoing == 0 {
			c.waitLocked()
		}
	}
}

// room reports whether the queue has room for msg.
func (c *Conn) room(st *state, msg []byte) bool {
	return len(st.queue) < c.lim.MaxInFlight && (len(st.queue) == 0 || st.queued+len(msg) <= c.lim.MaxQueued)
}

// enqueue queues a copy of msg, registering its id for cancellation.
func (c *Conn) enqueue(msg []byte) {
	in := c.newIncoming()
	in.queuedMsg = true
	in.msg = wire.AppendLong([]byte(nil), msg)
	in.batch = isBatch(in.msg)
	if !in.batch {
		// The read loop's classification, when it made one, holds for
		// the copy: its spans are found at the same offsets.
		kind, r := c.kind, *c.sc.Req()
		if kind == wire.MsgOther {
			kind, _ = c.scan.Classify(in.msg, &r)
		} else {
			r.ID = wire.Rebase(r.ID, msg, in.msg)
		}
		in.notify = kind == wire.MsgNotification
		if kind == wire.MsgRequest {
			in.id = r.ID
		}
	}
	c.update(func(st *state) {
		st.queue = append(st.queue, in)
		st.queued += len(in.msg)
		if in.id != nil {
			c.track(idKey(in.id), &tracked{in: in})
		}
	})
}

// answerInTurn sends resp, the answer to a message the carrier refused
// (transport.MessageError), in that message's turn: under Sequential
// ordering, after the answers of the messages before it. Only the read
// loop calls it.
func (c *Conn) answerInTurn(resp []byte) {
	if c.gate.Load() {
		c.putReader(resp)
		return
	}
	c.mu.Lock()
	if c.open(&c.st) {
		c.mu.Unlock()
		c.putReader(resp)
		return
	}
	c.mu.Unlock()
	in := c.newIncoming()
	in.queuedMsg = true
	in.answer = wire.AppendLong([]byte(nil), resp)
	c.update(func(st *state) { st.queue = append(st.queue, in) })
}

// open reports whether a message may be dispatched at once.
func (c *Conn) open(st *state) bool {
	return !st.stopping && len(st.queue) == 0 && !st.pumping && c.order.admit(st, c.lim.MaxInFlight)
}

// update changes the state through f, under mu, checks the invariants, sets
// the gate, wakes the waiters, starts the pump when the queue can move,
// and calls OnIdle when the connection becomes idle.
func (c *Conn) update(f func(*state)) {
	c.mu.Lock()
	st := &c.st
	wasBusy := c.busyLocked()
	f(st)
	if st.running < 0 || st.barriers < 0 || st.barriers > st.running || st.outgoing < 0 ||
		st.queued < 0 || len(st.queue) == 0 && st.queued != 0 {
		c.mu.Unlock()
		panic(fmt.Sprintf("peer: bad state %+v", *st))
	}
	c.gate.Store(c.open(st))
	pump := len(st.queue) > 0 && !st.pumping && (c.refusesNow(st) || c.order.admit(st, c.lim.MaxInFlight))
	if pump {
		st.pumping = true
	}
	busy := c.busyLocked()
	if busy != wasBusy && c.clock != nil {
		c.clock.Busy(busy)
	}
	idle := wasBusy && !busy
	c.wakeLocked()
	c.mu.Unlock()
	if pump {
		go c.pump()
	}
	if idle && c.onIdle != nil {
		c.onIdle()
	}
}

// pump runs the queue, in order, while the Order admits its head, or
// answers it at once when the Conn shuts down (refusesNow).
func (c *Conn) pump() {
	for {
		var in *incoming
		stopping := false
		c.update(func(st *state) {
			if len(st.queue) == 0 || !c.refusesNow(st) && !c.order.admit(st, c.lim.MaxInFlight) {
				st.pumping = false
				return
			}
			in = st.queue[0]
			st.queue[0] = nil
			st.queue = st.queue[1:]
			st.queued -= len(in.msg)
			stopping = st.stopping
			if in.id != nil {
				c.untrack(idKey(in.id), nil)
			}
		})
		if in == nil {
			c.kick()
			return
		}
		switch {
		case in.answer != nil:
			c.putPump(in.answer)
		case stopping:
			c.refuse(in.msg, errShutdown, false)
		case in.cancelled.Load():
			if c.proto.AnswerCancelled {
				c.putPump(transport.AppendErrors(nil, in.msg, c.errCancelled()))
			}
		default:
			c.runQueued(in)
		}
	}
}

// runQueued runs a queued message on the pump, which goes on on a new
// goroutine if a method ends this one with runtime.Goexit.
func (c *Conn) runQueued(in *incoming) {
	returned := false
	defer func() {
		if !returned {
			if in.phase.CompareAndSwap(dispatching, answered) {
				c.putPump(transport.AppendErrors(nil, in.msg, errGoexit))
			}
			go c.pump()
		}
	}()
	c.pdst = c.pdst[:0]
	c.run(in, in.msg, c.pdst, false)
	c.kick()
	returned = true
}

// refuse answers msg, which does not run, with e, and logs it; reader
// says that the read loop refuses it, and not the pump.
func (c *Conn) refuse(msg []byte, e *jsonrpc.Error, reader bool) {
	if c.logger != nil {
		reason := "server shutting down"
		if e == errNoRoom {
			reason = "too many calls in flight"
		}
		c.logger.LogAttrs(c.ctx, slog.LevelWarn, "message refused", slog.String("reason", reason), slog.Int("bytes", len(msg)))
	}
	resp := transport.AppendErrors(nil, msg, c.refusalOf(e))
	if reader {
		c.putReader(resp)
	} else {
		c.putPump(resp)
	}
}

// Shutdown makes the Conn run no more of the peer's messages: the ones
// queued and the ones read from now on are answered with
// jsonrpc.CodeLimitExceeded ("server shutting down"), the queued ones at
// once, ahead of the answers of the messages running, but under Sequential
// ordering, where they are answered in their turn. Messages running go on;
// Wait waits for them.
func (c *Conn) Shutdown() {
	c.update(func(st *state) { st.stopping = true })
}

// refusesNow reports whether the queue is answered with the shutdown error
// without waiting for the Order to admit its head: once the Conn shuts
// down, unless the Order is Sequential, which answers in request order.
func (c *Conn) refusesNow(st *state) bool {
	if !st.stopping {
		return false
	}
	_, seq := c.order.(sequential)
	return !seq
}

// Wait waits until no message of the peer's runs or waits to run.
func (c *Conn) Wait() {
	c.mu.Lock()
	for c.st.running > 0 || len(c.st.queue) > 0 || c.st.pumping {
		c.waitLocked()
	}
	// Then for the writer to have written everything.
	for c.out.writing || len(c.out.ends) > 0 {
		if c.out.writing {
			c.waitLocked()
			continue
		}
		c.out.writing = true
		c.mu.Unlock()
		c.drain()
		c.mu.Lock()
	}
	c.mu.Unlock()
}

// Busy reports whether a message of the peer's runs or waits to run, or a
// call of the Conn's own waits for its answer.
func (c *Conn) Busy() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.busyLocked()
}

// busyLocked is Busy; c.mu is held.
func (c *Conn) busyLocked() bool {
	return c.st.running > 0 || len(c.st.queue) > 0 || c.st.outgoing > 0
}

// tracker is the Conn as the transport.Tracker of its calls.
type tracker Conn

// Begin gives a call that runs on a goroutine of its own a context that
// the peer's cancel notification cancels (Cancel).
func (t *tracker) Begin(ctx context.Context, id []byte) (context.Context, func()) {
	c := (*Conn)(t)
	c.current.async = true // its answer may come from its own goroutine
	cctx, cancel := context.WithCancel(ctx)
	// Not inline: the mark is the call's record instead (AfterAnswer).
	call := &callContext{Context: cctx, in: c.current, cancel: cancel}
	if id == nil || !c.cancels {
		return call, call.end
	}
	in := c.current
	key := idKey(id)
	tr := &tracked{cancel: cancel}
	if !in.batch {
		tr.in = in
		in.id = append([]byte(nil), id...)
	}
	c.mu.Lock()
	c.track(key, tr)
	c.mu.Unlock()
	return call, func() {
		c.mu.Lock()
		c.untrack(key, tr)
		c.mu.Unlock()
		call.end()
	}
}

// callContext is the context of a call that runs on a goroutine of its
// own: it carries the call's record (in place of the Conn as the mark of
// an inline call), and its cancel, which the call's end calls, unless the
// context is detached from the call (Detach).
type callContext struct {
	context.Context
	in     *incoming
	cancel context.CancelFunc
	kept   atomic.Bool
}

func (x *callContext) Value(key any) any {
	switch key.(type) {
	case inlineKey:
		return x.in
	case callKey:
		return x
	}
	return x.Context.Value(key)
}

type callKey struct{}

// end is the end of the call: its context is cancelled, unless kept.
func (x *callContext) end() {
	if !x.kept.Load() {
		x.cancel()
	}
}

// Detach keeps the context of the call of ctx alive past the call's
// answer, and returns the function that ends it, which its keeper must
// call: how what a call started goes on under its context once the call
// has answered (the items of a sequence result, pulled later; a stream of
// events that follows the answer). The context still ends with the
// connection. Detach returns nil when ctx is not that of a call that runs
// on a goroutine of its own (registered jsonrpc.Blocking): an inline
// call's context is the connection's.
func Detach(ctx context.Context) context.CancelFunc {
	x, _ := ctx.Value(callKey{}).(*callContext)
	if x == nil {
		return nil
	}
	x.kept.Store(true)
	return x.cancel
}

// track registers tr under key; mu is held.
func (c *Conn) track(key string, tr *tracked) {
	if c.trackers == nil {
		c.trackers = map[string]*tracked{}
	}
	c.trackers[key] = tr
}

// untrack removes the registration of key, when it is tr (nil: any); mu is
// held.
func (c *Conn) untrack(key string, tr *tracked) {
	if cur, ok := c.trackers[key]; ok && (tr == nil || cur == tr) {
		delete(c.trackers, key)
	}
}

// closedErr returns the error the Conn's calls fail with once its read
// loop has ended.
func (c *Conn) closedErr() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// errCancelled returns the error that answers a call the peer cancelled,
// under Protocol.AnswerCancelled, in the Protocol's code.
func (c *Conn) errCancelled() *jsonrpc.Error {
	if c.codes.Cancelled == errCancelledDefault.Code {
		return errCancelledDefault
	}
	return jsonrpc.NewError(c.codes.Cancelled, "Request cancelled")
}

var errCancelledDefault = jsonrpc.NewError(jsonrpc.CodeCancelled, "Request cancelled")
