package peer

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"sync"
	"sync/atomic"

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

// pushQueue holds the notifications of Push and Publish for a goroutine of
// their own to write (pushOut), so that the sender never waits for a slow
// peer.
type pushQueue struct {
	mu      sync.Mutex
	msgs    [][]byte
	max     int
	writing bool
}

// Push sends the peer the notification method with params without
// waiting: it is queued, and written by a goroutine of the Conn's own. When
// MaxPush notifications are already waiting, it is dropped and Push
// returns ErrPushFull, so that a peer that reads slowly holds up no one
// but itself. After the read loop has ended it returns an error wrapping
// ErrClosed.
func (c *Conn) Push(method string, params any) error {
	msg, err := appendRequest(nil, method, params, 0)
	if err != nil {
		return err
	}
	return c.enqueuePush(msg)
}

func (c *Conn) enqueuePush(msg []byte) error {
	select {
	case <-c.done:
		c.pmu.Lock()
		defer c.pmu.Unlock()
		return c.err
	default:
	}
	q := &c.pushq
	q.mu.Lock()
	if len(q.msgs) >= q.max {
		q.mu.Unlock()
		return ErrPushFull
	}
	q.msgs = append(q.msgs, msg)
	start := !q.writing
	q.writing = true
	q.mu.Unlock()
	if start {
		go c.pushOut()
	}
	return nil
}

// pushOut writes the queued notifications until the queue is empty. A
// write that blocks (the peer does not read) holds up this goroutine only;
// the transport's write timeout ends it.
func (c *Conn) pushOut() {
	q := &c.pushq
	for {
		q.mu.Lock()
		msgs := q.msgs
		q.msgs = nil
		if len(msgs) == 0 {
			q.writing = false
			q.mu.Unlock()
			return
		}
		q.mu.Unlock()
		for _, m := range msgs {
			c.t.Write(c.ctx, m)
		}
		c.t.Flush()
	}
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
// is full. The zero Topic is not ready: set Method. A Topic is safe for
// concurrent use.
type Topic struct {
	// Method is the notification's method, such as "eth_subscription".
	Method string
	// Overflow is the policy for a subscriber whose queue is full.
	Overflow Overflow

	mu   sync.Mutex
	subs map[string]*Subscription
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
	err     error // why it ended; set before done is closed
}

// Subscribe subscribes c to the Topic under a new id: 0x and 32
// hexadecimal digits, random. The subscription ends with Unsubscribe, the
// Overflow policy, or the end of c's read loop (Done).
func (t *Topic) Subscribe(c *Conn) *Subscription {
	var b [16]byte
	rand.Read(b[:])
	id := "0x" + hex.EncodeToString(b[:])
	s := &Subscription{t: t, c: c, id: id, done: make(chan struct{})}
	s.prefix = append(s.prefix, `{"jsonrpc":"2.0","method":`...)
	s.prefix = wire.AppendQuote(s.prefix, t.Method)
	s.prefix = append(s.prefix, `,"params":{"subscription":`...)
	s.prefix = wire.AppendQuote(s.prefix, id)
	s.prefix = append(s.prefix, `,"result":`...)
	t.mu.Lock()
	if t.subs == nil {
		t.subs = map[string]*Subscription{}
	}
	t.subs[id] = s
	t.mu.Unlock()
	go func() {
		select {
		case <-c.done:
			c.pmu.Lock()
			err := c.err
			c.pmu.Unlock()
			s.end(err)
		case <-s.done:
		}
	}()
	return s
}

// Publish sends value, encoded once with encoding/json, to every
// subscriber, and returns to how many it was queued.
func (t *Topic) Publish(value any) (int, error) {
	v, err := json.Marshal(value)
	if err != nil {
		return 0, err
	}
	t.mu.Lock()
	subs := make([]*Subscription, 0, len(t.subs))
	for _, s := range t.subs {
		subs = append(subs, s)
	}
	t.mu.Unlock()
	n := 0
	for _, s := range subs {
		msg := make([]byte, 0, len(s.prefix)+len(v)+2)
		msg = append(append(append(msg, s.prefix...), v...), "}}"...)
		switch err := s.c.enqueuePush(msg); {
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
	return n, nil
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

func (s *Subscription) end(err error) {
	s.once.Do(func() {
		s.t.mu.Lock()
		delete(s.t.subs, s.id)
		s.t.mu.Unlock()
		s.err = err
		close(s.done)
	})
}
