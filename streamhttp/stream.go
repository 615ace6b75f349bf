package streamhttp

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/internal/wire"
)

// A sink is the HTTP response of a POST or a GET of a session while it
// carries a stream: the stream writes to it, under the stream's mu, until
// the stream ends, another request takes the stream over, or the client is
// gone; then gone is closed, and the request's handler returns.
type sink struct {
	w            http.ResponseWriter
	json, events bool // the client takes a JSON body, an event stream
	writeTimeout time.Duration
	begun        bool      // the event stream's header is written
	lastSent     time.Time // of the last write
	lastEvent    time.Time // of the last event (not a comment), or when the sink was made
	buf          []byte    // an event being written
	gone         chan struct{}
	once         sync.Once
}

func newSink(w http.ResponseWriter, takesJSON, takesEvents bool, writeTimeout time.Duration) *sink {
	return &sink{w: w, json: takesJSON, events: takesEvents, writeTimeout: writeTimeout, gone: make(chan struct{}), lastEvent: time.Now()}
}

// close lets the request's handler return; nothing writes to w after it.
func (o *sink) close() { o.once.Do(func() { close(o.gone) }) }

// deadline extends the write deadline for one write.
func (o *sink) deadline() {
	if o.writeTimeout > 0 {
		http.NewResponseController(o.w).SetWriteDeadline(time.Now().Add(o.writeTimeout))
	}
}

func (o *sink) flush() error { return http.NewResponseController(o.w).Flush() }

// begin writes the header of the event stream.
func (o *sink) begin() {
	beginStream(o.w)
	o.begun = true
}

// beginStream writes the header of an event stream to w.
func beginStream(w http.ResponseWriter) {
	hd := w.Header()
	hd.Set("Content-Type", "text/event-stream")
	hd.Set("Cache-Control", "no-cache")
	hd.Set("X-Accel-Buffering", "no") // nginx: pass each event on at once
	w.WriteHeader(http.StatusOK)
}

// event writes one event: its id, when it has one, the retry field, when
// retry is positive, and msg as its data, on one line (see appendData).
// A nil msg writes an event with empty data: the priming event.
func (o *sink) event(id string, retry time.Duration, msg []byte) error {
	o.deadline()
	buf := o.buf[:0]
	if id != "" {
		buf = append(append(append(buf, "id: "...), id...), '\n')
	}
	if retry > 0 {
		buf = append(strconv.AppendInt(append(buf, "retry: "...), retry.Milliseconds(), 10), '\n')
	}
	if msg == nil {
		buf = append(buf, "data: \n\n"...)
	} else {
		buf = appendData(append(buf, "event: message\n"...), msg)
	}
	if cap(buf) <= 64<<10 {
		o.buf = buf
	}
	_, err := o.w.Write(buf)
	o.lastSent = time.Now()
	o.lastEvent = o.lastSent
	return err
}

// appendData appends msg as the data line of an event, and the blank line
// that ends it: a line break in a JSON text can only be white space
// between tokens (a string escapes its own), so each becomes a space.
func appendData(buf, msg []byte) []byte {
	buf = append(buf, "data: "...)
	start := len(buf)
	buf = append(buf, msg...)
	for i, c := range buf[start:] {
		if c == '\n' || c == '\r' {
			buf[start+i] = ' '
		}
	}
	return append(buf, "\n\n"...)
}

// A stream is one event stream of a session: a POST's, which carries the
// messages of its call and ends with its answer, or the GET stream, which
// carries the messages that belong to no call. Its events are numbered,
// kept in the handler's EventStore while the client may still resume it,
// and written to the request that carries it, if one does (the POST that
// began it, or the GET that resumed it); with none, they are only kept,
// and a GET with Last-Event-ID gets them.
type stream struct {
	s    *session
	id   string // in the session; the events' ids are id "-" seq
	call string // the key of its call (the request's id); "" for the GET stream
	// orphan: a stream of the session's earlier life, or of another
	// replica, found in the EventStore by a Last-Event-ID; it is not
	// registered in the session.
	orphan bool

	mu     sync.Mutex // protects the fields below; held while writing to out
	out    *sink      // the request that carries it; nil when none does
	seq    uint64     // of its last event
	primed bool       // the client has one of its event ids: it can resume
	done   bool       // it has ended: the answer is written, or the session ended
	failed bool       // the answer is an error
	kept   bool       // the EventStore keeps events of it that follow on from one another up to seq

	// storing is set while the store of one of its events goes on after
	// keepLocked has given up waiting (Handler.StoreTimeout): its next
	// events are not stored until it has returned, so that the store
	// gets them in order.
	storing atomic.Bool
}

