// Package enumerator serves the sequence results of calls over a
// connection of package peer with StreamJsonRpc's enumerator protocol. A
// call whose method returns a sequence (see jsonrpc.Server.Register) is
// answered with its first items and a token,
//
//	{"token":1,"values":[...]}
//
// (or the values alone, without a token, when they are all of it); the
// consumer pulls the next items with a request
//
//	{"jsonrpc":"2.0","method":"$/enumerator/next","params":{"token":1},"id":7}
//
// answered {"values":[...],"finished":false} (at most
// transport.Limits.MaxSeqItems items an answer), one such request at a time,
// and ends the sequence early with $/enumerator/abort (a request or a
// notification, with the same params). Both are methods of the
// connection, as StreamJsonRpc serves them: a batch may carry them, and
// its answer carries theirs.
//
// The producer is pulled only for an answer: a consumer that does not
// pull holds it, not the memory of its items, nor more of them than the
// connection's budget allows: the items its sequences have produced and
// the connection has not yet taken are bounded by
// transport.Limits.MaxSeqBytes, and at most 4 sequences of a connection
// make an item at once. A sequence counts as a running call of its server
// and of its client (jsonrpc.Limits.MaxRunning, MaxRunningPerClient)
// until it ends: a call whose result is a sequence, made when they are
// full, is answered with the limit code before its producer runs; and
// against the connection's transport.Limits.MaxSequences, past which a
// call whose sequence would stay open is answered alike.
//
// A token that names no open sequence is answered with the
// Protocol's Codes.UnknownToken (jsonrpc.CodeUnknownToken by default). The
// sequence ends, and its method's context with it, when its last items
// are sent, when its method yields an error (the answer to the pull), on
// abort, and when the connection ends.
//
// A call whose caller asks for partial results (LSP's
// "partialResultToken", see protocol/progress) gets its items as progress
// notifications instead, and an empty array as its answer.
//
// The hosts of this module (stream, ws, client, a Streamable HTTP
// session) turn it on for every connection (Enable); a call that came in
// an exchange of its own (one Streamable HTTP POST) has no way to pull,
// and gets its items as one array, or as partial results when it asks
// for them (PartialOnly).
package enumerator

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/internal/keys"
	"github.com/jsonrpc-go/jsonrpc/internal/registry"
	"github.com/jsonrpc-go/jsonrpc/internal/wire"
	"github.com/jsonrpc-go/jsonrpc/peer"
	"github.com/jsonrpc-go/jsonrpc/protocol/progress"
)

const (
	// NextMethod pulls a sequence's next items.
	NextMethod = "$/enumerator/next"
	// AbortMethod ends a sequence early.
	AbortMethod = "$/enumerator/abort"
)

// batchBytes ends the items of one answer once they take that much.
const batchBytes = 64 << 10

// producers is how many sequences of one Conn may produce an item at once
// (a live sequence waiting for a value is not one): with the byte budget
// (transport.Limits.MaxSeqBytes), what a Conn's producers hold that its
// peer has not taken is at most the budget and this many items.
const producers = 4

// Enable returns ctx with the enumerator protocol on, for the Conns made
// with it as their base context (peer.New): the sequence results of their
// calls are sent as the package says. Without it, a sequence result is
// sent as one array.
func Enable(ctx context.Context) context.Context {
	ctx = context.WithValue(ctx, keys.Methods{}, keys.MethodLookup(methods))
	return context.WithValue(ctx, keys.Sequencer{}, keys.SeqSender(sender{pulls: true}))
}

// PartialOnly returns ctx with partial results on, and no pulls: for the
// Conns of exchanges that hold one request (a Streamable HTTP POST), whose
// caller has no way to pull. A call that asks for partial results gets
// them; any other sequence result is sent as one array.
func PartialOnly(ctx context.Context) context.Context {
	return context.WithValue(ctx, keys.Sequencer{}, keys.SeqSender(sender{}))
}

