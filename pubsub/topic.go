package pubsub

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"sync"
	"sync/atomic"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/internal/wire"
	"github.com/jsonrpc-go/jsonrpc/peer"
)

// ErrOverflow is the error of a Subscription ended by the Overflow policy
// Unsubscribe.
var ErrOverflow = errors.New("jsonrpc: subscription ended: its connection's push queue was full")

// ErrUnsubscribed is the error of a Subscription ended by Unsubscribe.
var ErrUnsubscribed = errors.New("jsonrpc: unsubscribed")

// Overflow says what a Topic does for a subscriber whose connection's push
// queue is full when it publishes.
type Overflow int

const (
	// Drop skips the notification for that subscriber, and counts it
	// (Subscription.Dropped); later ones are sent when there is room.
	Drop Overflow = iota
	// Unsubscribe ends the subscription (Done is closed, Err is
	// ErrOverflow): the subscriber has missed a notification and its
	// stream of them is no longer whole. The connection goes on.
	Unsubscribe
)

// A Topic sends each value published to it to every Conn subscribed to
// it, as a notification of Method with the params
// {"subscription": id, "result": value}, the shape of go-ethereum's
// eth_subscription. Publish never waits for a subscriber: each Conn has a
// bounded queue (transport.Limits.MaxPush), and Overflow says what happens when
// it is full. With a Broker, what is published on any process reaches the
// subscribers of every process. The zero Topic is not ready: set Method.
// A Topic is safe for concurrent use.
type Topic struct {
	// Method is the notification's method, such as "eth_subscription".
	Method string
	// Overflow is the policy for a subscriber whose queue is full.
	Overflow Overflow
	// Broker, when set, carries the Topic's values between processes:
	// Publish hands each value to it, and the Topic sends what the
	// Broker delivers for Subject to its own subscribers, from its first
	// subscription on (Subscribe, Values) until Close. Nil: the
	// subscribers of this process only.
	Broker Broker
	// Subject names the Topic to its Broker; "" means Method. The Topics
	// of the processes that share it are one topic.
	Subject string

	mu    sync.Mutex
	subs  map[string]*Subscription
	turn  chan struct{} // held by whoever joins or leaves the Broker; made under mu
	leave func()        // ends the Broker's subscription; guarded by turn
}

// A Subscription is one Conn's subscription to a Topic.
type Subscription struct {
	t       *Topic
	c       *peer.Conn // nil for Values without a Conn
	conn    *connSubs  // c's subscriptions; nil without a Conn
	id      string
	prefix  []byte // the notification up to its result
	dropped atomic.Int64
	once    sync.Once
	done    chan struct{}
	err     error       // why it ended; set before done is closed
	q       *valueQueue // a subscriber that takes values itself (Values); nil for a Conn's notifications

	// The subscription's notifications wait in held until the answer of
	// the call that made it is on its way (active, peer.AfterAnswer).
	active atomic.Bool // set under mu, read without it first
	mu     sync.Mutex  // protects the fields below
	held   [][]byte
	heldB  int // the bytes of held
}

// connSubs are the subscriptions of one Conn (peer.Conn.Local): bounded by
// its Limits.MaxSubscriptions, and ended with its read loop.
type connSubs struct {
	once sync.Once  // OnClose is arranged once
	mu   sync.Mutex // protects the fields below
	subs map[*Subscription]struct{}
	err  error // set once the read loop has ended
}

type connSubsKey struct{}

// subsOf returns the subscriptions of c.
func subsOf(c *peer.Conn) *connSubs {
	cs := c.Local(connSubsKey{}, func() any { return &connSubs{} }).(*connSubs)
	cs.once.Do(func() { c.OnClose(cs.close) })
	return cs
}

// add counts s in, unless the Conn has max subscriptions already
// (errTooManySubs) or has ended (its error).
func (cs *connSubs) add(s *Subscription, max int) error {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	switch {
	case cs.err != nil:
		return cs.err
	case len(cs.subs) >= max:
		return errTooManySubs
	}
	if cs.subs == nil {
		cs.subs = map[*Subscription]struct{}{}
	}
	cs.subs[s] = struct{}{}
	return nil
}

func (cs *connSubs) remove(s *Subscription) {
	cs.mu.Lock()
	delete(cs.subs, s)
	cs.mu.Unlock()
}

// close ends every subscription of the Conn, whose read loop ended with
// err.
func (cs *connSubs) close(err error) {
	cs.mu.Lock()
	subs := cs.subs
	cs.subs, cs.err = nil, err
	cs.mu.Unlock()
	for s := range subs {
		s.end(err)
	}
}

