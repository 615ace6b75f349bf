package transport

import (
	"sync"
	"time"
)

// A ReadClock sets the read deadlines of a Conn whose reads take them (a
// net.Conn's, or a timer of the Conn's own), from what the Conn knows of
// its reading and what the connection running on it knows of its calls:
//
//   - while a read waits for a message to begin, the idle timeout, which
//     starts only once no call is in flight (the connection says when,
//     with Busy), and which white space read meanwhile does not move;
//   - once a message has begun, the read timeout, from the first read that
//     found it begun, so that a peer that stalls inside a message cannot
//     hold the Conn's buffers for ever;
//   - when the host stops reading (Stop, StopWhenQuiet) or drains the
//     input of a connection it closes (Linger), the deadlines those set.
//
// The Conn calls Before, before each read of its input that may block; the
// connection calls Busy; the host calls Stop, StopWhenQuiet and Linger. A
// ReadClock is safe for concurrent use by multiple goroutines. It calls
// set under a mutex of its own: set must not block, as a net.Conn's
// SetReadDeadline does not.
type ReadClock struct {
	set  func(time.Time) error // the Conn's; an error is left to the read to report
	msg  time.Duration         // the read timeout; 0: none
	mu   sync.Mutex            // protects the fields below
	idle time.Duration         // the idle timeout (StopWhenQuiet changes it); 0: none

	busy    bool      // calls are in flight (Busy)
	waiting bool      // the last read waits for a message to begin
	armable bool      // a read waits for a message with no idle deadline, because calls are in flight
	idleAt  time.Time // when the wait for the next message ends, once set
	msgAt   time.Time // when the message being read must be complete, once set
	last    time.Time // the deadline last set
	stopped bool      // Stop set a deadline in the past: no other is set
	linger  bool      // Linger set the last deadline: no other is set
}

// NewReadClock returns the clock of a Conn whose read deadline set sets:
// idle is its idle timeout and read its read timeout, <= 0 meaning none.
func NewReadClock(set func(time.Time) error, idle, read time.Duration) *ReadClock {
	return &ReadClock{set: set, idle: max(idle, 0), msg: max(read, 0)}
}

// Before runs before each read of the Conn's input that may block, on the
// goroutine that reads. fresh says that the read is the first for a new
// message; begun, that the message has begun (a byte of it other than the
// white space allowed between messages has been read).
func (r *ReadClock) Before(fresh, begun bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stopped || r.linger {
		return
	}
	r.armable = false
	r.waiting = !begun
	if fresh {
		r.idleAt, r.msgAt = time.Time{}, time.Time{}
	}
	var d time.Time
	switch {
	case !begun:
		switch {
		case r.idle <= 0:
		case !r.idleAt.IsZero():
			d = r.idleAt
		case r.busy:
			r.armable = true // Busy(false) arms it
		default:
			r.idleAt = time.Now().Add(r.idle)
			d = r.idleAt
		}
	case r.msg > 0:
		if r.msgAt.IsZero() {
			r.msgAt = time.Now().Add(r.msg)
		}
		d = r.msgAt
	}
	r.setLocked(d)
}

// Busy tells the clock whether the connection has calls in flight: while
// it has, a read that waits for a message does not time out; once it has
// none, the idle timeout starts.
func (r *ReadClock) Busy(busy bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.busy = busy
	if busy || !r.armable || r.stopped || r.linger {
		return
	}
	r.armable = false
	r.idleAt = time.Now().Add(r.idle)
	r.setLocked(r.idleAt)
}

// Stop interrupts a read that waits for input, now and from now on, with a
// deadline in the past, so that the Conn's Read returns what it holds and
// then fails: how a host stops reading a connection it shuts down. After
// Linger it does nothing.
func (r *ReadClock) Stop() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.linger {
		r.stopped = true
		r.setLocked(time.Unix(1, 0))
	}
}

// StopWhenQuiet makes the read that waits for the next message end once
// nothing has been in flight for quiet, in place of the idle timeout: how
// a host that goes on reading while it shuts down (it answers what it
// reads with the shutdown error) ends a connection whose peer has stopped
// sending. A read that waits now, with nothing in flight, ends quiet from
// now.
func (r *ReadClock) StopWhenQuiet(quiet time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.idle = quiet
	if r.stopped || r.linger || !r.waiting {
		return
	}
	if r.busy {
		r.armable = true
		return
	}
	r.armable = false
	r.idleAt = time.Now().Add(quiet)
	r.setLocked(r.idleAt)
}

// Linger sets the read deadline d from now, for a host that drains the
// input of a connection it closes while its peer may still be sending; no
// other deadline is set after it.
func (r *ReadClock) Linger(d time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.linger = true
	r.setLocked(time.Now().Add(d))
}

// setLocked sets the deadline d when it changes, so that reads that go on
// under one deadline (a message arriving in pieces) do not reset it; r.mu
// is held.
func (r *ReadClock) setLocked(d time.Time) {
	if d.Equal(r.last) {
		return
	}
	r.last = d
	r.set(d)
}
