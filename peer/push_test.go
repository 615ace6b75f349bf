package peer_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/client"
	"github.com/jsonrpc-go/jsonrpc/internal/leaktest"
	"github.com/jsonrpc-go/jsonrpc/internal/peertest"
	"github.com/jsonrpc-go/jsonrpc/peer"
	"github.com/jsonrpc-go/jsonrpc/protocol/mcp"
	"github.com/jsonrpc-go/jsonrpc/stream"
	"github.com/jsonrpc-go/jsonrpc/transport"
)

// TestPush: a method pushes notifications to its caller without waiting.
func TestPush(t *testing.T) {
	leaktest.Check(t)
	srv := jsonrpc.NewServer()
	srv.MustRegister("start", func(ctx context.Context, n int) error {
		conn := peer.FromContext(ctx)
		for i := range n {
			if err := conn.Push("tick", []int{i}); err != nil {
				return err
			}
		}
		return nil
	})
	var mu sync.Mutex
	var ticks []int
	all := make(chan struct{})
	csrv := jsonrpc.NewServer()
	csrv.MustRegister("tick", func(i int) {
		mu.Lock()
		defer mu.Unlock()
		ticks = append(ticks, i)
		if len(ticks) == 5 {
			close(all)
		}
	})
	c := dial(t, &stream.Server{Server: srv}, client.Serve(csrv))
	if err := c.Conn().Call(context.Background(), "start", []int{5}, nil); err != nil {
		t.Fatal(err)
	}
	select {
	case <-all:
	case <-time.After(wait):
		t.Fatal("ticks missing")
	}
	mu.Lock()
	defer mu.Unlock()
	if b, _ := json.Marshal(ticks); string(b) != "[0,1,2,3,4]" {
		t.Fatalf("ticks %s", b)
	}
}

// stuckTransport is a peer that reads nothing: its Write blocks until
// Close, and Read waits for Close.
type stuckTransport struct {
	closed chan struct{}
	once   sync.Once
}

func (s *stuckTransport) Read() ([]byte, error) { <-s.closed; return nil, io.EOF }
func (s *stuckTransport) Write(context.Context, []byte) error {
	<-s.closed
	return io.ErrClosedPipe
}
func (s *stuckTransport) Flush() error { return nil }
func (s *stuckTransport) Close() error { s.once.Do(func() { close(s.closed) }); return nil }

// TestPushBoundedByBytes: the notifications waiting for a peer that does
// not read are bounded by MaxPushBytes, not only by their number.
func TestPushBoundedByBytes(t *testing.T) {
	leaktest.Check(t)
	tr := &stuckTransport{closed: make(chan struct{})}
	defer tr.Close()
	const limit, size = 64 << 10, 8 << 10
	c := peer.New(context.Background(), transport.Carrier{Conn: tr}, peer.Options{Limits: transport.Limits{MaxPush: 1000, MaxPushBytes: limit}})
	value := strings.Repeat("x", size)
	accepted := 0
	for range 1000 {
		if err := c.Push("tick", []string{value}); err != nil {
			if !errors.Is(err, peer.ErrPushFull) {
				t.Fatal(err)
			}
			break
		}
		accepted++
	}
	// What the writer took before it blocked (maybe nothing), and then
	// limit bytes more: each notification is its value and some 40 bytes.
	if accepted < limit/(size+100) || accepted > 2*limit/size+1 {
		t.Errorf("%d notifications of %d bytes accepted, want about %d (MaxPushBytes %d)", accepted, size, limit/size, limit)
	}
}

// heldTransport holds its first Write until release is closed, and
// records every message it writes; like client.Stream's channel, it skips
// a Write whose ctx has ended.
type heldTransport struct {
	entered chan struct{} // closed when the first Write has begun
	release chan struct{}
	closed  chan struct{}
	once    sync.Once
	mu      sync.Mutex
	n       int
	wrote   chan string
}

