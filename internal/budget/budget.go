// Package budget bounds the memory that the partial messages of many
// connections hold at once: it is transport.Budget, under the names the
// hosts of this module use. A host takes from a Budget the room a large
// message needs before it buffers the message, and gives it back when the
// message is answered or dropped; when the budget is spent, the host
// refuses the message (503, a close frame, an error answer) instead of
// buffering it. Small messages, which the hosts read into pooled buffers,
// do not take from a budget.
package budget

import "github.com/jsonrpc-go/jsonrpc/transport"

// Small is the size up to which a message does not count against a budget:
// the size of the buffers the hosts pool.
const Small = transport.SmallMessage

// A Budget is a number of bytes that holders take and give back
// (transport.Budget).
type Budget = transport.Budget

// New returns a budget of max bytes.
func New(max int64) *Budget { return transport.NewBudget(max) }
