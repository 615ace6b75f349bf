package enumerator_test

import (
	"context"
	"fmt"
	"iter"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/internal/leaktest"
	"github.com/jsonrpc-go/jsonrpc/internal/peertest"
	"github.com/jsonrpc-go/jsonrpc/protocol/lsp"
	"github.com/jsonrpc-go/jsonrpc/stream"
	"github.com/jsonrpc-go/jsonrpc/transport"
)

// endless serves "items": a sequence of up to a million items of size
// bytes, each counted in produced as the producer yields it.
func endless(size int, produced *atomic.Int64) *jsonrpc.Server {
	srv := jsonrpc.NewServer(jsonrpc.AllowUnknownFields())
	item := strings.Repeat("y", size-2)
	srv.MustRegister("items", func(ctx context.Context, p struct {
		Query string `json:"query"`
	}) iter.Seq[string] {
		return func(yield func(string) bool) {
			for range 1_000_000 {
				produced.Add(int64(size))
				if ctx.Err() != nil || !yield(item) {
					return
				}
			}
		}
	})
	return srv
}

// settle waits until produced has not grown for a while, and returns it.
func settle(produced *atomic.Int64) int64 {
	last := produced.Load()
	for range 100 {
		time.Sleep(50 * time.Millisecond)
		n := produced.Load()
		if n == last {
			return n
		}
		last = n
	}
	return last
}

// TestPartialResultsHeldBack: under LSP, the partial results of several
// calls on one connection whose peer does not read are held back by the
// connection's write queue, as one call's are by its own write: what the
// producers yield stays within the queue's bytes (MaxQueued) and a few
// batches, however long they could go on. (Before, one call was held
// back and two or more ran unchecked.)
func TestPartialResultsHeldBack(t *testing.T) {
	leaktest.Check(t)
	var produced atomic.Int64
	const size, calls = 1 << 10, 4
	lim := transport.Limits{MaxQueued: 64 << 10}
	r := peertest.NewRaw(t, &stream.Server{Server: endless(size, &produced), Protocol: lsp.Protocol(), Limits: lim})
	r.StopReading()
	t.Cleanup(r.ResumeReading)
	for i := range calls {
		r.Send(fmt.Sprintf(`{"jsonrpc":"2.0","method":"items","params":{"query":"q","partialResultToken":"p%d"},"id":%d}`, i, i))
	}
	got := settle(&produced)
	// The write under way and the queue (MaxQueued, and the message that
	// passes it), a batch waiting to be queued and one being made by
	// each call: 64 KiB a batch.
	if limit := int64(lim.MaxQueued + (2+2*calls)*64<<10); got > limit {
		t.Errorf("the producers yielded %d bytes for a peer that reads nothing, want at most %d", got, limit)
	}
	t.Logf("%d calls yielded %d KiB for a peer that reads nothing", calls, got>>10)
}
