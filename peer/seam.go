package peer

import (
	"context"
	"errors"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/transport"
)

// The seam: what a package above the engine (pubsub's topics, a
// protocol's own state) uses of a Conn, and nothing more.

// ErrPushFull is the error of Push and PushMessage when the Conn's queue of
// notifications waiting to be sent is full: the peer reads slower than it
// is sent to.
var ErrPushFull = errors.New("jsonrpc: push queue full")

// Push sends the peer the notification method with params without
// waiting: it is queued behind the Conn's other messages, in the one queue
// that its writer sends in order, and the Conn is two-way from then on.
// When MaxPush notifications, or MaxPushBytes of them, are already
// waiting, it is dropped and Push returns ErrPushFull, so that a peer that
// reads slowly holds up no one but itself. After the read loop has ended
// it returns an error wrapping ErrClosed.
func (c *Conn) Push(method string, params any) error {
	msg, err := appendRequest(nil, method, params, 0)
	if err != nil {
		return err
	}
	return c.PushMessage(msg)
}

// PushMessage is Push for a notification already encoded, whole: msg is
// queued as it is (and kept: the caller must not change it), for a sender
// that builds its notifications itself, such as a topic that encodes a
// value once for all its subscribers.
func (c *Conn) PushMessage(msg []byte) error {
	c.twoWay.Store(true)
	c.mu.Lock()
	err := c.putPushLocked(msg)
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
	if o.pushes >= c.lim.MaxPush || o.pushB > 0 && o.pushB+len(msg) > c.lim.MaxPushBytes {
		return ErrPushFull
	}
	o.pushes++
	o.pushB += len(msg)
	c.addLocked(msg)
	c.startWriterLocked()
	return nil
}

// AfterAnswer arranges for f to run once the answer to the call of ctx
// (a method's own context) has been queued or written, so that what f
// sends the peer follows that answer: how a subscribe method's
// notifications wait until the peer has learnt the subscription's id. It
// reports false, and runs f at once, when ctx is not that of a call on a
// Conn, or when the call has been answered already. f runs on the
// goroutine that answered; it must not block.
func AfterAnswer(ctx context.Context, f func()) bool {
	c := FromContext(ctx)
	if c == nil {
		f()
		return false
	}
	// The call whose answer f waits for: a Blocking call's record is in
	// its context (Begin); an inline call's is the one being dispatched,
	// on this goroutine.
	var in *incoming
	switch v := ctx.Value(inlineKey{}).(type) {
	case *incoming:
		in = v
	case *Conn:
		if v == c {
			in = c.current
		}
	}
	// held is counted before the phase is read, and the answer sets the
	// phase before it reads held: one of the two sees the other.
	c.held.Add(1)
	c.mu.Lock()
	if in == nil || in.c != c || in.phase.Load() == answered {
		c.mu.Unlock()
		c.held.Add(-1)
		f()
		return false
	}
	in.after = append(in.after, f)
	c.mu.Unlock()
	return true
}

// afterAnswer runs the functions waiting for the answer of in
// (AfterAnswer), once it has been queued or written.
func (c *Conn) afterAnswer(in *incoming) {
	c.mu.Lock()
	fs := in.after
	in.after = nil
	c.mu.Unlock()
	if len(fs) == 0 {
		return
	}
	c.held.Add(-int32(len(fs)))
	for _, f := range fs {
		f()
	}
}

// Local returns the value the Conn keeps under key, made by init the first
// time: the state a package above the engine keeps per connection, as
// package pubsub keeps a connection's subscriptions. init runs under the
// Conn's lock, once, and must not call the Conn. The value lives as long
// as the Conn; OnClose tells when its read loop ends.
func (c *Conn) Local(key any, init func() any) any {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.locals[key]
	if !ok {
		if c.locals == nil {
			c.locals = map[any]any{}
		}
		v = init()
		c.locals[key] = v
	}
	return v
}

// OnClose arranges for f to run once the Conn's read loop has ended, with
// the error its calls then fail with (one wrapping ErrClosed); at once, on
// this goroutine, when it has ended already. f must not block.
func (c *Conn) OnClose(f func(err error)) {
	c.mu.Lock()
	if err := c.err; err != nil {
		c.mu.Unlock()
		f(err)
		return
	}
	c.onClose = append(c.onClose, f)
	c.mu.Unlock()
}

// Protocol returns the Conn's Protocol, as given to New: for a
// protocol's package to tell whether a call came under its profile.
func (c *Conn) Protocol() Protocol { return c.proto }

// Limits returns the Conn's limits, with the defaults applied.
func (c *Conn) Limits() transport.Limits { return c.lim }

// LimitError returns e, an error of the library's own with which a call on
// the Conn is refused at a limit (jsonrpc.CodeLimitExceeded, data naming
// the limit), for a method to return: with the code the Conn's Protocol
// gives a refusal, and matching e (errors.Is) whatever that code.
func (c *Conn) LimitError(e *jsonrpc.Error) error {
	if r := c.refusalOf(e); r != e {
		return &refusal{answer: r, of: e}
	}
	return e
}
