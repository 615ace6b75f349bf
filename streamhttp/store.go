package streamhttp

import (
	"errors"
	"sync"
)

// An EventStore keeps the events of a session's streams, so that a client
// whose connection broke can resume a stream with Last-Event-ID and get
// the events it missed, and only those of that stream. The handler numbers
// each stream's events 1, 2, ... and hands them over in order; an event
// with no message (nil) is the priming event with which a stream begins,
// which gives the client an id before anything else is sent.
//
// An EventStore must be safe for concurrent use by multiple goroutines;
// the handler calls it for one stream at a time, in order.
type EventStore interface {
	// Store keeps msg as event seq of stream in session. The handler
	// owns msg again once Store returns: keep a copy.
	Store(session, stream string, seq uint64, msg []byte) error
	// Replay calls send with each event of stream in session after
	// after, in order, skipping those without a message, and returns
	// send's first error. It returns ErrEventsGone, having called send
	// with nothing, when events after after are not kept (dropped for a
	// bound, or never stored).
	Replay(session, stream string, after uint64, send func(seq uint64, msg []byte) error) error
	// Forget drops the events of stream in session, or all of the
	// session's when stream is "".
	Forget(session, stream string)
}

// ErrEventsGone is the error of EventStore.Replay for events that are not
// kept.
var ErrEventsGone = errors.New("streamhttp: the events after Last-Event-ID are not kept")

// DefaultMaxEvents is the default of Handler.MaxEvents.
const DefaultMaxEvents = 64

// DefaultMaxEventBytes is the default of MemoryStore's bytes per stream.
const DefaultMaxEventBytes = 1 << 20

// DefaultMaxKeptBytes is the default of MemoryStore.MaxTotalBytes: the
// bytes of the events it keeps, over all streams.
const DefaultMaxKeptBytes = 64 << 20

// A MemoryStore is an EventStore in memory: for each stream it keeps its
// newest MaxEvents events, and at most MaxBytes bytes of them (always the
// newest event, whatever its size), and over all streams at most
// MaxTotalBytes: an event that would pass it is not kept, and the events
// its stream kept before it are dropped, so that a resumption from before
// it is refused (400) rather than missing it. The zero value keeps
// DefaultMaxEvents (64) events and DefaultMaxEventBytes (1 MiB) per
// stream, and DefaultMaxKeptBytes (64 MiB) in all. It is the handler's
// store when Handler.EventStore is nil. Every drop is O(1) in the events
// kept. A MemoryStore is safe for concurrent use by multiple goroutines.
type MemoryStore struct {
	MaxEvents     int   // events kept per stream; <= 0 means DefaultMaxEvents
	MaxBytes      int64 // bytes kept per stream; <= 0 means DefaultMaxEventBytes
	MaxTotalBytes int64 // bytes kept over all streams; <= 0 means DefaultMaxKeptBytes

	mu       sync.Mutex // protects the fields below
	sessions map[string]map[string]*memStream
	total    int64 // bytes of the events kept
}

var _ EventStore = (*MemoryStore)(nil)

// memStream is a stream's kept events, oldest first.
type memStream struct {
	first  uint64 // seq of events[0]; the events before it are dropped
	events [][]byte
	bytes  int64
}

func (m *MemoryStore) limits() (int, int64) {
	n, b := m.MaxEvents, m.MaxBytes
	if n <= 0 {
		n = DefaultMaxEvents
	}
	if b <= 0 {
		b = DefaultMaxEventBytes
	}
	return n, b
}

// Store keeps a copy of msg, dropping the stream's oldest events past the
// bounds.
func (m *MemoryStore) Store(session, stream string, seq uint64, msg []byte) error {
	maxN, maxB := m.limits()
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.sessions == nil {
		m.sessions = map[string]map[string]*memStream{}
	}
	ss := m.sessions[session]
	if ss == nil {
		ss = map[string]*memStream{}
		m.sessions[session] = ss
	}
	st := ss[stream]
	if st == nil {
		st = &memStream{first: seq}
		ss[stream] = st
	}
	if next := st.first + uint64(len(st.events)); seq != next {
		// Out of order (the handler did not keep the events between):
		// start over from this event.
		m.total -= st.bytes
		st.first, st.events, st.bytes = seq, nil, 0
	}
	if m.total+int64(len(msg)) > m.maxTotal() {
		// Past the budget of all streams: this one keeps nothing until
		// its next event that fits, from which it starts over.
		m.total -= st.bytes
		delete(ss, stream)
		if len(ss) == 0 {
			delete(m.sessions, session)
		}
		return ErrEventsNotKept
	}
	var c []byte
	if msg != nil {
		c = append(make([]byte, 0, len(msg)), msg...)
	}
	st.events = append(st.events, c)
	st.bytes += int64(len(c))
	m.total += int64(len(c))
	for len(st.events) > 1 && (len(st.events) > maxN || st.bytes > maxB) {
		n := int64(len(st.events[0]))
		st.bytes -= n
		m.total -= n
		st.events[0] = nil
		st.events = st.events[1:]
		st.first++
	}
	return nil
}

func (m *MemoryStore) maxTotal() int64 {
	if m.MaxTotalBytes > 0 {
		return m.MaxTotalBytes
	}
	return DefaultMaxKeptBytes
}

// Bytes returns the bytes of the events kept, over all streams.
func (m *MemoryStore) Bytes() int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.total
}

// ErrEventsNotKept is the error of MemoryStore.Store for an event past
// MaxTotalBytes: it is not kept, nor the events of its stream before it.
var ErrEventsNotKept = errors.New("streamhttp: events over the store's bytes in all are not kept")

// Replay sends the events after after, once none is dropped that the
// client has not seen.
func (m *MemoryStore) Replay(session, stream string, after uint64, send func(seq uint64, msg []byte) error) error {
	m.mu.Lock()
	st := m.sessions[session][stream]
	if st == nil || after+1 < st.first || after+1 > st.first+uint64(len(st.events)) {
		m.mu.Unlock()
		return ErrEventsGone
	}
	// Copy the slice of events (the messages are never changed), so that
	// send runs without the lock.
	start := int(after + 1 - st.first)
	evs := append([][]byte(nil), st.events[start:]...)
	first := st.first + uint64(start)
	m.mu.Unlock()
	for i, msg := range evs {
		if msg == nil {
			continue
		}
		if err := send(first+uint64(i), msg); err != nil {
			return err
		}
	}
	return nil
}

// Forget drops a stream's events, or a session's.
func (m *MemoryStore) Forget(session, stream string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if stream == "" {
		for _, st := range m.sessions[session] {
			m.total -= st.bytes
		}
		delete(m.sessions, session)
		return
	}
	if ss := m.sessions[session]; ss != nil {
		if st := ss[stream]; st != nil {
			m.total -= st.bytes
		}
		delete(ss, stream)
		if len(ss) == 0 {
			delete(m.sessions, session)
		}
	}
}
