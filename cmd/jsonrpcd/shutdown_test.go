package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/internal/leaktest"
	"github.com/jsonrpc-go/jsonrpc/internal/testutil"
)

// shutdownServer records every call it starts. "rec" answers at once;
// "hold" is Blocking and answers when release is closed.
type shutdownServer struct {
	*jsonrpc.Server
	mu      sync.Mutex
	started map[string]bool
	holding chan string // a key per hold call that started
	release chan struct{}
}

func newShutdownServer(holds int) *shutdownServer {
	s := &shutdownServer{
		Server:  jsonrpc.NewServer(),
		started: map[string]bool{},
		holding: make(chan string, holds),
		release: make(chan struct{}),
	}
	s.MustRegister("rec", func(key string) string { s.record(key); return key })
	s.MustRegister("hold", func(key string) string {
		s.record(key)
		s.holding <- key
		<-s.release
		return key
	}, jsonrpc.Blocking())
	return s
}

func (s *shutdownServer) record(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.started[key] = true
}

// TestShutdownAnswersInFlight: with calls in flight on TCP and HTTP, each
// connection pipelining many, the end of the context (SIGTERM) closes every
// listener at once, every call that started is answered and its answer
// received, and serveNetwork returns 0. Ten rounds of ten connections a
// listener, ten calls a connection.
func TestShutdownAnswersInFlight(t *testing.T) {
	leaktest.Check(t)
	const rounds = 10
	start := time.Now()
	for round := range rounds {
		shutdownRound(t, round)
		if t.Failed() {
			t.Fatalf("round %d failed", round)
		}
	}
	t.Logf("%d rounds in %v", rounds, time.Since(start))
}

func shutdownRound(t *testing.T, round int) {
	const conns, calls = 10, 10
	// TCP runs every call of a connection at once: holds at 2, 5 and 8.
	// HTTP/1.1 runs one request of a connection at a time: the two recs
	// are answered, the hold is in flight at shutdown, the rest are
	// dropped unread.
	const tcpHolds, httpHolds = 3 * conns, conns
	srv := newShutdownServer(tcpHolds + httpHolds)
	s := startServing(t, srv.Server)

	type result struct {
		keys    []string // answered with their results
		refused []string // answered "server shutting down": read, not started
		err     error
	}
	results := make(chan result, 2*conns)
	collect := func(proto string, c net.Conn, answers [][]byte, err error) {
		c.Close()
		r := result{err: err}
		for _, a := range answers {
			if id, ok := refusedAtShutdown(a); ok {
				r.refused = append(r.refused, id)
				continue
			}
			res, id, err := resultOf(a)
			if err == nil && res != id {
				err = fmt.Errorf("result %q for id %q", res, id)
			}
			if err != nil {
				r.err = fmt.Errorf("%s: %w", proto, err)
				break
			}
			r.keys = append(r.keys, id)
		}
		results <- r
	}
	method := func(i int) string {
		if i%3 == 2 {
			return "hold"
		}
		return "rec"
	}
	for c := range conns {
		tc, err := net.DialTimeout("tcp", s.tcpAddr, wait)
		if err != nil {
			t.Fatal(err)
		}
		hc, err := net.DialTimeout("tcp", s.httpAddr, wait)
		if err != nil {
			t.Fatal(err)
		}
		var lines, posts strings.Builder
		for i := range calls {
			lines.WriteString(call(method(i), fmt.Sprintf("tcp/%d/%d/%d", round, c, i), fmt.Sprintf("tcp/%d/%d/%d", round, c, i)) + "\n")
			key := fmt.Sprintf("http/%d/%d/%d", round, c, i)
			posts.WriteString(postRequest(call(method(i), key, key)))
		}
		tc.SetDeadline(time.Now().Add(wait))
		hc.SetDeadline(time.Now().Add(wait))
		if _, err := tc.Write([]byte(lines.String())); err != nil {
			t.Fatal(err)
		}
		if _, err := hc.Write([]byte(posts.String())); err != nil {
			t.Fatal(err)
		}
		go func() { a, err := readLines(tc); collect("tcp", tc, a, err) }()
		go func() { a, err := readHTTPAnswers(hc); collect("http", hc, a, err) }()
	}
	for range tcpHolds + httpHolds {
		select {
		case <-srv.holding:
		case <-time.After(wait):
			t.Fatal("the hold calls did not all start")
		}
	}

	// SIGTERM.
	s.cancel()
	select {
	case <-s.shuttingDown:
	case <-time.After(wait):
		t.Fatal("no shutdown")
	}
	// Every listener stopped accepting when shutdown began.
	for name, addr := range map[string]string{"HTTP": s.httpAddr, "TCP": s.tcpAddr} {
		if c, err := net.DialTimeout("tcp", addr, wait); err == nil {
			c.Close()
			t.Errorf("round %d: the %s listener accepts after shutdown began", round, name)
		}
	}
	close(srv.release)

	received, refused := map[string]bool{}, map[string]bool{}
	for range 2 * conns {
		r := <-results
		if r.err != nil {
			t.Errorf("round %d: %v", round, r.err)
		}
		for _, k := range r.keys {
			received[k] = true
		}
		for _, k := range r.refused {
			refused[k] = true
		}
	}
	status, took := s.stop(t)
	if status != 0 {
		t.Errorf("round %d: status %d: %s", round, status, s.errOut)
	}
	if took > defaultShutdownTimeout {
		t.Errorf("round %d: shutdown took %v, over its bound %v", round, took, defaultShutdownTimeout)
	}
	srv.mu.Lock()
	defer srv.mu.Unlock()
	for k := range srv.started {
		if !received[k] {
			t.Errorf("round %d: call %s started and was not answered with its result", round, k)
		}
	}
	for k := range refused {
		if srv.started[k] {
			t.Errorf("round %d: call %s started and was answered as not started", round, k)
		}
	}
	for k := range received {
		if !srv.started[k] {
			t.Errorf("round %d: answer %s to a call that never started", round, k)
		}
	}
	if len(srv.started) < tcpHolds+httpHolds {
		t.Errorf("round %d: %d calls started, want at least the %d holds", round, len(srv.started), tcpHolds+httpHolds)
	}
}

