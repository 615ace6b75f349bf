package streamhttp_test

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jsonrpc-go/jsonrpc/internal/leaktest"
	"github.com/jsonrpc-go/jsonrpc/streamhttp"
)

// sleepyStore is a SessionStore and an EventStore in memory whose every
// call waits while it is asleep, as a Redis stopped with SIGSTOP.
type sleepyStore struct {
	streamhttp.MemorySessions
	events streamhttp.MemoryStore

	mu    sync.Mutex
	awake chan struct{} // closed while awake
}

func newSleepyStore() *sleepyStore {
	s := &sleepyStore{awake: make(chan struct{})}
	close(s.awake)
	return s
}

func (s *sleepyStore) sleep() {
	s.mu.Lock()
	s.awake = make(chan struct{})
	s.mu.Unlock()
}

func (s *sleepyStore) wake() {
	s.mu.Lock()
	select {
	case <-s.awake:
	default:
		close(s.awake)
	}
	s.mu.Unlock()
}

func (s *sleepyStore) wait() {
	s.mu.Lock()
	awake := s.awake
	s.mu.Unlock()
	<-awake
}

func (s *sleepyStore) Save(st streamhttp.SessionState) error {
	s.wait()
	return s.MemorySessions.Save(st)
}

func (s *sleepyStore) Load(id string) (streamhttp.SessionState, bool, error) {
	s.wait()
	return s.MemorySessions.Load(id)
}

func (s *sleepyStore) Delete(id string) error {
	s.wait()
	return s.MemorySessions.Delete(id)
}

func (s *sleepyStore) Store(session, stream string, seq uint64, msg []byte) error {
	s.wait()
	return s.events.Store(session, stream, seq, msg)
}

func (s *sleepyStore) Replay(session, stream string, after uint64, send func(uint64, []byte) error) error {
	s.wait()
	return s.events.Replay(session, stream, after, send)
}

func (s *sleepyStore) Forget(session, stream string) {
	s.wait()
	s.events.Forget(session, stream)
}

// TestStoreTimeout: a store that stops answering holds up no session the
// handler holds: their calls, those answered as event streams (whose
// events go to the EventStore) included, are answered within a few
// StoreTimeouts; a request for a session only the store holds is answered
// 503 with Retry-After and the error StoreUnavailable in the protocol's
// shutdown code; once the store answers again, the handler uses it again.
func TestStoreTimeout(t *testing.T) {
	leaktest.Check(t)
	store := newSleepyStore()
	const timeout = 20 * time.Millisecond
	newHandler := func() string {
		return sessionServer(t, &streamhttp.Handler{Server: replicaServer(t), SessionStore: store, EventStore: store, StoreTimeout: timeout})
	}
	url, other := newHandler(), newHandler()
	begin := func(url string) string {
		t.Helper()
		resp := post(t, url, both, `{"jsonrpc":"2.0","method":"initialize","params":{},"id":0}`)
		readAll(t, resp)
		return resp.Header.Get("Mcp-Session-Id")
	}
	id, elsewhere := begin(url), begin(other)

	store.sleep()
	defer store.wake()
	slowest := time.Duration(0)
	for i := range 20 {
		start := time.Now()
		resp := post(t, url, both, fmt.Sprintf(`{"jsonrpc":"2.0","method":"moved","params":{"_meta":{"progressToken":%d}},"id":%d}`, i, i+1), "Mcp-Session-Id", id)
		body := readAll(t, resp)
		slowest = max(slowest, time.Since(start))
		if !strings.Contains(body, `"result":"moved"`) && !strings.Contains(body, "id: ") {
			t.Fatalf("call %d with the store asleep: %s", i, body)
		}
	}
	// Without the guard a call would wait until the store wakes; with it,
	// a few StoreTimeouts (and what a slow platform adds: js/wasm).
	if slowest > 2*time.Second {
		t.Errorf("with the store asleep the slowest call took %v, want a few StoreTimeouts (%v)", slowest, timeout)
	}
	resp := post(t, url, both, `{"jsonrpc":"2.0","method":"version","id":7}`, "Mcp-Session-Id", elsewhere)
	body := readAll(t, resp)
	if want := `{"jsonrpc":"2.0","error":{"code":-31006,"message":"Session store unavailable","data":"the session store did not answer: retry"},"id":7}`; resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" || body != want {
		t.Errorf("a session only the store holds, with the store asleep: %d (Retry-After %q)\n got %s\nwant %s", resp.StatusCode, resp.Header.Get("Retry-After"), body, want)
	}

	store.wake()
	waitFor(t, func() bool {
		resp := post(t, url, both, `{"jsonrpc":"2.0","method":"version","id":8}`, "Mcp-Session-Id", elsewhere)
		return readAll(t, resp) == `{"jsonrpc":"2.0","result":"2025-11-25","id":8}`
	})
}
