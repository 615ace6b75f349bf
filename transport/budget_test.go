package transport

import (
	"sync"
	"testing"
)

func TestTakeGive(t *testing.T) {
	b := NewBudget(100)
	if !b.Take(60) || !b.Take(40) {
		t.Fatal("the budget refused what it had")
	}
	if b.Take(1) {
		t.Fatal("the budget gave more than it had")
	}
	if !b.Take(0) {
		t.Fatal("taking nothing failed")
	}
	b.Give(40)
	if b.Take(41) {
		t.Fatal("a refused take kept its bytes, or Give returned too many")
	}
	if !b.Take(40) || b.Used() != 100 || b.Max() != 100 {
		t.Fatalf("used %d of %d", b.Used(), b.Max())
	}
	var zero Budget
	if zero.Take(1) {
		t.Fatal("the zero budget has room")
	}
}

// Concurrent holders never take more than the budget between them (run with
// -race).
func TestConcurrent(t *testing.T) {
	const size, holders, rounds = 1000, 16, 2000
	b := NewBudget(size)
	var held, peak int64
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range holders {
		wg.Go(func() {
			for range rounds {
				if !b.Take(300) {
					continue
				}
				mu.Lock()
				held += 300
				peak = max(peak, held)
				mu.Unlock()
				mu.Lock()
				held -= 300
				mu.Unlock()
				b.Give(300)
			}
		})
	}
	wg.Wait()
	if peak > size || b.Used() != 0 {
		t.Errorf("peak %d of %d, %d left taken", peak, size, b.Used())
	}
}

func TestHold(t *testing.T) {
	b := NewBudget(100)
	var taken int64
	if !b.Hold(&taken, 30) || taken != 30 || b.Used() != 30 {
		t.Fatalf("Hold(30): taken %d, used %d", taken, b.Used())
	}
	if !b.Hold(&taken, 20) || taken != 30 || b.Used() != 30 {
		t.Fatalf("Hold(20) after 30: taken %d, used %d", taken, b.Used())
	}
	if !b.Hold(&taken, 100) || taken != 100 || b.Used() != 100 {
		t.Fatalf("Hold(100): taken %d, used %d", taken, b.Used())
	}
	var other int64
	if b.Hold(&other, 1) || other != 0 || b.Used() != 100 {
		t.Fatalf("Hold past the budget: taken %d, used %d", other, b.Used())
	}
}
