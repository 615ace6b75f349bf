package peer

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"sync/atomic"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/internal/keys"
	"github.com/jsonrpc-go/jsonrpc/internal/wire"
)

// Sequence results over a Conn: StreamJsonRpc's enumerator protocol. A
// call whose method returns a sequence (see jsonrpc.Server.Register) is
// answered with the first items and a token,
//
//	{"token":1,"values":[...]}
//
// (or the values alone, without a token, when they are all of it); the
// consumer pulls the next items with a request
//
//	{"jsonrpc":"2.0","method":"$/enumerator/next","params":{"token":1},"id":7}
//
// answered {"values":[...],"finished":false} (at most Limits.MaxSeqItems
// items an answer), one such request at a time,
// and ends the sequence early with $/enumerator/abort (a request or a
// notification, with the same params). The producer is pulled only for an
// answer: a consumer that does not pull holds it, not the memory of its
// items. A token that names no open sequence is answered with the
// Protocol's Codes.UnknownToken (jsonrpc.CodeUnknownToken by default). The sequence ends, and its method's context with
// it, when its last items are sent, when its method yields an error
// (the answer to the pull), on abort, and when the connection ends.
const (
	// SeqNextMethod pulls a sequence's next items.
	SeqNextMethod = "$/enumerator/next"
	// SeqAbortMethod ends a sequence early.
	SeqAbortMethod = "$/enumerator/abort"
)

// seqBatchBytes ends the items of one answer once they take that much.
const seqBatchBytes = 64 << 10

// sequences are the sequence results of a Conn waiting to be pulled.
type sequences struct {
	used  atomic.Bool // a sequence was ever opened: the Conn has the pulls' Preempter
	max   int         // Limits.MaxSequences
	batch int         // Limits.MaxSeqItems

	// Guarded by the Conn's mu: one state per connection.
	open  map[uint64]*sequence
	next  uint64
	ended bool // the Conn has ended
}

// A sequence is one sequence result being pulled.
type sequence struct {
	items  keys.Items
	cancel context.CancelFunc // of the method's context; never nil
	max    int                // items per answer (Limits.MaxSeqItems)

	ready   func() bool   // of a live sequence (LiveSequence): an item can be had without waiting; nil for others
	turn    chan struct{} // held (a value in it) by whoever calls Next or Stop, which must not run at once
	err     error         // an error yielded after items, for the next pull; guarded by turn
	pulling atomic.Bool   // a pull is being answered
}

func newSequence(ctx context.Context, items keys.Items, cancel context.CancelFunc, max int) *sequence {
	s := &sequence{items: items, cancel: cancel, max: max, turn: make(chan struct{}, 1)}
	if x, _ := ctx.Value(callKey{}).(*callContext); x != nil {
		if r := x.ready.Load(); r != nil {
			s.ready = *r
		}
	}
	return s
}

func (s *sequence) lock()   { s.turn <- struct{}{} }
func (s *sequence) unlock() { <-s.turn }

// sequencer is the Conn as the keys.SeqSender of its calls.
type sequencer Conn

// SendSeq answers a call whose result is a sequence with its first items
// and, when there are more, a token to pull them with.
func (q *sequencer) SendSeq(ctx context.Context, dst []byte, items keys.Items) ([]byte, error) {
	c := (*Conn)(q)
	if p := partialResults(ctx, c); p != nil {
		// Sent within the call, whose context ends with it.
		s := newSequence(ctx, items, func() {}, c.seqs.batch)
		return s.sendPartial(ctx, p, dst)
	}
	if c.inHand {
		// One request in hand (a Streamable HTTP exchange): its client
		// has no way to pull. The items answer as one array.
		return dst, keys.ErrNotStreamed
	}
	if !c.seqs.used.Swap(true) {
		c.Preempt(PreempterFunc(seqMessage))
	}
	cancel := keep(ctx)
	if cancel == nil {
		cancel = func() {} // a call run inline: its context is the Conn's
	}
	s := newSequence(ctx, items, cancel, c.seqs.batch)
	start := len(dst)
	dst = append(dst, `{"values":`...)
	dst, finished, err := s.batch(dst, false)
	if err != nil {
		s.stop()
		return dst[:start], err
	}
	if finished {
		s.stop()
		return append(dst, '}'), nil
	}
	token, ok := c.seqAdd(s)
	if !ok {
		s.stop()
		return dst[:start], c.refusalOf(errTooManySequences(c.seqs.max))
	}
	dst = append(dst, `,"token":`...)
	dst = strconv.AppendUint(dst, token, 10)
	return append(dst, '}'), nil
}