// Live marks the sequence result that the call of ctx returns as live (a
// subscription's values, pubsub.Topic.Values): each answer carries only
// the items to be had without waiting, which ready tells, and a pull
// waits for one.
func Live(ctx context.Context, ready func() bool) {
	c, call := peer.FromContext(ctx), jsonrpc.CallOf(ctx)
	if c == nil || call == nil {
		return
	}
	st := stateOf(c)
	st.mu.Lock()
	if st.live == nil {
		st.live = map[*jsonrpc.Call]func() bool{}
	}
	st.live[call] = ready
	st.mu.Unlock()
	peer.AfterAnswer(ctx, func() {
		st.mu.Lock()
		delete(st.live, call)
		st.mu.Unlock()
	})
}

// state is a Conn's sequences waiting to be pulled.
type state struct {
	once sync.Once // the pulls' Preempter and the end, set with the first sequence

	mu    sync.Mutex
	open  map[uint64]*sequence
	live  map[*jsonrpc.Call]func() bool // of calls that return a live sequence (Live)
	next  uint64
	ended bool // the Conn has ended

	// The byte budget (transport.Limits.MaxSeqBytes): the bytes of items
	// produced for answers and partial results that the Conn has not yet
	// taken (written, or queued within MaxQueued: peer.AfterAnswer, the
	// return of an answer or a report), and the producers at work.
	maxUnsent int
	unsent    int
	producing int
	room      chan struct{} // closed when unsent or producing falls; made by a waiter
}

type stateKey struct{}

func stateOf(c *peer.Conn) *state {
	return c.Local(stateKey{}, func() any { return new(state) }).(*state)
}

// A sequence is one sequence result being pulled.
type sequence struct {
	items   keys.Items
	end     context.CancelFunc // of the method's context; never nil
	release func()             // gives back its share of the server's MaxRunning; never nil
	max     int                // items per answer (Limits.MaxSeqItems)

	st      *state
	done    <-chan struct{} // of the method's context: its producer gives up waiting for the budget
	quit    chan struct{}   // closed when the sequence stops (stop)
	stopped atomic.Bool

	ready   func() bool   // of a live sequence (Live): an item can be had without waiting; nil for others
	turn    chan struct{} // held (a value in it) by whoever calls batch or stop, which must not run at once
	err     error         // an error yielded after items, for the next pull; guarded by turn
	pulling atomic.Bool   // a pull is being answered
}

func (s *sequence) lock()   { s.turn <- struct{}{} }
func (s *sequence) unlock() { <-s.turn }

// sender is the SeqSender of the calls on the Conns of an enabled context;
// pulls is unset for PartialOnly.
type sender struct{ pulls bool }

// SendSeq answers a call whose result is a sequence with its first items
// and, when there are more, a token to pull them with.
func (q sender) SendSeq(ctx context.Context, dst []byte, items keys.Items) ([]byte, error) {
	c := peer.FromContext(ctx)
	if c == nil {
		return dst, keys.ErrNotStreamed
	}
	lim := c.Limits()
	st := stateOf(c)
	s := &sequence{items: items, end: func() {}, release: func() {}, max: lim.MaxSeqItems, turn: make(chan struct{}, 1), st: st, done: ctx.Done(), quit: make(chan struct{})}
	st.mu.Lock()
	st.maxUnsent = lim.MaxSeqBytes
	if call := jsonrpc.CallOf(ctx); call != nil {
		s.ready = st.live[call]
	}
	st.mu.Unlock()
	if p := progress.PartialOf(ctx); p != nil {
		// Sent within the call, whose context ends with it.
		return s.sendPartial(ctx, p, dst)
	}
	if !q.pulls {
		return dst, keys.ErrNotStreamed
	}
	// Its producer may wait to be pulled past the call's answer: the
	// sequence keeps the call's share of the server's running calls
	// (jsonrpc.Limits.MaxRunning, and its client's), or takes one when the
	// call had none (it ran on the connection's goroutine, past them);
	// with none to be had it is refused before its producer makes
	// anything. One that ends in its first answer gives it back at once.
	release, ok := registry.KeepRunning(ctx)
	if !ok {
		items.Stop()
		return dst, c.LimitError(errNoRoom)
	}
	s.release = release
	st.once.Do(func() {
		c.Preempt(peer.PreempterFunc(st.preempt))
		c.OnClose(func(error) { st.endAll() })
	})
	if end := peer.Detach(ctx); end != nil {
		s.end = end
	}
	start := len(dst)
	dst = append(dst, `{"values":`...)
	dst, counted, finished, err := s.batch(dst, false)
	// Its items are the Conn's once it has taken the answer.
	peer.AfterAnswer(ctx, func() { st.sent(counted) })
	if err != nil {
		s.stop()
		return dst[:start], err
	}
	if finished {
		s.stop()
		return append(dst, '}'), nil
	}
	token, ok := st.add(s, lim.MaxSequences)
	if !ok {
		s.stop()
		return dst[:start], c.LimitError(errTooMany(lim.MaxSequences))
	}
	dst = append(dst, `,"token":`...)
	dst = strconv.AppendUint(dst, token, 10)
	return append(dst, '}'), nil
}

