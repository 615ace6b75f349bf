package enumerator_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/client"
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

// namedConn is a connection whose client is name (stream.Server's
// ClientKey).
type namedConn struct {
	net.Conn
	name string
}

// TestSeqRunningShares: a sequence result left open, its producer waiting
// to be pulled, counts against the server's running calls
// (jsonrpc.Limits.MaxRunning) and its client's share of them
// (MaxRunningPerClient), over all the client's connections: past its
// share a client's next sequence is refused with the limit code, while
// another client opens its own; past MaxRunning every client's is; an
// abort or the end of a connection gives the share back. Before, only
// MaxSequences of each connection bounded them, so that one client's
// connections could keep any number of producers.
func TestSeqRunningShares(t *testing.T) {
	leaktest.Check(t)
	srv := jsonrpc.NewServer(jsonrpc.UseLimits(jsonrpc.Limits{MaxRunning: 6, MaxRunningPerClient: 3}))
	srv.MustRegister("count", func(ctx context.Context, n int) iter.Seq[int] {
		return func(yield func(int) bool) {
			for i := range n {
				if ctx.Err() != nil || !yield(i) {
					return
				}
			}
		}
	})
	s := &stream.Server{Server: srv, Limits: transport.Limits{MaxSeqItems: 1}, ClientKey: func(c io.ReadWriteCloser) string { return c.(namedConn).name }}
	t.Cleanup(func() { s.Close() })
	dial := func(name string) *client.Client {
		cc, sc := net.Pipe()
		go s.ServeConn(context.Background(), namedConn{sc, name})
		c := client.New(client.Stream(cc, s.Framing))
		t.Cleanup(func() { c.Close() })
		return c
	}
	ctx, cancel := context.WithTimeout(context.Background(), peertest.Wait)
	defer cancel()
	// open opens a sequence on c and returns its token, or the error.
	open := func(c *client.Client) (int, error) {
		raw, err := c.Conn().CallRaw(ctx, "count", []int{100})
		if err != nil {
			return 0, err
		}
		var res struct{ Token int }
		if err := json.Unmarshal(raw, &res); err != nil || res.Token == 0 {
			t.Fatalf("%s: %v", raw, err)
		}
		return res.Token, nil
	}
	refused := func(c *client.Client, who string) {
		t.Helper()
		_, err := open(c)
		if e, ok := errors.AsType[*jsonrpc.Error](err); !ok || e.Code != jsonrpc.CodeLimitExceeded || !strings.Contains(err.Error(), "MaxRunning") {
			t.Errorf("%s past its share: %v, want the limit error naming MaxRunning", who, err)
		}
	}
	// One client over two connections: three open, the fourth refused.
	a1, a2 := dial("a"), dial("a")
	var tokens []int
	for _, c := range []*client.Client{a1, a2, a1} {
		tok, err := open(c)
		if err != nil {
			t.Fatal(err)
		}
		tokens = append(tokens, tok)
	}
	refused(a2, "client a")
	// Another client has its share.
	b := dial("b")
	for range 3 {
		if _, err := open(b); err != nil {
			t.Fatalf("client b beside a at its share: %v", err)
		}
	}
	// The server's whole: a third client is refused.
	refused(dial("c"), "client c with the server at MaxRunning")
	// An abort gives a's share back.
	if err := a1.Conn().Call(ctx, "$/enumerator/abort", []int{tokens[0]}, nil); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { _, err := open(a2); return err == nil })
	// So does the end of a connection: a2's two, then two on a new one.
	a2.Close()
	a3 := dial("a")
	for range 2 {
		waitFor(t, func() bool { _, err := open(a3); return err == nil })
	}
	refused(a3, "client a again")
}

// waitFor waits until ok, or fails t.
func waitFor(t *testing.T, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(peertest.Wait)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatal("timed out")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestSeqBytesHeld: the items of sequence results that a connection has
// produced and not sent are bounded by its budget (MaxSeqBytes) and a few
// items, for a peer that reads nothing: in the first answers of many
// calls, and in the answers of many pulls of open sequences at once.
// Before, every call in flight and every pull made its items, 64 and 32
// answers of them here, and with 1 MiB items and 256 calls on each of 8
// connections a server reached 8 GiB.
func TestSeqBytesHeld(t *testing.T) {
	leaktest.Check(t)
	const size = 16 << 10
	lim := transport.Limits{MaxQueued: 64 << 10, MaxSeqBytes: 256 << 10}
	// The write under way and the queue (one batch each, and the one
	// that passes MaxQueued), the budget, and the item each producer
	// makes past it: a batch is 64 KiB and an item.
	batch := int64(64<<10 + size)
	limit := 3*batch + int64(lim.MaxQueued+lim.MaxSeqBytes) + 4*size
	t.Run("first answers", func(t *testing.T) {
		var produced atomic.Int64
		r := peertest.NewRaw(t, &stream.Server{Server: endless(size, &produced), Limits: lim})
		r.StopReading()
		t.Cleanup(r.ResumeReading)
		// The server may stop reading before the last call (a one-way
		// connection's read loop writes what waits before it reads, and
		// its write waits for a peer that reads nothing).
		const calls = 64
		sent := make(chan struct{})
		go func() {
			defer close(sent)
			for i := range calls {
				r.Send(fmt.Sprintf(`{"jsonrpc":"2.0","method":"items","params":{"query":"q"},"id":%d}`, i))
			}
		}()
		if got := settle(&produced); got > limit {
			t.Errorf("%d calls made %d KiB of items for a peer that reads nothing, want at most %d", calls, got>>10, limit>>10)
		}
		// Once the peer reads, every call is answered.
		r.ResumeReading()
		for range calls {
			r.Recv()
		}
		<-sent
	})
	t.Run("pulls", func(t *testing.T) {
		var produced atomic.Int64
		r := peertest.NewRaw(t, &stream.Server{Server: endless(size, &produced), Limits: lim})
		const open = 32
		for i := range open {
			r.Send(fmt.Sprintf(`{"jsonrpc":"2.0","method":"items","params":{"query":"q"},"id":%d}`, i))
			r.Recv()
		}
		opened := produced.Load()
		r.StopReading()
		t.Cleanup(r.ResumeReading)
		for i := range open {
			r.Send(fmt.Sprintf(`{"jsonrpc":"2.0","method":"$/enumerator/next","params":[%d],"id":%d}`, i+1, 100+i))
		}
		if got := settle(&produced) - opened; got > limit {
			t.Errorf("%d pulls made %d KiB of items for a peer that reads nothing, want at most %d", open, got>>10, limit>>10)
		}
	})
}
