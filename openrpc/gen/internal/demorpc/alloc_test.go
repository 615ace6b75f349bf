//go:build !race

package demorpc_test

import (
	"context"
	"testing"
)

// TestClientAllocations checks that the generated client allocates no
// more per call than client.Call with hand-written types.
func TestClientAllocations(t *testing.T) {
	generated, byHand := callers(t)
	ctx := context.Background()
	x := 1.5
	gen := testing.AllocsPerRun(200, func() {
		if err := generated(ctx, x, 2.25); err != nil {
			t.Fatal(err)
		}
		x++
	})
	hand := testing.AllocsPerRun(200, func() {
		if err := byHand(ctx, x, 2.25); err != nil {
			t.Fatal(err)
		}
		x++
	})
	t.Logf("allocations of add and subtract: generated %.0f, client.Call %.0f", gen, hand)
	if gen > hand {
		t.Errorf("the generated client allocates %.0f times for add and subtract, client.Call %.0f", gen, hand)
	}
}
