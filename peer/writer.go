package peer

import "context"

// The writer. One goroutine at a time writes to the transport: the one
// that holds the writer (out.writing, under mu). A goroutine that may
// block takes it when it is free and writes its message itself: a call's
// own request, the answer of a call that ran on a goroutine of its own,
// the pump of a one-way Conn. Otherwise the message waits in the outbox
// for the holder, which writes what it finds there before it lets go
// (drain), or for a writer goroutine started to write it: the read loop of
// a two-way Conn, the pump of a two-way Conn, Push and Publish never write
// themselves, since a read loop blocked writing while its peer's is
// blocked writing too would never read again.
//
// The read loop of a one-way Conn keeps the writer from its first answer
// to the next read that may block (sendQueued), so that a burst of inline
// answers is written without taking mu once; it writes what others
// queued meanwhile between its answers (queued tells it, without mu).
//
// A carrier whose input is all in hand (Traits.InputInHand: one HTTP
// request's body) has no peer to wait for while it writes: its read loop
// and pump write their answers themselves, two-way or not.
//
// A carrier that sends each message in an exchange of its own (an HTTP
// request, Traits.Exchanges) is written by every goroutine that sends at
// once: a message that waits for its answer holds up no other. Such a
// sender first waits for what the outbox held when it came to be written
// (inOrder): the notifications a call pushed before its answer are
// delivered before it.
//
// A goroutine that finds the writer held waits while the outbox holds
// more than MaxQueued bytes (room), so that what a peer does not read
// holds back the goroutines that produce it, as the holder of the writer
// is held back by its own write: the answers of calls that ran on
// goroutines of their own, the notifications they send (a sequence's
// partial results), their calls, the answers of held pulls. The read
// loop never waits for room (it queues, or writes itself), nor does a
// method that runs on it or on the pump (their contexts carry the inline
// mark), nor anyone while the read loop holds the writer: it drains the
// outbox only between its own answers.

// outbox holds the messages waiting for the writer; guarded by c.mu.
type outbox struct {
	buf     []byte            // the messages, back to back
	ends    []int             // where each ends in buf
	ctxs    []context.Context // the context of each, when one is not the Conn's; else nil
	spare   []byte
	spends  []int
	writing bool   // someone holds the writer
	reader  bool   // the holder is the read loop of a one-way Conn (readerWrites)
	pushes  int    // notifications of Push and Publish in buf (MaxPush)
	pushB   int    // their bytes (MaxPushBytes)
	added   uint64 // messages ever queued
	written uint64 // of them, those written (or whose Write has failed)
}

// addLocked appends msg to the outbox; c.mu is held.
func (c *Conn) addLocked(msg []byte) {
	o := &c.out
	o.added++
	o.buf = append(o.buf, msg...)
	o.ends = append(o.ends, len(o.buf))
	if o.ctxs != nil {
		o.ctxs = append(o.ctxs, nil)
	}
	c.queued.Store(true)
}

// unaddLocked takes back the message addLocked appended last, which no
// one has seen since (c.mu held all along); c.mu is held.
func (c *Conn) unaddLocked() {
	o := &c.out
	n := len(o.ends)
	start := 0
	if n > 1 {
		start = o.ends[n-2]
	}
	o.buf, o.ends = o.buf[:start], o.ends[:n-1]
	if o.ctxs != nil {
		o.ctxs = o.ctxs[:n-1]
	}
	o.added--
	c.queued.Store(n > 1)
}

// addCtxLocked appends msg, to be written under ctx (transport.Conn.Write);
// c.mu is held.
func (c *Conn) addCtxLocked(ctx context.Context, msg []byte) {
	o := &c.out
	if o.ctxs == nil {
		o.ctxs = make([]context.Context, len(o.ends), len(o.ends)+1)
	}
	o.ctxs = append(o.ctxs, ctx)
	o.added++
	o.buf = append(o.buf, msg...)
	o.ends = append(o.ends, len(o.buf))
	c.queued.Store(true)
}