// errNoRoom refuses a sequence result that would stay open when its
// server's running calls are at their limit, or its client's share.
var errNoRoom = jsonrpc.NewError(jsonrpc.CodeLimitExceeded, "").WithData("too many calls and sequence results running on the server, or for this client (jsonrpc.Limits.MaxRunning, MaxRunningPerClient)")

func errTooMany(n int) *jsonrpc.Error {
	return jsonrpc.NewError(jsonrpc.CodeLimitExceeded, "").WithData("more than " + strconv.Itoa(n) + " sequence results open on the connection")
}

// sendPartial sends every item of s as partial results on p, a batch a
// progress notification whose value is the batch's array, from the call's
// goroutine, which each notification holds until the connection takes it;
// the answer is then an empty array. The sequence ends with the call: an
// error it yields answers the call, after the items before it; a
// cancelled call keeps what was sent (LSP).
func (s *sequence) sendPartial(ctx context.Context, p *progress.Reporter, dst []byte) ([]byte, error) {
	defer s.stop()
	buf := make([]byte, 0, 1024)
	for {
		items, counted, finished, err := s.batch(buf[:0], true)
		if err != nil {
			s.st.sent(counted)
			return dst, err
		}
		if len(items) > 2 { // not []
			err := p.Report(ctx, json.RawMessage(items))
			s.st.sent(counted) // the Conn has taken them
			if err != nil {
				return dst, err
			}
		} else {
			s.st.sent(counted)
		}
		if finished {
			return append(dst, "[]"...), nil
		}
		if err := ctx.Err(); err != nil {
			return dst, err
		}
		buf = items
	}
}

// batch appends the next items as a JSON array, and reports whether they
// are the last, and the bytes of items it counted against the Conn's
// budget, which its caller gives back (state.sent) once the Conn has
// taken them. Of a live sequence it takes only the items to be had
// without waiting, and waits for the first only when wait is set: the
// first answer goes at once, and a pull waits for one item.
func (s *sequence) batch(dst []byte, wait bool) (out []byte, counted int, finished bool, err error) {
	s.lock()
	defer s.unlock()
	if err := s.err; err != nil {
		return dst, 0, true, err
	}
	dst = append(dst, '[')
	start := len(dst)
	for n := 0; n < s.max && len(dst)-start < batchBytes; n++ {
		if s.ready != nil && (n > 0 || !wait) && !s.ready() {
			break
		}
		// The budget: an answer that has items, or the first answer of
		// a live sequence, goes without waiting for it.
		mayWait := n == 0 && (s.ready == nil || wait)
		if !s.st.startItem(s, mayWait) {
			if !mayWait {
				break
			}
			return dst, counted, true, context.Canceled
		}
		if n > 0 {
			dst = append(dst, ',')
		}
		next, ok, err := s.items.Next(dst)
		size := 0
		if ok {
			size = len(next) - len(dst)
		}
		s.st.endItem(s, size)
		counted += size
		if err != nil && n > 0 {
			// The items before it go first; the next pull gets the error.
			s.err = err
			return append(dst[:len(dst)-1], ']'), counted, false, nil
		}
		if err != nil {
			return dst, counted, true, err
		}
		if !ok {
			if n > 0 {
				dst = dst[:len(dst)-1]
			}
			return append(dst, ']'), counted, true, nil
		}
		dst = next
	}
	return append(dst, ']'), counted, false, nil
}

// stop ends the sequence: its method's context first, so that a method
// waiting on it returns, then its items; then it gives back its share of
// the server's running calls.
func (s *sequence) stop() {
	if s.stopped.CompareAndSwap(false, true) {
		close(s.quit)
	}
	s.end()
	s.lock()
	s.items.Stop()
	s.unlock()
	s.release()
}

