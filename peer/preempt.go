package peer

import (
	"encoding/json"
	"sync/atomic"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/internal/wire"
	"github.com/jsonrpc-go/jsonrpc/transport"
)

// A Preempter sees each call and notification of the peer's as soon as
// the Conn has read and classified it, before it waits in the queue or
// runs, and reports whether it handled it: a message it handles goes no
// further (the Server never sees it). It is how a protocol handles
// messages of its own ahead of the methods, such as a cancel
// notification, which must reach a call that is running or waiting, and
// its progress notifications. A Protocol's cancel notification
// (CancelMethod) is a preempter the Conn makes of it, and Protocol.Preempt
// adds the protocol's others (package protocol/progress has progress's).
//
// Preempt runs on the goroutine that reads the connection, one message at
// a time: it must not block, and it must not wait for the peer. It may
// answer a call it handles at once with m.Reply, or later, from another
// goroutine, with what the call's context leads it to (a Notify, a
// Push); a call it handles and never answers gets no answer.
type Preempter interface {
	Preempt(c *Conn, m *Message) bool
}

// PreempterFunc is a function as a Preempter.
type PreempterFunc func(c *Conn, m *Message) bool

// Preempt calls f(c, m).
func (f PreempterFunc) Preempt(c *Conn, m *Message) bool { return f(c, m) }

var _ Preempter = PreempterFunc(nil)

// A Message is a call or a notification of the peer's, as the Conn read
// and classified it, for a Preempter: its members are spans of the
// message read, valid only during Preempt, and nothing is decoded but
// what is asked for.
type Message struct {
	c      *Conn
	r      *wire.Request
	notify bool
}

// Is reports whether the message's method is name, decoded: a method
// written with escapes ("$\/cancelRequest") is the method it names.
func (m *Message) Is(name string) bool { return wire.NameIs(m.r.Method, name) }

// Notification reports whether the message is a notification: it has no
// id and gets no answer.
func (m *Message) Notification() bool { return m.notify }

// ID returns the call's id as sent, or nil for a notification.
func (m *Message) ID() json.RawMessage {
	if m.notify {
		return nil
	}
	return m.r.ID
}

// Params returns the params as sent, or nil when there are none.
func (m *Message) Params() json.RawMessage { return m.r.Params }

// Reply answers the call with result, or with e when e is not nil, in the
// call's turn (under Sequential ordering, after the answers of the
// messages before it). It is valid only during Preempt; a notification
// gets no answer.
func (m *Message) Reply(result json.RawMessage, e *jsonrpc.Error) {
	if m.notify {
		return
	}
	m.c.putReader(appendAnswer(result, e, m.r.ID))
}

// Hold takes the call out of its turn, for a Preempter that answers it
// later, from another goroutine (a pull whose producer takes its time):
// it returns the function that answers the call then, with result, or
// with e when e is not nil, ahead of answers still waiting their turn.
// Hold is valid only during Preempt, and the function it returns answers
// once; for a notification it returns a function that does nothing.
func (m *Message) Hold() func(result json.RawMessage, e *jsonrpc.Error) {
	if m.notify {
		return func(json.RawMessage, *jsonrpc.Error) {}
	}
	c, id := m.c, append([]byte(nil), m.r.ID...)
	var once atomic.Bool
	return func(result json.RawMessage, e *jsonrpc.Error) {
		if once.Swap(true) {
			return
		}
		c.answer(appendAnswer(result, e, id))
	}
}

// appendAnswer returns the answer to the call of id: result, or e when e
// is not nil.
func appendAnswer(result json.RawMessage, e *jsonrpc.Error, id []byte) []byte {
	if e != nil {
		return transport.AppendError(nil, e, id)
	}
	return wire.AppendIDEnd(append([]byte(`{"jsonrpc":"2.0","result":`), result...), id)
}

// Preempt adds p to the Conn's preempters, after its Protocol's: from now
// on every message the Conn reads is classified and offered to them in
// turn, until one handles it. It is safe to call at any time, from any
// goroutine.
func (c *Conn) Preempt(p Preempter) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var ps []Preempter
	if cur := c.preempts.Load(); cur != nil {
		ps = append(ps, *cur...)
	}
	ps = append(ps, p)
	c.preempts.Store(&ps)
}

// preempt offers the message the read loop classified (c.sc, of kind) to
// the preempters ps, and reports whether one handled it.
func (c *Conn) preempt(ps []Preempter, kind wire.MsgKind) bool {
	m := &c.pmsg
	m.c, m.r, m.notify = c, c.sc.Req(), kind == wire.MsgNotification
	for _, p := range ps {
		if p.Preempt(c, m) {
			return true
		}
	}
	return false
}

// Cancel cancels the peer's call whose id is id (as sent; a string with
// escapes is the string it names): a call waiting to run is answered
// without running, and a running call of a Blocking method sees its
// context end; the call is then answered as the Protocol says
// (AnswerCancelled). It reports whether a call of that id was waiting or
// running. It is what a Preempter calls for a protocol's cancel
// notification.
func (c *Conn) Cancel(id json.RawMessage) bool {
	c.mu.Lock()
	tr := c.trackers[idKey(id)]
	c.mu.Unlock()
	if tr == nil {
		return false // answered already, or never seen
	}
	if tr.in != nil {
		tr.in.cancelled.Store(true)
	}
	if tr.cancel != nil {
		tr.cancel()
	}
	return true
}

// rules is the Conn as the Preempter of its Protocol's cancel
// notification.
type rules Conn

func (r *rules) Preempt(c *Conn, m *Message) bool {
	p := &c.proto
	if !m.Notification() || !m.Is(p.CancelMethod) {
		return false
	}
	if id := wire.Member(m.Params(), p.CancelID); id != nil {
		c.Cancel(id)
	}
	return true
}

// initPreempters sets the Conn's preempters: its Protocol's cancel
// notification, then the Protocol's Preempt, in the Conn's own array
// while they fit, so that a Conn made for each request (Streamable HTTP)
// makes nothing for them.
func (c *Conn) initPreempters() {
	p := &c.proto
	list := c.pbuf[:0]
	if p.CancelMethod != "" {
		list = append(list, (*rules)(c))
	}
	list = append(list, p.Preempt...)
	if len(list) > 0 {
		c.plist = list
		c.preempts.Store(&c.plist)
		c.cancels = true
	}
}