// startWriterLocked starts a writer goroutine for the outbox, unless
// someone holds the writer; c.mu is held.
func (c *Conn) startWriterLocked() {
	if !c.out.writing {
		c.out.writing = true
		go c.drain()
	}
}

// drain writes the outbox until it is empty, flushes the transport, and
// lets go of the writer, which the caller holds. It returns the error of
// the last flush.
func (c *Conn) drain() error {
	o := &c.out
	flushed := false
	var err error
	c.mu.Lock()
	o.reader = false // whoever drains makes progress: room is worth waiting for
	for {
		if len(o.ends) == 0 {
			if flushed {
				o.writing = false
				c.wakeLocked()
				c.mu.Unlock()
				return err
			}
			c.mu.Unlock()
			err = c.t.Flush()
			flushed = true
			c.mu.Lock()
			continue
		}
		buf, ends, ctxs := c.takeLocked()
		c.mu.Unlock()
		c.writeAll(buf, ends, ctxs)
		flushed = false
		c.mu.Lock()
		c.spareLocked(buf, ends)
		c.wroteLocked(len(ends))
	}
}

// maxSpare is the largest outbox buffer kept for the next messages once
// written: one that grew past it, for a burst or a peer that read
// slowly, is dropped, so that a connection holds it only while it is
// full.
const maxSpare = 64 << 10

// spareLocked keeps buf and ends, written, for the next messages, unless
// buf grew past maxSpare; c.mu is held.
func (c *Conn) spareLocked(buf []byte, ends []int) {
	if cap(buf) > maxSpare {
		buf, ends = nil, nil
	}
	c.out.spare, c.out.spends = buf[:0], ends[:0]
}

// wroteLocked counts n messages of the outbox written, and wakes those
// who wait for them (inOrder); c.mu is held.
func (c *Conn) wroteLocked(n int) {
	c.out.written += uint64(n)
	c.wakeLocked()
}

// inOrder waits, on a carrier that exchanges, until the messages queued
// in the outbox so far are written: a message a sender writes at once
// must not overtake those sent before it, such as the notifications a
// call pushed (Push, Topic.Publish) before its answer, which a writer
// goroutine writes. A carrier without exchanges has its writes in the
// order they were queued already.
func (c *Conn) inOrder() {
	if !c.queued.Load() {
		return
	}
	c.mu.Lock()
	o := &c.out
	for mark := o.added; o.written < mark; {
		c.startWriterLocked()
		c.waitLocked()
	}
	c.mu.Unlock()
}

// takeLocked hands what waits in the outbox to the writer, leaving the
// outbox the spare buffers; c.mu is held.
func (c *Conn) takeLocked() (buf []byte, ends []int, ctxs []context.Context) {
	o := &c.out
	buf, ends, ctxs = o.buf, o.ends, o.ctxs
	o.buf, o.ends, o.ctxs = o.spare[:0], o.spends[:0], nil
	o.pushes, o.pushB = 0, 0
	c.queued.Store(false)
	c.wakeLocked()
	return buf, ends, ctxs
}

// writeAll writes the messages of buf that end at ends, each under its
// context of ctxs (nil: the Conn's).
func (c *Conn) writeAll(buf []byte, ends []int, ctxs []context.Context) {
	start := 0
	for i, end := range ends {
		ctx := c.ctx
		if ctxs != nil && ctxs[i] != nil {
			ctx = ctxs[i]
		}
		c.t.Write(ctx, buf[start:end])
		start = end
	}
}

// writeNow writes msg from a goroutine that may block: itself, when the
// writer is free, behind what waits in the outbox, or through the outbox
// when someone else holds the writer, to be written whatever becomes of
// ctx. Either way nothing queued before it goes after it. It returns the
// error of a write it made itself (of the last flush, when it wrote what
// waited too). A message of the Conn's own (ctx not the Conn's) waits for
// room in the outbox first (roomLocked), unless ctx is that of a method
// that runs on the read loop or the pump.
func (c *Conn) writeNow(ctx context.Context, msg []byte) error {
	return c.write(ctx, msg, ctx != c.ctx && !c.inlineCtx(ctx))
}

