package transport_test

import (
	"testing"
	"time"

	"github.com/jsonrpc-go/jsonrpc/transport"
)

// deadlines records what a ReadClock sets.
type deadlines struct{ set []time.Time }

func (d *deadlines) SetReadDeadline(t time.Time) error {
	d.set = append(d.set, t)
	return nil
}

func (d *deadlines) last() time.Time { return d.set[len(d.set)-1] }

// TestReadClock: the idle timeout waits for the calls in flight, the read
// timeout runs from a message's beginning, Stop ends the reading, and
// nothing moves a lingering deadline.
func TestReadClock(t *testing.T) {
	const idle, read = time.Hour, time.Minute
	var d deadlines
	r := transport.NewReadClock(d.SetReadDeadline, idle, read)

	start := time.Now()
	r.Before(true, false)
	if len(d.set) != 1 || d.last().Sub(start) < idle {
		t.Fatalf("waiting, idle: deadlines %v, want one an hour away", d.set)
	}
	r.Before(false, false) // white space read: the same deadline
	if len(d.set) != 1 {
		t.Fatalf("white space moved the deadline: %v", d.set)
	}
	r.Before(false, true)
	if len(d.set) != 2 || d.last().Sub(start) >= idle || d.last().Sub(start) < read {
		t.Fatalf("inside a message: deadlines %v, want the read timeout", d.set)
	}

	// Calls in flight: the next wait has no deadline until they end.
	r.Busy(true)
	r.Before(true, false)
	if !d.last().IsZero() {
		t.Fatalf("waiting while busy: deadline %v, want none", d.last())
	}
	n := len(d.set)
	r.Busy(true)
	if len(d.set) != n {
		t.Fatalf("busy again set a deadline: %v", d.set)
	}
	r.Busy(false)
	if len(d.set) != n+1 || d.last().Sub(start) < idle {
		t.Fatalf("idle again: deadlines %v, want the idle timeout armed", d.set)
	}

	// Shutting down: quiet replaces the idle timeout of a wait under way.
	r.StopWhenQuiet(time.Second)
	if got := time.Until(d.last()); got > time.Second {
		t.Fatalf("StopWhenQuiet: deadline in %v, want within a second", got)
	}
	r.Stop()
	if !d.last().Before(start) {
		t.Fatalf("Stop: deadline %v, want one in the past", d.last())
	}
	r.Linger(time.Minute)
	n = len(d.set)
	r.Before(true, false)
	r.Busy(false)
	r.Stop()
	if len(d.set) != n {
		t.Fatalf("after Linger, deadlines moved: %v", d.set[n:])
	}
}

// TestReadClockNoTimeouts: timeouts <= 0 set no deadline.
func TestReadClockNoTimeouts(t *testing.T) {
	var d deadlines
	r := transport.NewReadClock(d.SetReadDeadline, -1, 0)
	r.Before(true, false)
	r.Before(false, true)
	r.Busy(true)
	r.Busy(false)
	for _, dl := range d.set {
		if !dl.IsZero() {
			t.Fatalf("deadline %v set with no timeouts", dl)
		}
	}
}
