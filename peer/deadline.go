package peer

import "time"

// The read clock. A transport whose reads take deadlines (a method
// SetReadDeadline(time.Time) error, as a net.Conn's) has them set by the
// Conn, under its one mutex, from what only the Conn knows together:
// whether calls are in flight (the idle timeout waits for them), whether
// the host stops reading, and whether the connection is lingering. The
// transport tells it where its reading is (BeforeRead). The Conn sets the
// deadline from under its mutex: SetReadDeadline must not block, as a
// net.Conn's and an os.File's do not.

// readClock is the Conn's timing of the transport's reads; guarded by c.mu
// but for dl and msg, which are set by New.
type readClock struct {
	dl      deadliner     // nil: the transport's reads take no deadlines
	idle    time.Duration // Limits.IdleTimeout with its default; 0: none
	msg     time.Duration // Limits.ReadTimeout with its default; 0: none
	waiting bool          // the last read waits for a message to begin
	armable bool          // a read waits for a message with no idle deadline, because calls are in flight
	idleAt  time.Time     // when the wait for the next message ends, once set
	msgAt   time.Time     // when the message being read must be complete, once set
	set     time.Time     // the deadline last set
	stopped bool          // StopReading set a deadline in the past: no other is set
	linger  bool          // Linger set the last deadline: no other is set
}

type deadliner interface{ SetReadDeadline(time.Time) error }

// BeforeRead runs in the transport's Read before each read of its input
// that may block: it sends what the Conn has answered (SendQueued) and,
// for a transport whose reads take deadlines, sets the read deadline.
// fresh says that the read is the first for a new message; begun, that
// the message has begun (a byte of it other than white space between
// messages has been read). While the read waits for a message to begin,
// the deadline is Options.IdleTimeout's, which starts only when nothing
// is in flight, and which white space read meanwhile does not move;
// inside a message, Options.ReadTimeout's, from the first read that found
// it begun. Only the read loop calls it, from within Read.
func (c *Conn) BeforeRead(fresh, begun bool) {
	c.sendQueued()
	r := &c.clock
	if r.dl == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
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
		case c.busyLocked():
			r.armable = true // update arms it when the Conn becomes idle
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
	c.setDeadlineLocked(d)
}

// armIdleLocked starts the idle timeout of a read that waits for a new
// message, when the Conn has become idle; c.mu is held.
func (c *Conn) armIdleLocked() {
	r := &c.clock
	if !r.armable || r.stopped || r.linger {
		return
	}
	r.armable = false
	r.idleAt = time.Now().Add(r.idle)
	c.setDeadlineLocked(r.idleAt)
}

// setDeadlineLocked sets the read deadline d, when it changes, so that
// reads that go on under one deadline (a message arriving in pieces) do
// not reset it; c.mu is held. An error (net.Pipe's after the peer closed)
// is left to the read to report.
func (c *Conn) setDeadlineLocked(d time.Time) {
	r := &c.clock
	if d.Equal(r.set) {
		return
	}
	r.set = d
	r.dl.SetReadDeadline(d)
}

// StopReading interrupts a read of the transport that waits for input,
// now and from now on, with a read deadline in the past, so that its Read
// returns what it holds and then fails: how a host stops reading a
// connection it shuts down (with Shutdown). It reports false when the
// transport's reads take no deadlines, for the host to interrupt them its
// own way. After Linger it does nothing.
func (c *Conn) StopReading() bool {
	r := &c.clock
	if r.dl == nil {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !r.linger {
		r.stopped = true
		c.setDeadlineLocked(time.Unix(1, 0))
	}
	return true
}

// StopReadingWhenQuiet makes the read that waits for the next message
// end once nothing has been in flight for quiet, in place of the idle
// timeout: how a host that goes on reading while it shuts down (it
// answers what it reads with the shutdown error) ends a connection whose
// peer has stopped sending. A read that waits now, with nothing in flight,
// ends quiet from now. It reports false when the transport's reads take no
// deadlines.
func (c *Conn) StopReadingWhenQuiet(quiet time.Duration) bool {
	r := &c.clock
	if r.dl == nil {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	r.idle = quiet
	if r.stopped || r.linger || !r.waiting {
		return true
	}
	if c.busyLocked() {
		r.armable = true
		return true
	}
	r.armable = false
	r.idleAt = time.Now().Add(quiet)
	c.setDeadlineLocked(r.idleAt)
	return true
}

// Linger sets the read deadline d from now, after the read loop has ended,
// for a host that drains the input of a connection it closes while its
// peer may still be sending; no other deadline is set after it. It reports
// false when the transport's reads take no deadlines.
func (c *Conn) Linger(d time.Duration) bool {
	r := &c.clock
	if r.dl == nil {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	r.linger = true
	c.setDeadlineLocked(time.Now().Add(d))
	return true
}
