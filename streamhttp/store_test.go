package streamhttp_test

import (
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/jsonrpc-go/jsonrpc/streamhttp"
)

// replay returns what Replay sends after after, as "seq=msg" items.
func replay(t *testing.T, s streamhttp.EventStore, session, stream string, after uint64) ([]string, error) {
	t.Helper()
	var got []string
	err := s.Replay(session, stream, after, func(seq uint64, msg []byte) error {
		got = append(got, fmt.Sprintf("%d=%s", seq, msg))
		return nil
	})
	return got, err
}

// TestMemoryStore: a stream's events after a seq, in order, priming events
// (nil) skipped; the oldest dropped past MaxEvents or MaxBytes, always
// keeping the newest; events after one dropped, or after one never
// stored, are ErrEventsGone; streams and sessions apart; Forget.
func TestMemoryStore(t *testing.T) {
	m := &streamhttp.MemoryStore{MaxEvents: 3, MaxBytes: 10}
	m.Store("s", "1", 1, nil)
	m.Store("s", "1", 2, []byte("a"))
	msg := []byte("b")
	m.Store("s", "1", 3, msg)
	msg[0] = 'x' // the store kept a copy
	m.Store("s", "2", 1, []byte("other"))
	m.Store("t", "1", 1, []byte("session t"))
	for _, tc := range []struct {
		after uint64
		want  string
		err   error
	}{
		{1, "2=a 3=b", nil},
		{0, "2=a 3=b", nil},
		{2, "3=b", nil},
		{3, "", nil},
		{4, "", streamhttp.ErrEventsGone},
	} {
		got, err := replay(t, m, "s", "1", tc.after)
		if strings.Join(got, " ") != tc.want || !errors.Is(err, tc.err) {
			t.Errorf("after %d: %v %v, want %q %v", tc.after, got, err, tc.want, tc.err)
		}
	}
	m.Store("s", "1", 4, []byte("c"))
	if got, err := replay(t, m, "s", "1", 0); err != streamhttp.ErrEventsGone {
		t.Errorf("after 0, with event 1 dropped for MaxEvents: %v %v, want ErrEventsGone", got, err)
	}
	if got, _ := replay(t, m, "s", "1", 1); strings.Join(got, " ") != "2=a 3=b 4=c" {
		t.Errorf("after 1: %v", got)
	}
	m.Store("s", "1", 5, []byte("0123456789ab")) // alone over MaxBytes: kept, alone
	if got, _ := replay(t, m, "s", "1", 4); strings.Join(got, " ") != "5=0123456789ab" {
		t.Errorf("a large event: %v", got)
	}
	if _, err := replay(t, m, "s", "1", 3); err != streamhttp.ErrEventsGone {
		t.Errorf("after 3, with 4 dropped for MaxBytes: %v, want ErrEventsGone", err)
	}
	if got, _ := replay(t, m, "s", "2", 0); strings.Join(got, " ") != "1=other" {
		t.Errorf("stream 2: %v", got)
	}
	m.Forget("s", "2")
	if _, err := replay(t, m, "s", "2", 0); err != streamhttp.ErrEventsGone {
		t.Errorf("a forgotten stream: %v", err)
	}
	m.Forget("t", "")
	if _, err := replay(t, m, "t", "1", 0); err != streamhttp.ErrEventsGone {
		t.Errorf("a forgotten session: %v", err)
	}
	if got, _ := replay(t, m, "s", "1", 4); len(got) != 1 {
		t.Errorf("another session's Forget dropped s: %v", got)
	}
}

// countingStore is a MemoryStore that counts what it is given.
type countingStore struct {
	streamhttp.MemoryStore
	stored atomic.Int64
}

func (c *countingStore) Store(session, stream string, seq uint64, msg []byte) error {
	c.stored.Add(1)
	return c.MemoryStore.Store(session, stream, seq, msg)
}

// TestEventStoreField: the handler keeps its sessions' events in the
// EventStore it is given.
func TestEventStoreField(t *testing.T) {
	srv, _ := newSessionServer(t)
	store := &countingStore{}
	url := sessionServer(t, &streamhttp.Handler{Server: srv, EventStore: store})
	id := initialize(t, url)
	resp := post(t, url, both, `{"jsonrpc":"2.0","method":"tell","params":{"text":"hi"},"id":1}`, "Mcp-Session-Id", id)
	s := newSSE(t, resp)
	var n int
	for _, ok := s.next(); ok; _, ok = s.next() {
		n++
	}
	if n != 3 {
		t.Fatalf("%d events, want the priming event, the notification and the answer", n)
	}
	if n := store.stored.Load(); n != 3 {
		t.Errorf("the store was given %d events, want 3", n)
	}
}

// TestMemoryStoreTotal: a MemoryStore keeps at most MaxTotalBytes over all
// streams; an event past it is not kept, nor its stream's events before
// it (a resumption from there is refused), and forgetting gives the
// bytes back (issue 34: 128 sessions held 597 MiB of kept events).
func TestMemoryStoreTotal(t *testing.T) {
	m := &streamhttp.MemoryStore{MaxTotalBytes: 10}
	for seq := uint64(1); seq <= 2; seq++ {
		if err := m.Store("s", "1", seq, []byte("abcd")); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.Store("s", "2", 1, []byte("abcd")); !errors.Is(err, streamhttp.ErrEventsNotKept) {
		t.Errorf("an event past MaxTotalBytes: %v, want ErrEventsNotKept", err)
	}
	if n := m.Bytes(); n != 8 {
		t.Errorf("Bytes() = %d, want 8", n)
	}
	if err := m.Store("s", "1", 3, []byte("abcd")); !errors.Is(err, streamhttp.ErrEventsNotKept) {
		t.Errorf("a third event of stream 1: %v, want ErrEventsNotKept", err)
	}
	if err := m.Replay("s", "1", 1, func(uint64, []byte) error { return nil }); !errors.Is(err, streamhttp.ErrEventsGone) {
		t.Errorf("replay across an event not kept: %v, want ErrEventsGone", err)
	}
	if n := m.Bytes(); n != 0 {
		t.Errorf("Bytes() = %d after the stream was dropped, want 0", n)
	}
	m.Store("s", "2", 2, []byte("abcd"))
	m.Forget("s", "")
	if n := m.Bytes(); n != 0 {
		t.Errorf("Bytes() = %d after Forget, want 0", n)
	}
}