// TestShutdownBound: calls that ignore their context, on WebSocket, HTTP
// and TCP at once, hold the shutdown no longer than -shutdown-timeout:
// serveNetwork closes everything then and returns 1.
func TestShutdownBound(t *testing.T) {
	testutil.SkipOnJS(t, "calls over WebSocket too, and coder/websocket on js dials with the host's WebSocket, which cannot reach the program's in-memory network")
	leaktest.CheckIgnoring(t, "net/http.(*persistConn)")
	const bound = 500 * time.Millisecond
	srv := jsonrpc.NewServer()
	stuck := make(chan struct{})
	started := make(chan struct{}, 3)
	srv.MustRegister("stuck", func() string {
		started <- struct{}{}
		<-stuck // ignores its context
		return "unstuck"
	}, jsonrpc.Blocking())
	defer close(stuck)
	s := startServing(t, srv, "-shutdown-timeout", bound.String())
	req := `{"jsonrpc":"2.0","method":"stuck","id":1}`

	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	wc, _, err := websocket.Dial(ctx, s.wsURL, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer wc.CloseNow()
	if err := wc.Write(ctx, websocket.MessageText, []byte(req)); err != nil {
		t.Fatal(err)
	}
	hc, err := net.DialTimeout("tcp", s.httpAddr, wait)
	if err != nil {
		t.Fatal(err)
	}
	defer hc.Close()
	tc, err := net.DialTimeout("tcp", s.tcpAddr, wait)
	if err != nil {
		t.Fatal(err)
	}
	defer tc.Close()
	hc.Write([]byte(postRequest(req)))
	tc.Write([]byte(req + "\n"))
	for range 3 {
		select {
		case <-started:
		case <-time.After(wait):
			t.Fatal("the calls did not start")
		}
	}

	status, took := s.stop(t)
	if status != 1 {
		t.Errorf("status %d, want 1 (the shutdown timed out): %s", status, s.errOut)
	}
	// The bound, and generous room for closing.
	if took > bound+5*time.Second {
		t.Errorf("serveNetwork returned %v after its context ended, bound %v", took, bound)
	}
	t.Logf("returned %v after the context ended, bound %v", took, bound)
}

// refusedAtShutdown reports whether b is the answer to a request that the
// server read but did not start because it was shutting down, and its id.
func refusedAtShutdown(b []byte) (string, bool) {
	var r struct {
		ID    string
		Error *jsonrpc.Error
	}
	if json.Unmarshal(b, &r) != nil || r.Error == nil {
		return "", false
	}
	return r.ID, r.Error.Code == jsonrpc.CodeLimitExceeded && string(r.Error.Data) == `"server shutting down"`
}
