package httphost

import (
	"log/slog"
	"sync/atomic"

	"github.com/jsonrpc-go/jsonrpc/internal/ratelog"
	"github.com/jsonrpc-go/jsonrpc/transport"
)

// Lazy is the state an HTTP host makes on first use, so that its zero
// value serves: the MaxBuffered budget and the Logger within ratelog's
// bounds. It is safe for concurrent use.
type Lazy struct {
	buffered atomic.Pointer[transport.Budget]
	log      atomic.Pointer[slog.Logger]
}

// Budget returns the budget of max bytes (def when max <= 0), made on
// first use.
func (z *Lazy) Budget(max, def int64) *transport.Budget {
	if b := z.buffered.Load(); b != nil {
		return b
	}
	if max <= 0 {
		max = def
	}
	z.buffered.CompareAndSwap(nil, transport.NewBudget(max))
	return z.buffered.Load()
}

// Logger returns l within ratelog's bounds, made on first use; nil when
// l is nil.
func (z *Lazy) Logger(l *slog.Logger) *slog.Logger {
	if w := z.log.Load(); w != nil || l == nil {
		return w
	}
	z.log.CompareAndSwap(nil, ratelog.Wrap(l))
	return z.log.Load()
}