// ErrNoConn is the error of Topic.Subscribe under a context that is not
// that of a call made over a Conn.
var ErrNoConn = errors.New("jsonrpc: the call did not come over a two-way connection")

// ErrTooManySubscriptions is the error of Topic.Subscribe on a Conn that
// has transport.Limits.MaxSubscriptions subscriptions already: a
// *jsonrpc.Error (jsonrpc.CodeLimitExceeded), so that a subscribe method
// that returns it answers its caller with what happened. On a Conn whose
// Protocol gives its refusals a code of its own (peer.Protocol.Codes:
// MCP's), Subscribe returns an error that answers with that code and still
// matches ErrTooManySubscriptions (errors.Is, peer.Conn.LimitError).
var ErrTooManySubscriptions error = errTooManySubs

var errTooManySubs = jsonrpc.NewError(jsonrpc.CodeLimitExceeded, "").WithData("too many subscriptions on this connection")

// Subscribe subscribes the Conn of the call that ctx belongs to (the
// subscribe method's own context: peer.FromContext) to the Topic, under a
// new id: 0x and 32 hexadecimal digits, random. What is published to it
// before that call's answer is on its way waits (up to MaxPush
// notifications, peer.AfterAnswer),
// so that the peer always learns the subscription's id before its first
// notification, as go-ethereum's clients require. The subscription ends
// with Unsubscribe, the Overflow policy, or the end of the Conn's read
// loop (Done). It returns ErrNoConn when ctx has no Conn, and
// ErrTooManySubscriptions when the Conn has MaxSubscriptions already, and
// an error that matches ErrBrokerUnavailable when its Broker fails.
func (t *Topic) Subscribe(ctx context.Context) (*Subscription, error) {
	c := peer.FromContext(ctx)
	if c == nil {
		return nil, ErrNoConn
	}
	if err := t.join(ctx); err != nil {
		return nil, err
	}
	id := newSubscriptionID()
	s := &Subscription{t: t, c: c, conn: subsOf(c), id: id, done: make(chan struct{})}
	s.prefix = append(s.prefix, `{"jsonrpc":"2.0","method":`...)
	s.prefix = wire.AppendQuote(s.prefix, t.Method)
	s.prefix = append(s.prefix, `,"params":{"subscription":`...)
	s.prefix = wire.AppendQuote(s.prefix, id)
	s.prefix = append(s.prefix, `,"result":`...)
	switch err := s.conn.add(s, c.Limits().MaxSubscriptions); {
	case err == errTooManySubs:
		return nil, c.LimitError(errTooManySubs)
	case err != nil:
		s.end(err) // the Conn has ended
		return s, nil
	}
	t.mu.Lock()
	if t.subs == nil {
		t.subs = map[string]*Subscription{}
	}
	t.subs[id] = s
	t.mu.Unlock()
	peer.AfterAnswer(ctx, s.activate)
	return s, nil
}

// activate sends what was published to s before the answer of the call
// that made it was on its way, and from now on sends what is published.
func (s *Subscription) activate() {
	s.mu.Lock()
	defer s.mu.Unlock()
	select {
	case <-s.done: // ended before its first notification could go
	default:
		for _, m := range s.held {
			if s.c.PushMessage(m) != nil {
				s.dropped.Add(1)
			}
		}
	}
	s.held, s.heldB = nil, 0
	s.active.Store(true)
}

// newSubscriptionID returns 0x and 32 hexadecimal digits, random.
func newSubscriptionID() string {
	var b [16]byte
	rand.Read(b[:])
	return "0x" + hex.EncodeToString(b[:])
}

// Publish sends value, encoded once with encoding/json, to every
// subscriber, and returns to how many it was queued. With a Broker it
// hands the value to the Broker, which delivers it to the subscribers of
// every process, this one included, and returns 0, or the Broker's
// failure as an error that matches ErrBrokerUnavailable, which a method
// may return as it is: its answer says the broker is unavailable, under
// a code a client may retry.
func (t *Topic) Publish(value any) (int, error) {
	return t.PublishContext(context.Background(), value)
}

// PublishContext is Publish with the context of the Broker's Publish,
// which bounds how long a Broker that is away may take the value; a
// method passes its call's context, so that its answer to a broker outage
// has the code of the call's connection (see ErrBrokerUnavailable).
// Without a Broker ctx is not used: nothing waits.
func (t *Topic) PublishContext(ctx context.Context, value any) (int, error) {
	v, err := json.Marshal(value)
	if err != nil {
		return 0, err
	}
	v = wire.UnescapeHTML(v)
	if t.Broker != nil {
		if err := t.Broker.Publish(ctx, t.subject(), v); err != nil {
			return 0, brokerFailed(ctx, "publishing to", t.subject(), err)
		}
		return 0, nil
	}
	return t.deliver(v), nil
}

