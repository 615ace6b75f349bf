// Package budget bounds the memory that the partial messages of many
// connections hold at once. A host takes from a Budget the room a large
// message needs before it buffers the message, and gives it back when the
// message is answered or dropped; when the budget is spent, the host refuses
// the message (503, a close frame, an error answer) instead of buffering it.
// Small messages, which the hosts read into pooled buffers, do not take from
// a budget.
package budget

import "sync/atomic"

// Small is the size up to which a message does not count against a budget:
// the size of the buffers the hosts pool.
const Small = 64 << 10

// A Budget is a number of bytes that holders take and give back. It is safe
// for concurrent use by multiple goroutines. The zero value has no room.
type Budget struct {
	max  int64
	used atomic.Int64
}

// New returns a budget of max bytes.
func New(max int64) *Budget { return &Budget{max: max} }

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

// Give gives back n bytes taken with Take.
func (b *Budget) Give(n int64) {
	if n > 0 {
		b.used.Add(-n)
	}
}

// Used returns the bytes taken now.
func (b *Budget) Used() int64 { return b.used.Load() }

// Max returns the size of the budget.
func (b *Budget) Max() int64 { return b.max }
