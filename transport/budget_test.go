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

// A client takes through its view at most its share (half of the budget by
// default): what it holds cannot take another client's room, the refusal
// is Take's or Hold's false, and Give through the view makes its room
// again.
func TestClientShare(t *testing.T) {
	b := NewBudget(100)
	if b.MaxPerClient() != 50 {
		t.Fatalf("MaxPerClient %d, want 50", b.MaxPerClient())
	}
	a1, a2, c := b.Client("a"), b.Client("a"), b.Client("c")
	var taken int64
	if !a1.Hold(&taken, 40) || a1.Used() != 40 || b.Used() != 40 {
		t.Fatalf("a holds 40: a %d, budget %d", a1.Used(), b.Used())
	}
	if a2.Take(11) || a2.Room() != 10 || b.Used() != 40 {
		t.Fatalf("a took past its share through a second view: room %d, budget %d", a2.Room(), b.Used())
	}
	if !c.Take(50) || c.Take(1) || b.Room() != 10 {
		t.Fatalf("c's share: used %d, budget room %d", c.Used(), b.Room())
	}
	if !b.Take(10) || a2.Take(1) || a2.Room() != 0 {
		t.Fatalf("with the budget spent, a took within its share (room %d)", a2.Room())
	}
	b.Give(10)
	a1.Give(taken)
	if a2.Used() != 0 || !a2.Take(50) {
		t.Fatalf("a's room did not come back: a %d", a2.Used())
	}
	a2.Give(50)
	c.Give(50)
	if b.Used() != 0 || len(b.clients) != 0 {
		t.Fatalf("after all was given back: budget %d, %d clients kept", b.Used(), len(b.clients))
	}
	if b.Client("") != b || b.Client("a").Client("c").root != b {
		t.Fatal("the view of no client, or a view of a view, is wrong")
	}
	whole := NewBudgetPerClient(100, 100)
	if whole.Client("a") != whole || !whole.Client("a").Take(100) {
		t.Fatal("a budget without shares gave a view, or refused one client all of it")
	}
}
