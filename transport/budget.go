package transport

import (
	"sync"
	"sync/atomic"
)

// SmallMessage is the size up to which a message does not count against a
// Budget: the size of the buffers the hosts read small messages into and
// reuse.
const SmallMessage = 64 << 10

// A Budget bounds the memory that the large messages of many connections
// hold at once while they are read and handled: a host takes from it the
// room a message larger than SmallMessage needs before it buffers the
// message, and gives it back once the message is answered or dropped; when
// the budget is spent, the host refuses the message (503 over HTTP, an
// error answer or a close frame on a connection) instead of buffering it.
//
// Each host makes a Budget of its own from its MaxBuffered limit. Hosts
// given one Budget (their Budget field) share it instead, so that a
// process that serves several listeners holds at most that many bytes in
// all of them together, whichever an attack chooses. A Budget is safe for
// concurrent use by multiple goroutines; the zero value has no room.
//
// # Clients
//
// One client may hold at most a share of the budget (MaxPerClient: half of
// it, unless NewBudgetPerClient says otherwise), so that the unfinished
// messages of one client cannot spend the room of all the others. A host
// takes for a client through the view that Client returns, named as the
// host names its clients (ClientOf, or its ClientKey); what it takes
// through a view counts against both the client's share and the budget,
// and a view refuses what either has no room for, as the budget itself
// does. Taking from the Budget itself counts against no client's share.
//
// Take, Hold and Give are for hosts: a transport of one's own takes from a
// Budget as the hosts of this module do.
type Budget struct {
	max       int64
	perClient int64 // the share of one client; >= max: no shares
	used      atomic.Int64

	// Of a view (Client): the budget it is of, and its client.
	root   *Budget
	client string

	mu      sync.Mutex       // protects the field below (of a budget, not a view)
	clients map[string]int64 // bytes each client holds now; absent: none
}

// NewBudget returns a budget of max bytes, of which one client may hold
// at most half.
func NewBudget(max int64) *Budget { return NewBudgetPerClient(max, 0) }

// NewBudgetPerClient returns a budget of max bytes, of which one client
// may hold at most perClient: half of max when perClient is 0 or less,
// all of it when perClient is max or more.
func NewBudgetPerClient(max, perClient int64) *Budget {
	if perClient <= 0 {
		perClient = max / 2
	}
	return &Budget{max: max, perClient: perClient}
}

// Client returns the view of b through which a host takes for the named
// client: what it takes counts against the client's share too (see
// Budget). Every view of one name shares one share, for as long as it
// holds bytes. Client returns b itself for the client "" (no client, as
// ClientOf names a Unix socket's), and when b has no shares; called on a
// view, it returns a view of the budget the view is of.
func (b *Budget) Client(name string) *Budget {
	if b.root != nil {
		b = b.root
	}
	if name == "" || b.perClient >= b.max {
		return b
	}
	return &Budget{max: b.max, perClient: b.perClient, root: b, client: name}
}

// Take takes n bytes and reports whether they were free; on false nothing
// is taken. Taking 0 bytes always succeeds.
func (b *Budget) Take(n int64) bool {
	if n <= 0 {
		return true
	}
	if b.root != nil {
		return b.root.takeFor(b.client, n)
	}
	return b.take(n)
}

// take takes n bytes of the budget itself.
func (b *Budget) take(n int64) bool {
	if b.used.Add(n) > b.max {
		b.used.Add(-n)
		return false
	}
	return true
}

// takeFor takes n bytes for client, within its share.
func (b *Budget) takeFor(client string, n int64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	had := b.clients[client]
	if had+n > b.perClient || !b.take(n) {
		return false
	}
	if b.clients == nil {
		b.clients = make(map[string]int64)
	}
	b.clients[client] = had + n
	return true
}

// Hold makes *taken, what a holder has taken so far, at least held bytes,
// taking the difference; false means the budget (or, through a view, the
// client's share) has no room for it, and nothing more is taken.
func (b *Budget) Hold(taken *int64, held int64) bool {
	need := held - *taken
	if need <= 0 {
		return true
	}
	if !b.Take(need) {
		return false
	}
	*taken = held
	return true
}

// Give gives back n bytes taken with Take or Hold, through the same view.
func (b *Budget) Give(n int64) {
	if n <= 0 {
		return
	}
	if r := b.root; r != nil {
		r.mu.Lock()
		if left := r.clients[b.client] - n; left > 0 {
			r.clients[b.client] = left
		} else {
			delete(r.clients, b.client)
		}
		r.mu.Unlock()
		b = r
	}
	b.used.Add(-n)
}

// Used returns the bytes taken now: of the whole budget, or, of a view,
// those its client holds.
func (b *Budget) Used() int64 {
	if r := b.root; r != nil {
		r.mu.Lock()
		defer r.mu.Unlock()
		return r.clients[b.client]
	}
	return b.used.Load()
}

// Max returns the size of the budget (of a view too).
func (b *Budget) Max() int64 { return b.max }

// MaxPerClient returns the share of one client: at most Max.
func (b *Budget) MaxPerClient() int64 { return min(b.perClient, b.max) }

// Room returns the bytes that Take could take now: what the budget has
// left, and through a view no more than its client's share has left.
func (b *Budget) Room() int64 {
	if r := b.root; r != nil {
		r.mu.Lock()
		defer r.mu.Unlock()
		return max(min(r.perClient-r.clients[b.client], r.max-r.used.Load()), 0)
	}
	return max(b.max-b.used.Load(), 0)
}
