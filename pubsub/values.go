package pubsub

import (
	"context"
	"encoding/json"
	"iter"
	"sync/atomic"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/peer"
	"github.com/jsonrpc-go/jsonrpc/protocol/enumerator"
	"github.com/jsonrpc-go/jsonrpc/transport"
)

// Values subscribes to the Topic and returns what is published to it from
// then on, the JSON of each value, in order, as a sequence: the subscriber
// of a Topic on the model of a sequence result. A method returns it as its
// result (see jsonrpc.Server.Register) to stream a subscription in the
// shape its caller's protocol gives sequences:
//
//	s.Register("tail", func(ctx context.Context) (iter.Seq2[json.RawMessage, error], error) {
//		return logs.Values(ctx), nil
//	})
//
// Over a Conn it answers at once with the values already published and a
// token ($/enumerator), and each pull waits for at least one value; with
// a partial-result token (LSP) each value goes out as it comes. The
// values wait for the consumer in one bounded queue, that of push: at
// most MaxPush values and MaxPushBytes bytes of them (the transport.Limits of
// the Conn of ctx; their defaults without one), and the Topic's Overflow says what happens past it, as for the
// notifications of Subscribe: Drop skips a value, Unsubscribe ends the
// sequence with ErrOverflow after the values queued before it. The
// subscription counts in the Conn's MaxSubscriptions (a sequence that
// yields ErrTooManySubscriptions past it), and it ends when ctx is done,
// when the loop stops, or with the Conn; the sequence then ends with no
// error. It may be ranged over once.
func (t *Topic) Values(ctx context.Context) iter.Seq2[json.RawMessage, error] {
	s, err := t.listen(ctx)
	if err != nil {
		return func(yield func(json.RawMessage, error) bool) { yield(nil, err) }
	}
	return s.values
}

// listen makes a subscription whose values wait in a queue of its own.
func (t *Topic) listen(ctx context.Context) (*Subscription, error) {
	if err := t.join(ctx); err != nil {
		return nil, err
	}
	lim := transport.Limits{}.WithDefaults()
	c := peer.FromContext(ctx)
	if c != nil {
		lim = c.Limits()
	}
	max, maxB := lim.MaxPush, lim.MaxPushBytes
	s := &Subscription{t: t, c: c, id: newSubscriptionID(), done: make(chan struct{}), q: &valueQueue{ch: make(chan []byte, max), maxB: int64(maxB)}}
	if c != nil {
		s.conn = subsOf(c)
		switch err := s.conn.add(s, c.Limits().MaxSubscriptions); {
		case err == errTooManySubs:
			return nil, c.LimitError(errTooManySubs)
		case err != nil:
			return nil, err
		}
	}
	t.mu.Lock()
	if t.subs == nil {
		t.subs = map[string]*Subscription{}
	}
	t.subs[s.id] = s
	t.mu.Unlock()
	context.AfterFunc(ctx, func() { s.end(ctx.Err()) })
	s.q.ready = func() bool { return len(s.q.ch) > 0 || s.Err() != nil }
	// The call's sequence answers with what is queued, not waiting for
	// more.
	enumerator.Live(ctx, s.q.ready)
	return s, nil
}

// A valueQueue holds the values published to a subscriber of Values that
// it has not taken yet: at most cap(ch) of them and about maxB bytes.
type valueQueue struct {
	ch    chan []byte
	bytes atomic.Int64
	maxB  int64
	ready func() bool // a value, or the end, can be had without waiting
}

// put queues v, or returns ErrPushFull.
func (q *valueQueue) put(v []byte) error {
	n := int64(len(v))
	if b := q.bytes.Add(n); b > n && b > q.maxB {
		q.bytes.Add(-n)
		return peer.ErrPushFull
	}
	select {
	case q.ch <- v:
		return nil
	default:
		q.bytes.Add(-n)
		return peer.ErrPushFull
	}
}

// values yields the subscription's values as they are queued, until it
// ends; the values queued before its end go first.
func (s *Subscription) values(yield func(json.RawMessage, error) bool) {
	defer s.end(ErrUnsubscribed)
	q := s.q
	take := func(v []byte) bool {
		q.bytes.Add(-int64(len(v)))
		return yield(v, nil)
	}
	for {
		select {
		case v := <-q.ch:
			if !take(v) {
				return
			}
		case <-s.done:
			for {
				select {
				case v := <-q.ch:
					if !take(v) {
						return
					}
					continue
				default:
				}
				break
			}
			if s.err == ErrOverflow {
				yield(nil, s.overflowError())
			}
			return
		}
	}
}

// overflowError is the error that ends the values of a subscription that
// its Overflow policy ended: ErrOverflow, which over a Conn also answers
// its caller as the Conn refuses at a limit (peer.Conn.LimitError).
func (s *Subscription) overflowError() error {
	if s.c == nil {
		return ErrOverflow
	}
	return &overflowError{answer: s.c.LimitError(errValuesOverflow)}
}

// errValuesOverflow answers the pull of a subscription (Topic.Values)
// that its Overflow policy ended.
var errValuesOverflow = jsonrpc.NewError(jsonrpc.CodeLimitExceeded, "").WithData("the subscription's queue was full: it ended")

// An overflowError matches ErrOverflow and the error object its answer
// carries (errors.Is, errors.As).
type overflowError struct{ answer error }

func (e *overflowError) Error() string   { return ErrOverflow.Error() }
func (e *overflowError) Unwrap() []error { return []error{e.answer, ErrOverflow} }