// answer sends the answer of a call that ran on a goroutine of its own,
// from that goroutine, or of a held call (Message.Hold): as writeNow,
// held back while the outbox is full (roomLocked).
func (c *Conn) answer(msg []byte) { c.write(c.ctx, msg, true) }

// write is writeNow; hold says to wait for room in the outbox, and ctx's
// end stops the wait (the message is not sent then).
func (c *Conn) write(ctx context.Context, msg []byte, hold bool) error {
	if len(msg) == 0 {
		return nil
	}
	if c.exchanges {
		c.inOrder()
		if err := c.t.Write(ctx, msg); err != nil {
			return err
		}
		return c.t.Flush()
	}
	c.mu.Lock()
	if hold && c.out.writing {
		if err := c.roomLocked(ctx, len(msg)); err != nil {
			c.mu.Unlock()
			return err
		}
	}
	writing, behind := c.out.writing, len(c.out.ends) > 0
	if writing || behind {
		// Behind what waits in the outbox (the read loop's answers to
		// the calls before this one): as good as sent to the caller, who
		// may end ctx as soon as this returns, so its values go with it,
		// its end does not (a transport may skip a Write whose ctx ended).
		if ctx == c.ctx {
			c.addLocked(msg)
		} else {
			c.addCtxLocked(context.WithoutCancel(ctx), msg)
		}
	}
	if writing { // its holder writes it
		c.mu.Unlock()
		return nil
	}
	c.out.writing = true
	c.mu.Unlock()
	var err error
	if !behind {
		err = c.t.Write(ctx, msg)
	}
	if ferr := c.drain(); err == nil {
		err = ferr
	}
	return err
}

// roomLocked waits, while someone else holds the writer, for the outbox
// to have room for n more bytes: while it holds more than MaxQueued bytes
// and the holder is not the read loop, which drains it only between its
// own answers; a message larger than MaxQueued waits for an empty outbox.
// It returns ctx's error when ctx ends first. c.mu is held.
func (c *Conn) roomLocked(ctx context.Context, n int) error {
	o := &c.out
	for o.writing && !o.reader && len(o.buf) > 0 && len(o.buf)+n > c.lim.MaxQueued {
		if err := c.waitLockedCtx(ctx); err != nil {
			return err
		}
	}
	return nil
}

// inlineCtx reports whether ctx is that of a method running on the read
// loop or the pump, which must not wait for the writer (room).
func (c *Conn) inlineCtx(ctx context.Context) bool {
	v, _ := ctx.Value(inlineKey{}).(*Conn)
	return v == c
}

// putReader sends an answer of the read loop (one it made inline, or the
// transport's own, Answer). A one-way read loop writes it itself, taking
// the writer if it does not hold it; a two-way one queues it, and waits
// while more than MaxQueued bytes wait to be written.
func (c *Conn) putReader(resp []byte) {
	if len(resp) == 0 {
		return
	}
	if c.writesApart() {
		c.mu.Lock()
		if c.readerWrites {
			// It became two-way while the read loop held the writer: a
			// writer goroutine takes over.
			c.readerWrites = false
			c.addLocked(resp)
			go c.drain()
			c.mu.Unlock()
			return
		}
		c.putLocked(resp)
		c.mu.Unlock()
		return
	}
	if !c.readerWrites {
		c.mu.Lock()
		if c.out.writing {
			c.addLocked(resp) // its holder writes it
			c.mu.Unlock()
			return
		}
		c.out.writing = true
		c.out.reader = true
		c.readerWrites = true
		c.mu.Unlock()
	}
	if c.queued.Load() {
		c.writeQueued()
	}
	c.t.Write(c.ctx, resp)
}

// writeQueued writes what waits in the outbox, for the read loop, which
// holds the writer and keeps it.
func (c *Conn) writeQueued() {
	c.mu.Lock()
	buf, ends, ctxs := c.takeLocked()
	c.mu.Unlock()
	c.writeAll(buf, ends, ctxs)
	c.mu.Lock()
	c.spareLocked(buf, ends)
	c.wroteLocked(len(ends))
	c.mu.Unlock()
}