func (t *Topic) subject() string {
	if t.Subject != "" {
		return t.Subject
	}
	return t.Method
}

// deliver sends the encoded value v to every subscriber of this process,
// and returns to how many it was queued. It keeps none of v.
func (t *Topic) deliver(v []byte) int {
	t.mu.Lock()
	subs := make([]*Subscription, 0, len(t.subs))
	for _, s := range t.subs {
		subs = append(subs, s)
	}
	t.mu.Unlock()
	n := 0
	for _, s := range subs {
		var msg []byte
		if s.q != nil {
			msg = append([]byte(nil), v...)
		} else {
			msg = make([]byte, 0, len(s.prefix)+len(v)+2)
			msg = append(append(append(msg, s.prefix...), v...), "}}"...)
		}
		switch err := s.send(msg); {
		case err == nil:
			n++
		case errors.Is(err, peer.ErrPushFull):
			s.dropped.Add(1)
			if t.Overflow == Unsubscribe {
				s.end(ErrOverflow)
			}
		default:
			s.end(err)
		}
	}
	return n
}

// join subscribes the Topic to its Broker, once, for the subscription
// being made under ctx.
func (t *Topic) join(ctx context.Context) error {
	if t.Broker == nil {
		return nil
	}
	t.mu.Lock()
	if t.turn == nil {
		t.turn = make(chan struct{}, 1)
	}
	turn := t.turn
	t.mu.Unlock()
	select {
	case turn <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-turn }()
	if t.leave != nil {
		return nil
	}
	leave, err := t.Broker.Subscribe(ctx, t.subject(), func(v []byte) { t.deliver(v) })
	if err != nil {
		return brokerFailed(ctx, "subscribing to", t.subject(), err)
	}
	t.leave = leave
	return nil
}

// Close ends every subscription (ErrUnsubscribed) and the Topic's
// subscription to its Broker. A Subscribe after it subscribes the Topic
// to the Broker again.
func (t *Topic) Close() {
	t.mu.Lock()
	subs := make([]*Subscription, 0, len(t.subs))
	for _, s := range t.subs {
		subs = append(subs, s)
	}
	turn := t.turn
	t.mu.Unlock()
	for _, s := range subs {
		s.end(ErrUnsubscribed)
	}
	if turn == nil {
		return
	}
	turn <- struct{}{}
	if t.leave != nil {
		t.leave()
		t.leave = nil
	}
	<-turn
}

// Unsubscribe ends the subscription with id, and reports whether there
// was one: what an eth_unsubscribe method does.
func (t *Topic) Unsubscribe(id string) bool {
	t.mu.Lock()
	s := t.subs[id]
	t.mu.Unlock()
	if s == nil {
		return false
	}
	s.Unsubscribe()
	return true
}

// Len returns the number of subscriptions.
func (t *Topic) Len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.subs)
}

// ID returns the subscription's id.
func (s *Subscription) ID() string { return s.id }

// Unsubscribe ends the subscription.
func (s *Subscription) Unsubscribe() { s.end(ErrUnsubscribed) }

// Done returns a channel that is closed when the subscription has ended.
func (s *Subscription) Done() <-chan struct{} { return s.done }

// Err returns why the subscription ended: ErrUnsubscribed, ErrOverflow,
// or an error wrapping ErrClosed; nil while it lasts.
func (s *Subscription) Err() error {
	select {
	case <-s.done:
		return s.err
	default:
		return nil
	}
}

// Dropped returns the number of notifications the subscriber has missed
// because its queue was full.
func (s *Subscription) Dropped() int64 { return s.dropped.Load() }

// send queues msg for the subscriber, or holds it while the answer of the
// call that subscribed is not on its way.
func (s *Subscription) send(msg []byte) error {
	if s.q != nil {
		return s.q.put(msg)
	}
	if s.active.Load() {
		return s.c.PushMessage(msg)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.active.Load() {
		return s.c.PushMessage(msg)
	}
	lim := s.c.Limits()
	if len(s.held) >= lim.MaxPush || s.heldB > 0 && s.heldB+len(msg) > lim.MaxPushBytes {
		return peer.ErrPushFull
	}
	s.heldB += len(msg)
	s.held = append(s.held, msg)
	return nil
}

func (s *Subscription) end(err error) {
	s.once.Do(func() {
		s.t.mu.Lock()
		delete(s.t.subs, s.id)
		s.t.mu.Unlock()
		if s.conn != nil {
			s.conn.remove(s)
		}
		s.err = err
		close(s.done)
	})
}
