package demorpc_test

import (
	"context"
	"testing"

	"github.com/jsonrpc-go/jsonrpc/client"
	"github.com/jsonrpc-go/jsonrpc/internal/demo"
	"github.com/jsonrpc-go/jsonrpc/openrpc/gen/internal/demorpc"
)

// callers are the two ways of calling add and subtract that the benchmark
// and the allocation test compare: the generated client, and client.Call
// with hand-written types.
func callers(tb testing.TB) (generated, byHand func(ctx context.Context, a, b float64) error) {
	c := client.New(client.Local(demo.NewServer()))
	tb.Cleanup(func() { c.Close() })
	gc := demorpc.NewClient(c)
	generated = func(ctx context.Context, a, b float64) error {
		if _, err := gc.Add(ctx, a, b); err != nil {
			return err
		}
		_, err := gc.Subtract(ctx, a, b)
		return err
	}
	byHand = func(ctx context.Context, a, b float64) error {
		if _, err := client.Call[float64](ctx, c, "add", []any{a, b}); err != nil {
			return err
		}
		_, err := client.Call[float64](ctx, c, "subtract", []any{a, b})
		return err
	}
	return generated, byHand
}

// BenchmarkClient compares a call of add and one of subtract through the
// generated client with the same calls through client.Call.
func BenchmarkClient(b *testing.B) {
	generated, byHand := callers(b)
	ctx := context.Background()
	for _, bm := range []struct {
		name string
		f    func(context.Context, float64, float64) error
	}{{"generated", generated}, {"client.Call", byHand}} {
		b.Run(bm.name, func(b *testing.B) {
			b.ReportAllocs()
			x := 1.5
			for b.Loop() {
				if err := bm.f(ctx, x, 2.25); err != nil {
					b.Fatal(err)
				}
				x++
			}
		})
	}
}