// add opens s under a new token; false past max open, or once the Conn
// has ended.
func (st *state) add(s *sequence, max int) (uint64, bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.ended || len(st.open) >= max {
		return 0, false
	}
	if st.open == nil {
		st.open = map[uint64]*sequence{}
	}
	st.next++
	st.open[st.next] = s
	return st.next, true
}

// take returns the open sequence of token, and forgets it when forget is
// set.
func (st *state) take(token uint64, forget bool) *sequence {
	st.mu.Lock()
	defer st.mu.Unlock()
	s := st.open[token]
	if forget {
		delete(st.open, token)
	}
	return s
}

// endAll ends every open sequence, as the Conn ends.
func (st *state) endAll() {
	st.mu.Lock()
	open := st.open
	st.open, st.ended = nil, true
	st.wakeLocked()
	st.mu.Unlock()
	for _, s := range open {
		go s.stop() // a method that ignores its context holds its own goroutine only
	}
}

// preempt handles a pull or an abort: the Preempter of a Conn that has
// opened a sequence.
func (st *state) preempt(c *peer.Conn, m *peer.Message) bool {
	var abort bool
	switch {
	case m.Is(NextMethod):
	case m.Is(AbortMethod):
		abort = true
	default:
		return false
	}
	token, ok := tokenOf(m.Params())
	switch {
	case !ok:
		m.Reply(nil, errParams)
	case abort:
		st.abort(token)
		m.Reply([]byte("null"), nil) // an unknown token is ended already
	case m.Notification():
		// A pull as a notification has nobody to answer.
	default:
		s, e := st.startPull(c, token)
		if e != nil {
			m.Reply(nil, e)
			return true
		}
		answer := m.Hold()
		go func() {
			res, counted, e := st.pull(c, token, s)
			answer(res, e)
			st.sent(counted) // the Conn has taken the answer
		}()
	}
	return true
}

var errParams = jsonrpc.NewError(jsonrpc.CodeInvalidParams, "").WithData("the params of " + NextMethod + " and " + AbortMethod + " are {\"token\": t} or [t], t a token of a sequence result")

// abort ends the sequence of token, if it is open.
func (st *state) abort(token uint64) {
	if s := st.take(token, true); s != nil {
		go s.stop()
	}
}

// startPull returns the open sequence of token, marked as being pulled,
// or the error to answer a pull of it with: an unknown token, or a pull
// of it under way.
func (st *state) startPull(c *peer.Conn, token uint64) (*sequence, *jsonrpc.Error) {
	s := st.take(token, false)
	if s == nil {
		code := c.Protocol().Codes.WithDefaults().UnknownToken
		return nil, jsonrpc.NewError(code, "No such sequence").WithData("no open sequence result has the token " + strconv.FormatUint(token, 10))
	}
	if !s.pulling.CompareAndSwap(false, true) {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "").WithData("a " + NextMethod + " of this token is being answered: pull one batch at a time")
	}
	return s, nil
}

// pull makes the answer to a pull of s (startPull), with its next items,
// or the error to answer with; counted is the bytes of items its caller
// gives back to the Conn's budget (state.sent) once the Conn has taken
// the answer. The producer may take its time: its caller is a goroutine
// of its own.
func (st *state) pull(c *peer.Conn, token uint64, s *sequence) (res json.RawMessage, counted int, e *jsonrpc.Error) {
	res, counted, finished, err := s.batch(append(make([]byte, 0, 256), `{"values":`...), true)
	if err != nil || finished {
		st.take(token, true)
		s.stop()
	}
	s.pulling.Store(false) // before the answer: the consumer's next pull may follow it at once
	if err != nil {
		return nil, counted, errorOf(c, err)
	}
	res = append(res, `,"finished":`...)
	res = strconv.AppendBool(res, finished)
	return append(res, '}'), counted, nil
}

// The pulls and aborts as methods of the connection (keys.Methods), which
// its Server runs for those that its preempter does not see: inside a
// batch, and before the connection's first sequence. StreamJsonRpc
// serves them as methods of the connection too (local RPC methods), so a
// batch that carries them is answered as it would answer any method.
var nextMethod, abortMethod = connMethod(NextMethod, callNext), connMethod(AbortMethod, callAbort)

