package peer

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/internal/wire"
)

// ErrPushFull is the error of Push when the Conn's queue of notifications
// waiting to be sent is full: the peer reads slower than it is sent to.
var ErrPushFull = errors.New("jsonrpc: push queue full")

// ErrOverflow is the error of a Subscription ended by the Overflow policy
// Unsubscribe.
var ErrOverflow = errors.New("jsonrpc: subscription ended: its connection's push queue was full")

// ErrUnsubscribed is the error of a Subscription ended by Unsubscribe.
var ErrUnsubscribed = errors.New("jsonrpc: unsubscribed")

// Push sends the peer the notification method with params without
// waiting: it is queued behind the Conn's other messages, in the one queue
// that its writer sends in order, and the Conn is two-way from then on.
// When MaxPush notifications, or MaxPushBytes of them, are already
// waiting, it is dropped and Push
// returns ErrPushFull, so that a peer that reads slowly holds up no one
// but itself. After the read loop has ended it returns an error wrapping
// ErrClosed.
func (c *Conn) Push(method string, params any) error {
	msg, err := appendRequest(nil, method, params, 0)
	if err != nil {
		return err
	}
	c.twoWay.Store(true)
	c.mu.Lock()
	err = c.putPushLocked(msg)
	c.mu.Unlock()
	return err
}

// putPushLocked queues the notification msg in the outbox, past which
// nothing waits for a writer: it starts one if nobody holds it. c.mu is
// held.
func (c *Conn) putPushLocked(msg []byte) error {
	o := &c.out
	if c.err != nil {
		return c.err
	}
	if o.pushes >= c.maxPush || o.pushB > 0 && o.pushB+len(msg) > c.maxPushB {
		return ErrPushFull
	}
	o.pushes++
	o.pushB += len(msg)
	c.addLocked(msg)
	c.startWriterLocked()
	return nil
}

// activate runs once the answer of the call of in has been queued or
// written, when the Conn holds subscriptions back (c.held): the
// notifications held for the subscriptions that call made go out after
// it, and from now on as they are published. Subscribe counts c.held
// before it looks at in.phase, and the answer sets in.phase before it
// looks at c.held, so a subscription made while its call runs is always
// activated. (One made later, by a goroutine the method left behind, may
// wait for the answer of the next message read into the same record.)
func (c *Conn) activate(in *incoming) {
	c.mu.Lock()
	subs := in.subs
	in.subs = nil
	for _, s := range subs {
		s.active = true
		select {
		case <-s.done: // ended before its first notification could go
			s.held, s.heldB = nil, 0
			continue
		default:
		}
		for _, m := range s.held {
			if c.putPushLocked(m) != nil {
				s.dropped.Add(1)
			}
		}
		s.held, s.heldB = nil, 0
	}
	c.held.Add(-int32(len(subs)))
	c.mu.Unlock()
}

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
// bounded queue (Options.MaxPush), and Overflow says what happens when it
// is full. With a Broker, what is published on any process reaches the
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
	c       *Conn
	id      string
	prefix  []byte // the notification up to its result
	dropped atomic.Int64
	once    sync.Once
	done    chan struct{}
	err     error       // why it ended; set before done is closed
	q       *valueQueue // a subscriber that takes values itself (Values); nil for a Conn's notifications

	// Guarded by c.mu: the subscription's notifications wait in held
	// until the answer of the call that made it is on its way (active).
	active bool
	held   [][]byte
	heldB  int // the bytes of held
}

// ErrNoConn is the error of Topic.Subscribe under a context that is not
// that of a call made over a Conn.
var ErrNoConn = errors.New("jsonrpc: the call did not come over a two-way connection")

// ErrTooManySubscriptions is the error of Topic.Subscribe on a Conn that
// has Options.MaxSubscriptions subscriptions already: a *jsonrpc.Error
// (jsonrpc.CodeLimitExceeded), so that a subscribe method that returns it
// answers its caller with what happened. On a Conn whose Protocol gives
// its refusals a code of its own (Protocol.RefusalCode: MCP's), Subscribe
// returns an error that answers with that code and still matches
// ErrTooManySubscriptions (errors.Is).
var ErrTooManySubscriptions error = errTooManySubs

var errTooManySubs = jsonrpc.NewError(jsonrpc.CodeLimitExceeded, "").WithData("too many subscriptions on this connection")