func errTooManySequences(n int) *jsonrpc.Error {
	return jsonrpc.NewError(jsonrpc.CodeLimitExceeded, "").WithData("more than " + strconv.Itoa(n) + " sequence results open on the connection")
}

// partialResults returns the Progress on which the call of ctx asks for
// its items as partial results (Protocol.PartialResultPath), or nil.
func partialResults(ctx context.Context, c *Conn) *Progress {
	call := jsonrpc.CallOf(ctx)
	if call == nil || c.proto.ProgressMethod == "" || len(c.proto.PartialResultPath) == 0 {
		return nil
	}
	v := []byte(call.Params())
	for _, name := range c.proto.PartialResultPath {
		if v = wire.Member(v, name); v == nil {
			return nil
		}
	}
	return progressTo(c, v)
}

// sendPartial sends every item of s as partial results on p, a batch a
// progress notification whose value is the batch's array, from the call's
// goroutine, which each notification holds until the connection takes it;
// the answer is then an empty array. The sequence ends with the call: an
// error it yields answers the call, after the items before it; a
// cancelled call keeps what was sent (LSP).
func (s *sequence) sendPartial(ctx context.Context, p *Progress, dst []byte) ([]byte, error) {
	defer s.stop()
	buf := make([]byte, 0, 1024)
	for {
		items, finished, err := s.batch(buf[:0], true)
		if err != nil {
			return dst, err
		}
		if len(items) > 2 { // not []
			if err := p.Report(ctx, json.RawMessage(items)); err != nil {
				return dst, err
			}
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
// are the last. Of a live sequence it takes only the items to be had
// without waiting, and waits for the first only when wait is set: the
// first answer goes at once, and a pull waits for one item.
func (s *sequence) batch(dst []byte, wait bool) ([]byte, bool, error) {
	s.lock()
	defer s.unlock()
	if err := s.err; err != nil {
		return dst, true, err
	}
	dst = append(dst, '[')
	start := len(dst)
	for n := 0; n < s.max && len(dst)-start < seqBatchBytes; n++ {
		if s.ready != nil && (n > 0 || !wait) && !s.ready() {
			break
		}
		if n > 0 {
			dst = append(dst, ',')
		}
		out, ok, err := s.items.Next(dst)
		if err != nil && n > 0 {
			// The items before it go first; the next pull gets the error.
			s.err = err
			return append(dst[:len(dst)-1], ']'), false, nil
		}
		if err != nil {
			return dst, true, err
		}
		if !ok {
			if n > 0 {
				dst = dst[:len(dst)-1]
			}
			return append(dst, ']'), true, nil
		}
		dst = out
	}
	return append(dst, ']'), false, nil
}

// stop ends the sequence: its method's context first, so that a method
// waiting on it returns, then its items.
func (s *sequence) stop() {
	s.cancel()
	s.lock()
	s.items.Stop()
	s.unlock()
}

// add opens s under a new token; false past the bound, or once the Conn
// has ended.
func (c *Conn) seqAdd(s *sequence) (uint64, bool) {
	ss := &c.seqs
	c.mu.Lock()
	defer c.mu.Unlock()
	if ss.ended || len(ss.open) >= ss.max {
		return 0, false
	}
	if ss.open == nil {
		ss.open = map[uint64]*sequence{}
	}
	ss.next++
	ss.open[ss.next] = s
	return ss.next, true
}

// take returns the open sequence of token, and forgets it when forget is
// set.
func (c *Conn) seqTake(token uint64, forget bool) *sequence {
	ss := &c.seqs
	c.mu.Lock()
	defer c.mu.Unlock()
	s := ss.open[token]
	if forget {
		delete(ss.open, token)
	}
	return s
}

// endAll ends every open sequence, as the Conn ends.
func (c *Conn) seqEndAll() {
	ss := &c.seqs
	c.mu.Lock()
	open := ss.open
	ss.open, ss.ended = nil, true
	c.mu.Unlock()
	for _, s := range open {
		go s.stop() // a method that ignores its context holds its own goroutine only
	}
}

// seqMessage handles a pull or an abort, the Preempter of a Conn that
// has opened a sequence.
func seqMessage(c *Conn, m *Message) bool {
	var abort bool
	switch {
	case m.Is(SeqNextMethod):
	case m.Is(SeqAbortMethod):
		abort = true
	default:
		return false
	}
	token, ok := seqToken(m.Params())
	switch {
	case !ok:
		m.Reply(nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "").WithData("the params of "+SeqNextMethod+" and "+SeqAbortMethod+" are {\"token\": t} or [t], t a token of a sequence result"))
	case abort:
		if s := c.seqTake(token, true); s != nil {
			go s.stop()
		}
		m.Reply([]byte("null"), nil) // an unknown token is ended already
	case m.Notification():
		// A pull as a notification has nobody to answer.
	default:
		s := c.seqTake(token, false)
		if s == nil {
			m.Reply(nil, jsonrpc.NewError(c.codes.UnknownToken, "No such sequence").WithData("no open sequence result has the token "+strconv.FormatUint(token, 10)))
			return true
		}
		if !s.pulling.CompareAndSwap(false, true) {
			m.Reply(nil, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "").WithData("a "+SeqNextMethod+" of this token is being answered: pull one batch at a time"))
			return true
		}
		go c.pull(token, s, append([]byte(nil), m.ID()...))
	}
	return true
}

// pull answers a pull of s with its next items, on a goroutine of its own
// (the producer may take its time).
func (c *Conn) pull(token uint64, s *sequence, id []byte) {
	res, finished, err := s.batch(append(make([]byte, 0, 256), `{"values":`...), true)
	if err != nil || finished {
		c.seqTake(token, true)
		s.stop()
	}
	s.pulling.Store(false) // before the answer: the consumer's next pull may follow it at once
	if err != nil {
		e := c.seqError(err)
		c.writeNow(c.ctx, wire.AppendErrorData(nil, int64(e.Code), e.Message, e.Data, id))
		return
	}
	res = append(res, `,"finished":`...)
	res = strconv.AppendBool(res, finished)
	c.writeNow(c.ctx, wire.AppendIDEnd(append([]byte(`{"jsonrpc":"2.0","result":`), append(res, '}')...), id))
}

// seqError is the error object of a pull's error: the method's
// *jsonrpc.Error as it is (a refusal at a limit, LimitError's, under the
// Protocol's code), a cancellation as CodeCancelled, and any other error
// as CodeServerError without its text, as the server answers a method's
// plain error.
func (c *Conn) seqError(err error) *jsonrpc.Error {
	if e, ok := errors.AsType[*jsonrpc.Error](err); ok && e != nil {
		return e
	}
	if errors.Is(err, context.Canceled) {
		return jsonrpc.NewError(c.codes.Cancelled, "Request cancelled")
	}
	return jsonrpc.NewError(jsonrpc.CodeServerError, "")
}

// seqToken reads the token of a pull or an abort: {"token": t} or [t].
func seqToken(params []byte) (uint64, bool) {
	var v []byte
	switch wire.KindOf(params) {
	case wire.Object:
		v = wire.Member(params, "token")
	case wire.Array:
		v, _, _ = wire.NextElement(params, 0)
	}
	return wire.ParseUint(v, 64)
}