func connMethod(name string, fn any) any {
	m, err := registry.ConnMethod(name, fn, "token")
	if err != nil {
		panic(err)
	}
	return m
}

// methods finds the connection's methods of a Conn with pulls (Enable).
func methods(name []byte) any {
	switch string(name) {
	case NextMethod:
		return nextMethod
	case AbortMethod:
		return abortMethod
	}
	return nil
}

// callNext is $/enumerator/next run by the Server, on a goroutine of its
// own (as a Blocking method).
func callNext(ctx context.Context, token json.RawMessage) (json.RawMessage, error) {
	c := peer.FromContext(ctx)
	tok, ok := wire.ParseUint(token, 64)
	if c == nil || !ok {
		return nil, errParams
	}
	st := stateOf(c)
	s, e := st.startPull(c, tok)
	if e != nil {
		return nil, e
	}
	res, counted, e := st.pull(c, tok, s)
	peer.AfterAnswer(ctx, func() { st.sent(counted) })
	if e != nil {
		return nil, e
	}
	return res, nil
}

// callAbort is $/enumerator/abort run by the Server.
func callAbort(ctx context.Context, token json.RawMessage) (json.RawMessage, error) {
	c := peer.FromContext(ctx)
	tok, ok := wire.ParseUint(token, 64)
	if c == nil || !ok {
		return nil, errParams
	}
	stateOf(c).abort(tok)
	return json.RawMessage("null"), nil
}

// startItem waits for the Conn's budget to let s produce an item: fewer
// than MaxSeqBytes bytes unsent and, for a sequence that is not live,
// fewer than producers at work. Without mayWait it does not wait; it
// reports false then, and when s stops, its method's context ends or the
// Conn ends while it waits.
func (st *state) startItem(s *sequence, mayWait bool) bool {
	live := s.ready != nil
	st.mu.Lock()
	for st.unsent >= st.maxUnsent || !live && st.producing >= producers {
		if st.ended {
			break
		}
		if !mayWait {
			st.mu.Unlock()
			return false
		}
		if st.room == nil {
			st.room = make(chan struct{})
		}
		room := st.room
		st.mu.Unlock()
		select {
		case <-room:
		case <-s.quit:
			return false
		case <-s.done:
			return false
		}
		st.mu.Lock()
	}
	if st.ended {
		st.mu.Unlock()
		return false
	}
	if !live {
		st.producing++
	}
	st.mu.Unlock()
	return true
}

// endItem ends the work of a producer that startItem let go, which made
// an item of n bytes.
func (st *state) endItem(s *sequence, n int) {
	st.mu.Lock()
	if s.ready == nil {
		st.producing--
	}
	st.unsent += n
	st.wakeLocked()
	st.mu.Unlock()
}

// sent counts n bytes of items as taken by the Conn.
func (st *state) sent(n int) {
	if n <= 0 {
		return
	}
	st.mu.Lock()
	st.unsent -= n
	st.wakeLocked()
	st.mu.Unlock()
}

// wakeLocked wakes the producers waiting for the budget; st.mu is held.
func (st *state) wakeLocked() {
	if st.room != nil {
		close(st.room)
		st.room = nil
	}
}

// errorOf is the error object of a pull's error: the method's
// *jsonrpc.Error as it is (a refusal at a limit, LimitError's, under the
// Protocol's code), a cancellation as the Protocol's Codes.Cancelled, and
// any other error as its Codes.ServerError without its text, as the
// server answers a method's plain error.
func errorOf(c *peer.Conn, err error) *jsonrpc.Error {
	if e, ok := errors.AsType[*jsonrpc.Error](err); ok && e != nil {
		return e
	}
	codes := c.Protocol().Codes.WithDefaults()
	if errors.Is(err, context.Canceled) {
		return jsonrpc.NewError(codes.Cancelled, "Request cancelled")
	}
	return jsonrpc.NewError(codes.ServerError, "")
}

// tokenOf reads the token of a pull or an abort: {"token": t} or [t].
func tokenOf(params []byte) (uint64, bool) {
	var v []byte
	switch wire.KindOf(params) {
	case wire.Object:
		v = wire.Member(params, "token")
	case wire.Array:
		v, _, _ = wire.NextElement(params, 0)
	}
	return wire.ParseUint(v, 64)
}