// eventID returns the id of the stream's event seq.
func (st *stream) eventID(seq uint64) string {
	return st.id + "-" + strconv.FormatUint(seq, 10)
}

// send sends msg on the stream: the answer (final), or a message before
// it. When nothing came before the answer and the client takes JSON, the
// answer is the POST's body; otherwise the stream becomes an event
// stream, its first event the priming event (an id and no data), and each
// message an event, kept for resumption. A message the client cannot take
// (a notification to a client that takes no event stream, or one sent
// while no request carries the stream and the client has none of its ids)
// is dropped. The answer ends the stream.
func (st *stream) send(msg []byte, final bool) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.done {
		return errDone
	}
	o := st.out
	if o != nil && !o.begun {
		if final && (o.json || !o.events) {
			// The session forgets the stream before the client has the
			// answer, so that the client's next request finds it gone.
			st.s.ended(st, true)
			o.deadline()
			answer(o.w, st.s.h.callStatus(o.w, msg), msg)
			st.finish(msg, true)
			return nil
		}
		if !o.events {
			return nil // a notification the client has no way to take
		}
		st.beginLocked(o)
	}
	if !st.primed {
		if final {
			st.finish(msg, false)
		}
		return nil // no one can ever get it
	}
	st.seq++
	// Every event is kept before it is written, for the client whose
	// connection breaks: an event written to a connection that has broken
	// is lost as surely as one never written, and the server cannot tell
	// them apart (an event stream has no acknowledgements; the client's
	// Last-Event-ID is the only one). What a long GET stream keeps is
	// bounded by the store (the newest events of each stream, and bytes
	// over all); a stream whose events are not all kept starts over in the
	// store at the next one kept, so that a Last-Event-ID before the gap
	// is answered 400.
	st.keepLocked(msg)
	delivered := false
	if o != nil && st.out == o {
		err := o.event(st.eventID(st.seq), 0, msg)
		if err == nil {
			err = o.flush()
		}
		if err != nil {
			st.detachLocked() // the client may resume; the method goes on
		} else {
			delivered = true
		}
	}
	if final {
		st.finish(msg, delivered)
	}
	return nil
}

// keepLocked keeps msg, event st.seq, in the EventStore, within the
// handler's StoreTimeout; st.mu is held. An event not kept leaves a gap,
// from which the store starts the stream over: a resumption from before
// it is refused.
func (st *stream) keepLocked(msg []byte) {
	h := st.s.h
	if !st.storing.CompareAndSwap(false, true) {
		st.kept = false // an earlier event is being stored still
		h.logf(context.Background(), "event store", ErrStoreUnavailable)
		return
	}
	err := h.keep(st.s.id, st.id, st.seq, msg, func() { st.storing.Store(false) })
	st.kept = err == nil
	if err != nil {
		h.logf(context.Background(), "event store", err)
	}
}

// beginLocked begins the event stream on o with the priming event; st.mu
// is held.
func (st *stream) beginLocked(o *sink) error {
	o.begin()
	st.seq++
	st.keepLocked(nil)
	st.primed = true
	err := o.event(st.eventID(st.seq), st.s.h.retry(), nil)
	if err == nil {
		err = o.flush()
	}
	if err != nil {
		st.detachLocked()
	}
	return err
}

// keepOpen writes a comment to o, beginning its event stream, when it
// carries the stream and nothing was sent on it for keepAlive.
func (st *stream) keepOpen(o *sink, keepAlive time.Duration) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.done || st.out != o || !o.events {
		return nil
	}
	if !o.begun {
		return st.beginLocked(o)
	}
	if time.Since(o.lastSent) < keepAlive {
		return nil
	}
	o.deadline()
	_, err := io.WriteString(o.w, ": keep-alive\n\n")
	if err == nil {
		err = o.flush()
	}
	o.lastSent = time.Now()
	if err != nil {
		st.detachLocked()
	}
	return err
}

