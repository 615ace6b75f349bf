package enumerator_test

import (
	"context"
	"iter"
	"net"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/client"
	"github.com/jsonrpc-go/jsonrpc/peer"
	"github.com/jsonrpc-go/jsonrpc/stream"
	"github.com/jsonrpc-go/jsonrpc/transport"
)

// BenchmarkSeq: items of 200 bytes a second over one loopback TCP
// connection, a sequence result pulled with $/enumerator/next (64 items
// an answer, and 1) against the same items pushed as notifications before
// the answer; one b.N is one item, so that allocs/op are per item, both
// ends together.
func BenchmarkSeq(b *testing.B) {
	item := strings.Repeat("x", 198) // 200 bytes as a JSON string
	srv := jsonrpc.NewServer()
	srv.MustRegister("items", func(ctx context.Context, n int) iter.Seq[string] {
		return func(yield func(string) bool) {
			for range n {
				if !yield(item) {
					return
				}
			}
		}
	})
	srv.MustRegister("push", func(ctx context.Context, n int) error {
		c := peer.FromContext(ctx)
		for range n {
			if err := c.Notify(ctx, "item", []string{item}); err != nil {
				return err
			}
		}
		return nil
	}, jsonrpc.Blocking())
	dialTCP := func(b *testing.B, lim transport.Limits, opts ...client.Option) *client.Client {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			b.Fatal(err)
		}
		s := &stream.Server{Server: srv, Limits: lim}
		go s.Serve(ln)
		b.Cleanup(func() { s.Close() })
		ch, err := client.Dial(context.Background(), "tcp", ln.Addr().String(), s.Framing)
		if err != nil {
			b.Fatal(err)
		}
		c := client.New(ch, opts...)
		b.Cleanup(func() { c.Close() })
		return c
	}
	for _, batch := range []int{64, 1} {
		b.Run("enumerator/batch="+map[int]string{1: "1", 64: "64"}[batch], func(b *testing.B) {
			c := dialTCP(b, transport.Limits{MaxSeqItems: batch})
			b.ReportAllocs()
			b.ResetTimer()
			n := 0
			for v, err := range client.CallSeq[string](context.Background(), c, "items", []int{b.N}) {
				if err != nil || len(v) != len(item) {
					b.Fatalf("item %d: %v", n, err)
				}
				n++
			}
			if n != b.N {
				b.Fatalf("%d items, want %d", n, b.N)
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "items/s")
		})
	}
	b.Run("notifications", func(b *testing.B) {
		var got atomic.Int64
		mine := jsonrpc.NewServer()
		mine.MustRegister("item", func(string) { got.Add(1) })
		c := dialTCP(b, transport.Limits{MaxPush: 1 << 20}, client.Serve(mine))
		b.ReportAllocs()
		b.ResetTimer()
		if _, err := client.Call[any](context.Background(), c, "push", []int{b.N}); err != nil {
			b.Fatal(err)
		}
		if got.Load() != int64(b.N) {
			b.Fatalf("%d items, want %d", got.Load(), b.N)
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "items/s")
	})
}