// Subscribe subscribes the Conn of the call that ctx belongs to (the
// subscribe method's own context: FromContext) to the Topic, under a new
// id: 0x and 32 hexadecimal digits, random. What is published to it before
// that call's answer is on its way waits (up to MaxPush notifications),
// so that the peer always learns the subscription's id before its first
// notification, as go-ethereum's clients require. The subscription ends
// with Unsubscribe, the Overflow policy, or the end of the Conn's read
// loop (Done). It returns ErrNoConn when ctx has no Conn, and
// ErrTooManySubscriptions when the Conn has MaxSubscriptions already.
func (t *Topic) Subscribe(ctx context.Context) (*Subscription, error) {
	c := FromContext(ctx)
	if c == nil {
		return nil, ErrNoConn
	}
	if err := t.join(ctx); err != nil {
		return nil, err
	}
	id := newSubscriptionID()
	s := &Subscription{t: t, c: c, id: id, done: make(chan struct{})}
	s.prefix = append(s.prefix, `{"jsonrpc":"2.0","method":`...)
	s.prefix = wire.AppendQuote(s.prefix, t.Method)
	s.prefix = append(s.prefix, `,"params":{"subscription":`...)
	s.prefix = wire.AppendQuote(s.prefix, id)
	s.prefix = append(s.prefix, `,"result":`...)
	c.twoWay.Store(true)
	// The call whose answer the notifications wait for: a Blocking call's
	// record is in its context (Begin); an inline call's is the one being
	// dispatched, on this goroutine.
	var in *incoming
	switch v := ctx.Value(inlineKey{}).(type) {
	case *incoming:
		in = v
	case *Conn:
		if v == c {
			in = c.current
		}
	}
	c.held.Add(1)
	c.mu.Lock()
	if c.err == nil && len(c.subs) >= c.maxSubs {
		c.mu.Unlock()
		c.held.Add(-1)
		return nil, c.limitError(errTooManySubs)
	}
	if in == nil || in.c != c || in.phase.Load() == answered {
		s.active = true
		c.held.Add(-1)
	} else {
		in.subs = append(in.subs, s)
	}
	err := c.err
	if err == nil {
		if c.subs == nil {
			c.subs = map[*Subscription]struct{}{}
		}
		c.subs[s] = struct{}{} // ended with the read loop
	}
	c.mu.Unlock()
	if err != nil {
		s.end(err)
		return s, nil
	}
	t.mu.Lock()
	if t.subs == nil {
		t.subs = map[string]*Subscription{}
	}
	t.subs[id] = s
	t.mu.Unlock()
	return s, nil
}

// newSubscriptionID returns 0x and 32 hexadecimal digits, random.
func newSubscriptionID() string {
	var b [16]byte
	rand.Read(b[:])
	return "0x" + hex.EncodeToString(b[:])
}

// closedErr returns the error the Conn's calls fail with once its read
// loop has ended.
func (c *Conn) closedErr() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Publish sends value, encoded once with encoding/json, to every
// subscriber, and returns to how many it was queued. With a Broker it
// hands the value to the Broker, which delivers it to the subscribers of
// every process, this one included, and returns 0 and the Broker's
// error.
func (t *Topic) Publish(value any) (int, error) {
	return t.PublishContext(context.Background(), value)
}

// PublishContext is Publish with the context of the Broker's Publish,
// which bounds how long a Broker that is away may take the value. Without
// a Broker ctx is not used: nothing waits.
func (t *Topic) PublishContext(ctx context.Context, value any) (int, error) {
	v, err := json.Marshal(value)
	if err != nil {
		return 0, err
	}
	v = wire.UnescapeHTML(v)
	if t.Broker != nil {
		return 0, t.Broker.Publish(ctx, t.subject(), v)
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
		case errors.Is(err, ErrPushFull):
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
		return fmt.Errorf("jsonrpc: subscribing to %q: %w", t.subject(), err)
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
	c := s.c
	c.mu.Lock()
	defer c.mu.Unlock()
	if s.active {
		return c.putPushLocked(msg)
	}
	if len(s.held) >= c.maxPush || s.heldB > 0 && s.heldB+len(msg) > c.maxPushB {
		return ErrPushFull
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
		if s.c != nil {
			s.c.mu.Lock()
			delete(s.c.subs, s)
			s.c.mu.Unlock()
		}
		s.err = err
		close(s.done)
	})
}