// putLocked queues an answer of the read loop or the pump of a two-way
// Conn, for a writer goroutine (sendQueued, kick), waiting while more
// than MaxQueued bytes wait; c.mu is held.
func (c *Conn) putLocked(resp []byte) {
	o := &c.out
	for len(o.buf) > 0 && len(o.buf)+len(resp) > c.lim.MaxQueued {
		c.startWriterLocked()
		c.waitLocked()
	}
	c.addLocked(resp)
}

// putPump sends an answer of the pump: a one-way pump writes it (it may
// block), a two-way one queues it.
func (c *Conn) putPump(resp []byte) {
	if len(resp) == 0 {
		return
	}
	if !c.writesApart() {
		c.writeNow(c.ctx, resp)
		return
	}
	c.mu.Lock()
	c.putLocked(resp)
	c.mu.Unlock()
}

// putOther queues resp, from a goroutine that must not block, for the
// dispatcher to send (it calls sendQueued or kick after each message).
func (c *Conn) putOther(resp []byte) {
	if len(resp) == 0 {
		return
	}
	c.mu.Lock()
	c.addLocked(resp)
	c.mu.Unlock()
}

// sendQueued sends what the read loop answered and what waits in the
// outbox, before the read loop reads what may block: a one-way read loop
// writes it and flushes, and lets go of the writer; a two-way one makes
// sure a writer goroutine runs.
func (c *Conn) sendQueued() error {
	if c.writesApart() {
		if c.readerWrites || c.queued.Load() {
			c.mu.Lock()
			if c.readerWrites {
				c.readerWrites = false
				go c.drain()
			} else if len(c.out.ends) > 0 {
				c.startWriterLocked()
			}
			c.mu.Unlock()
		}
		return nil
	}
	if !c.readerWrites {
		if !c.queued.Load() {
			return nil
		}
		c.mu.Lock()
		if c.out.writing || len(c.out.ends) == 0 {
			c.mu.Unlock() // its holder writes it
			return nil
		}
		c.out.writing = true
		c.mu.Unlock()
	}
	c.readerWrites = false
	return c.drain()
}

// kick sends what waits in the outbox, for the pump after each message: a
// one-way pump writes it itself when nobody holds the writer, a two-way
// one starts a writer goroutine.
func (c *Conn) kick() {
	if !c.queued.Load() {
		return
	}
	c.mu.Lock()
	if c.out.writing || len(c.out.ends) == 0 {
		c.mu.Unlock()
		return
	}
	if c.writesApart() {
		c.startWriterLocked()
		c.mu.Unlock()
		return
	}
	c.out.writing = true
	c.mu.Unlock()
	c.drain()
}

// writesApart reports whether the read loop and the pump leave their
// writes to a writer goroutine: once the Conn is two-way, unless its
// transport's input is all in hand.
func (c *Conn) writesApart() bool { return c.twoWay.Load() && !c.inHand }

// waitLocked waits for the next change of what c.mu guards (wakeLocked),
// by channel: it releases c.mu while it waits and takes it again. The
// channel is made only when someone waits, so that changes nobody waits
// for cost nothing. c.mu is held.
func (c *Conn) waitLocked() {
	if c.changed == nil {
		c.changed = make(chan struct{})
	}
	ch := c.changed
	c.mu.Unlock()
	<-ch
	c.mu.Lock()
}

// waitLockedCtx is waitLocked that returns ctx's error when ctx ends
// first. c.mu is held.
func (c *Conn) waitLockedCtx(ctx context.Context) error {
	if c.changed == nil {
		c.changed = make(chan struct{})
	}
	ch := c.changed
	c.mu.Unlock()
	var err error
	select {
	case <-ch:
	case <-ctx.Done():
		err = ctx.Err()
	}
	c.mu.Lock()
	return err
}

// wakeLocked wakes those who wait for a change; c.mu is held.
func (c *Conn) wakeLocked() {
	if c.changed != nil {
		close(c.changed)
		c.changed = nil
	}
}