func (h *heldTransport) Read() ([]byte, error) { <-h.closed; return nil, io.EOF }
func (h *heldTransport) Write(ctx context.Context, msg []byte) error {
	h.mu.Lock()
	h.n++
	first := h.n == 1
	h.mu.Unlock()
	if first {
		close(h.entered)
		<-h.release
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	h.wrote <- string(msg)
	return nil
}
func (h *heldTransport) Flush() error { return nil }
func (h *heldTransport) Close() error { h.once.Do(func() { close(h.closed) }); return nil }

// TestNotifyQueuedOutlivesItsContext: a notification queued behind
// another writer is sent though its context ends as Notify returns, as
// a caller that cancels its context once Notify has returned expects.
// Before, it was dropped without a word (an $/enumerator/abort under a
// context with a timeout that CallSeq cancels at once, with a pull under
// way).
func TestNotifyQueuedOutlivesItsContext(t *testing.T) {
	leaktest.Check(t)
	tr := &heldTransport{entered: make(chan struct{}), release: make(chan struct{}), closed: make(chan struct{}), wrote: make(chan string, 4)}
	c := peer.New(context.Background(), transport.Carrier{Conn: tr}, peer.Options{})
	done := make(chan struct{})
	go func() { c.Run(func(error) {}); close(done) }()
	defer func() { tr.Close(); <-done }()
	first := make(chan error, 1)
	go func() { first <- c.Notify(context.Background(), "first", nil) }()
	<-tr.entered
	ctx, cancel := context.WithCancel(context.Background())
	if err := c.Notify(ctx, "second", nil); err != nil {
		t.Fatal(err)
	}
	cancel()
	close(tr.release)
	for _, want := range []string{`{"jsonrpc":"2.0","method":"first"}`, `{"jsonrpc":"2.0","method":"second"}`} {
		select {
		case got := <-tr.wrote:
			if got != want {
				t.Errorf("wrote %s, want %s", got, want)
			}
		case <-time.After(wait):
			t.Fatalf("%s was never written", want)
		}
	}
	if err := <-first; err != nil {
		t.Fatal(err)
	}
}

// TestAnswersHeldBack: the answers of Blocking calls to a peer that does
// not read wait for room in the connection's write queue (MaxQueued), so
// that their calls stay in flight and, at MaxInFlight, the connection
// stops reading: a peer that sends calls and reads nothing gets only a
// few run. Before, each answer was queued at once, its call left the
// count, and every call the peer sent ran, its answer held in memory.
func TestAnswersHeldBack(t *testing.T) {
	leaktest.Check(t)
	const size = 32 << 10
	var ran atomic.Int64
	srv := jsonrpc.NewServer()
	big := strings.Repeat("x", size)
	srv.MustRegister("big", func() string { ran.Add(1); return big }, jsonrpc.Blocking())
	lim := transport.Limits{MaxInFlight: 8, MaxQueued: 64 << 10}
	r := peertest.NewRaw(t, &stream.Server{Server: srv, Limits: lim})
	r.StopReading()
	t.Cleanup(r.ResumeReading)
	const calls = 500
	sent := make(chan struct{})
	go func() {
		defer close(sent)
		for i := range calls {
			r.Send(fmt.Sprintf(`{"jsonrpc":"2.0","method":"big","id":%d}`, i))
		}
	}()
	last := int64(-1)
	for n := ran.Load(); n != last; n = ran.Load() {
		last = n
		time.Sleep(100 * time.Millisecond)
	}
	// The write under way, the queue (MaxQueued, and the answer that
	// passes it), and MaxInFlight calls waiting for room.
	if limit := int64(1 + lim.MaxQueued/size + 1 + lim.MaxInFlight); last > limit {
		t.Errorf("%d calls ran for a peer that reads nothing, want at most %d", last, limit)
	}
	// Once the peer reads, every call is answered.
	r.ResumeReading()
	for range calls {
		r.Recv()
	}
	<-sent
}

// exchangeTransport is a carrier that sends each message in an exchange
// of its own (Traits.Exchanges), as a Streamable HTTP session does: it
// reads the messages of in, and records each message it writes, in the
// order its writes end, taking slow to write each notification (as a
// session keeps an event in its store before it writes it).
type exchangeTransport struct {
	in     chan []byte
	closed chan struct{}
	once   sync.Once
	slow   time.Duration
	mu     sync.Mutex
	wrote  []string
}

func (e *exchangeTransport) Read() ([]byte, error) {
	select {
	case m := <-e.in:
		return m, nil
	case <-e.closed:
		return nil, io.EOF
	}
}

func (e *exchangeTransport) Write(_ context.Context, msg []byte) error {
	if strings.Contains(string(msg), `"method"`) {
		time.Sleep(e.slow)
	}
	e.mu.Lock()
	e.wrote = append(e.wrote, string(msg))
	e.mu.Unlock()
	return nil
}

func (e *exchangeTransport) Flush() error { return nil }
func (e *exchangeTransport) Close() error { e.once.Do(func() { close(e.closed) }); return nil }

// TestCallsMessagesInOrder: over a carrier whose senders write at once
// (Traits.Exchanges), a Blocking call's answer is written after the
// notifications its method pushed before it returned, which a writer
// goroutine writes: a client that has the answer has them too. Before,
// the answer overtook them, and jsonrpcd -mcp's publish, its tools/call
// Blocking, answered before its event was stored, which a process killed
// at the answer lost (deploy/nginx's TestSessionReplicas).
func TestCallsMessagesInOrder(t *testing.T) {
	leaktest.Check(t)
	srv := jsonrpc.NewServer()
	srv.MustRegister("publish", func(ctx context.Context, n int) (int, error) {
		c := peer.FromContext(ctx)
		for i := range n {
			if err := c.Push("tick", []int{i}); err != nil {
				return 0, err
			}
		}
		return n, nil
	}, jsonrpc.Blocking())
	tr := &exchangeTransport{in: make(chan []byte), closed: make(chan struct{}), slow: 10 * time.Millisecond}
	c := peer.New(context.Background(), transport.Carrier{Conn: tr, Traits: transport.Traits{Exchanges: true}}, peer.Options{Server: srv, Protocol: mcp.Protocol()})
	done := make(chan struct{})
	go func() { c.Run(func(error) {}); close(done) }()
	defer func() { tr.Close(); <-done; c.Wait() }()
	tr.in <- []byte(`{"jsonrpc":"2.0","method":"publish","params":[3],"id":1}`)
	want := []string{
		`{"jsonrpc":"2.0","method":"tick","params":[0]}`,
		`{"jsonrpc":"2.0","method":"tick","params":[1]}`,
		`{"jsonrpc":"2.0","method":"tick","params":[2]}`,
		`{"jsonrpc":"2.0","result":3,"id":1}`,
	}
	deadline := time.Now().Add(wait)
	for {
		tr.mu.Lock()
		got := slices.Clone(tr.wrote)
		tr.mu.Unlock()
		if len(got) == len(want) {
			if !slices.Equal(got, want) {
				t.Errorf("written in the order\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("written %q", got)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestAnswerBeforeDispatchReturns: a Blocking call that answers before
// ProcessAsync has returned to the read loop (a fast method on a loaded
// machine) is sent before the read loop waits for the peer's next message,
// however the two goroutines interleave: each of many calls, sent one
// after the other's answer, is answered. Before, the answer was queued
// after the call was marked answered, and a read loop that had looked for
// queued answers in between waited for the peer's next message, which a
// peer waiting for the answer never sent.
func TestAnswerBeforeDispatchReturns(t *testing.T) {
	leaktest.Check(t)
	srv := jsonrpc.NewServer()
	srv.MustRegister("fast", func() int { return 1 }, jsonrpc.Blocking())
	r := peertest.NewRaw(t, &stream.Server{Server: srv})
	for i := range 3000 {
		r.Send(fmt.Sprintf(`{"jsonrpc":"2.0","method":"fast","id":%d}`, i))
		if got, want := r.Recv(), fmt.Sprintf(`{"jsonrpc":"2.0","result":1,"id":%d}`, i); got != want {
			t.Fatalf("got %s, want %s", got, want)
		}
	}
}
