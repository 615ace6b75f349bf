package transport

import "sync/atomic"

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
// Take, Hold and Give are for hosts: a transport of one's own takes from a
// Budget as the hosts of this module do.
type Budget struct {
	max  int64
	used atomic.Int64
}

// NewBudget returns a budget of max bytes.
func NewBudget(max int64) *Budget { return &Budget{max: max} }

// Take takes n bytes and reports whether they were free; on false nothing
// is taken. Taking 0 bytes always succeeds.
func (b *Budget) Take(n int64) bool {
	if n <= 0 {
		return true
	}
	if b.used.Add(n) > b.max {
		b.used.Add(-n)
		return false
	}
	return true
}

// Hold makes *taken, what a holder has taken so far, at least held bytes,
// taking the difference; false means the budget has no room for it, and
// nothing more is taken.
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

// Give gives back n bytes taken with Take or Hold.
func (b *Budget) Give(n int64) {
	if n > 0 {
		b.used.Add(-n)
	}
}

// Used returns the bytes taken now.
func (b *Budget) Used() int64 { return b.used.Load() }

// Max returns the size of the budget.
func (b *Budget) Max() int64 { return b.max }