// finish ends the stream with its answer; st.mu is held.
func (st *stream) finish(msg []byte, delivered bool) {
	st.done = true
	var r wire.Request
	if kind, err := (wire.Scanner{}).Classify(msg, &r); err == nil && kind == wire.MsgResponse && r.Error != nil {
		st.failed = true
	}
	st.detachLocked()
	st.s.ended(st, delivered)
}

// detachLocked lets the request that carries the stream return; st.mu is
// held.
func (st *stream) detachLocked() {
	if st.out != nil {
		st.out.close()
		st.out = nil
	}
}

// attach makes o carry the stream from now on, with the events after
// after, unless after is 0 (a new stream). The request that carried it
// before returns. It reports false, with nothing written, when the events
// after after are not kept; and ends o at once, after the replay, when the
// stream has ended.
func (st *stream) attach(o *sink, after uint64) (bool, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if after == 0 {
		st.out = o
		return true, nil
	}
	s := st.s
	begun := false
	var err error
	switch {
	case after == st.seq && !st.orphan:
		// The client has every event: nothing to replay.
	case after > st.seq && !st.orphan:
		return false, nil
	default:
		err = s.h.replay(s.id, st.id, after, func(seq uint64, msg []byte) error {
			if !begun {
				o.begin()
				begun = true
			}
			return o.event(st.eventID(seq), 0, msg)
		})
		if err == ErrEventsGone {
			return false, nil
		}
		if !begun && errors.Is(err, ErrStoreUnavailable) {
			return false, err // nothing written: the client may retry
		}
	}
	if !begun && err == nil {
		o.begin()
	}
	if err == nil {
		err = o.flush()
	}
	if err != nil {
		return true, err
	}
	st.detachLocked()
	if st.done {
		o.close()
		s.ended(st, true)
		return true, nil
	}
	st.out = o
	return true, nil
}

// detach lets the request of o return, if it still carries the stream:
// its client is gone. The stream goes on, to be resumed.
func (st *stream) detach(o *sink) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.out == o {
		st.detachLocked()
	}
}

// end ends the stream without an answer (the session ended).
func (st *stream) end() {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.done = true
	st.detachLocked()
}

// closeConn ends the connection that carries the stream, beginning the
// event stream first, so that the client has an id to resume it with
// (see CloseStream). It reports whether the stream goes on, to be
// resumed.
func (st *stream) closeConn() bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.done {
		return false
	}
	if o := st.out; o != nil {
		if !o.events {
			return false // the client cannot resume a JSON answer
		}
		if !o.begun && st.beginLocked(o) != nil {
			return st.primed
		}
		st.detachLocked()
	}
	return st.primed
}

// CloseStream ends the HTTP response that carries the event stream of the
// call of ctx, a request of a session, without ending the stream, so that
// a server does not hold a long call's connection open: the stream's
// events go on being kept, and the client resumes it with a GET that
// names the last event it got (Last-Event-ID), after waiting for the
// stream's retry field (Handler.Retry). The stream is begun first when
// nothing was sent on it yet, with its priming event. It reports whether
// the stream can be resumed: false when ctx is not that of a call of a
// session, when its answer is written, or when the client took only a
// JSON answer. Under MCP 2025-11-25, the call goes on (a disconnect is not
// a cancellation).
func CloseStream(ctx context.Context) bool {
	s, _ := ctx.Value(sessionKey{}).(*session)
	c := jsonrpc.CallOf(ctx)
	if s == nil || c == nil || c.IsNotification() {
		return false
	}
	st := s.callStream(c.ID())
	return st != nil && st.closeConn()
}

// sinceEvent returns how long ago the last event was written to o.
func (st *stream) sinceEvent(o *sink) time.Duration {
	st.mu.Lock()
	defer st.mu.Unlock()
	return time.Since(o.lastEvent)
}

// carried reports whether a request carries the stream.
func (st *stream) carried() bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.out != nil && !st.done
}

// start makes o carry the new GET stream, which it begins at once with
// its priming event, and reports whether o can go on.
func (st *stream) start(o *sink) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.done {
		return false
	}
	st.out = o
	return st.beginLocked(o) == nil
}

// answeredError reports whether the stream ended with an error answer.
func (st *stream) answeredError() bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.failed
}
