package jsonrpc_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
)

// turnServer has "hold", a method that is not Blocking and waits on its
// channel all the same, so that a test sees which calls are at work at
// once; "small" answers at once.
type turnServer struct {
	*jsonrpc.Server
	entered chan string
	release chan struct{}
}

func newTurnServer(l jsonrpc.Limits) *turnServer {
	s := &turnServer{
		Server:  jsonrpc.NewServer(jsonrpc.UseLimits(l)),
		entered: make(chan string, 16),
		release: make(chan struct{}),
	}
	s.MustRegister("hold", func(key, pad string) string {
		s.entered <- key
		<-s.release
		return key
	})
	s.MustRegister("small", func() int { return 1 })
	return s
}

// holdRequest is a call of hold with key, padded to n bytes or more.
func holdRequest(key string, n int) []byte {
	return []byte(`{"jsonrpc":"2.0","method":"hold","params":["` + key + `","` + strings.Repeat("x", n) + `"],"id":1}`)
}

// async runs ProcessAsync on a goroutine of its own and delivers its
// answer on the channel it returns.
func async(ctx context.Context, s *jsonrpc.Server, req []byte) <-chan string {
	out := make(chan string, 1)
	go s.ProcessAsync(ctx, nil, req, func(resp []byte) { out <- string(resp) })
	return out
}

func entered(t *testing.T, s *turnServer) string {
	t.Helper()
	select {
	case k := <-s.entered:
		return k
	case <-time.After(10 * time.Second):
		t.Fatal("no call entered hold")
		return ""
	}
}

func notEntered(t *testing.T, s *turnServer, d time.Duration) {
	t.Helper()
	select {
	case k := <-s.entered:
		t.Fatalf("call %s entered hold while another large request held the only turn", k)
	case <-time.After(d):
	}
}

func answer(t *testing.T, ch <-chan string, want string) {
	t.Helper()
	select {
	case got := <-ch:
		if !strings.Contains(got, want) {
			t.Errorf("answer %.100s, want %s", got, want)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("no answer (want %s)", want)
	}
}

// With one turn, a second large request waits until the first has
// answered; small requests do not wait.
func TestLargeRequestsTakeTurns(t *testing.T) {
	s := newTurnServer(jsonrpc.Limits{LargeRequest: 1 << 10, MaxLarge: 1})
	ctx := context.Background()
	first := async(ctx, s.Server, holdRequest("first", 2<<10))
	if k := entered(t, s); k != "first" {
		t.Fatalf("%s entered first", k)
	}
	second := async(ctx, s.Server, holdRequest("second", 2<<10))
	answer(t, async(ctx, s.Server, []byte(`{"jsonrpc":"2.0","method":"small","id":2}`)), `"result":1`)
	notEntered(t, s, 50*time.Millisecond)
	s.release <- struct{}{}
	answer(t, first, `"result":"first"`)
	if k := entered(t, s); k != "second" {
		t.Fatalf("%s entered second", k)
	}
	close(s.release)
	answer(t, second, `"result":"second"`)
}

// The turn ends before the reply is written: a reply that cannot be
// written (a client that does not read) does not hold up the large
// requests of other clients.
func TestTurnEndsBeforeReply(t *testing.T) {
	s := newTurnServer(jsonrpc.Limits{LargeRequest: 1 << 10, MaxLarge: 1})
	close(s.release)
	stuck := make(chan struct{})
	defer close(stuck)
	replying := make(chan struct{})
	go s.ProcessAsync(context.Background(), nil, holdRequest("slow reader", 2<<10), func([]byte) {
		close(replying)
		<-stuck
	})
	<-replying
	answer(t, async(context.Background(), s.Server, holdRequest("next", 2<<10)), `"result":"next"`)
}

// A request whose context ends while it waits for a turn goes on without
// one; a method that calls ProcessAsync during its request's turn does not
// wait for another (with one turn it would wait for itself).
func TestTurnWaitEnds(t *testing.T) {
	s := newTurnServer(jsonrpc.Limits{LargeRequest: 1 << 10, MaxLarge: 1})
	first := async(context.Background(), s.Server, holdRequest("first", 2<<10))
	entered(t, s)
	ctx, cancel := context.WithCancel(context.Background())
	second := async(ctx, s.Server, holdRequest("second", 2<<10))
	notEntered(t, s, 20*time.Millisecond)
	cancel()
	if k := entered(t, s); k != "second" {
		t.Fatalf("%s entered", k)
	}
	close(s.release)
	answer(t, first, `"result":"first"`)
	answer(t, second, `"result":"second"`)

	nested := jsonrpc.NewServer(jsonrpc.UseLimits(jsonrpc.Limits{LargeRequest: 1 << 10, MaxLarge: 1}))
	inner := `{"jsonrpc":"2.0","method":"echo","params":["` + strings.Repeat("y", 2<<10) + `"],"id":1}`
	nested.MustRegister("echo", func(s string) int { return len(s) })
	nested.MustRegister("outer", func(ctx context.Context, pad string) (bool, error) {
		var got string
		nested.ProcessAsync(ctx, nil, []byte(inner), func(resp []byte) { got = string(resp) })
		return strings.Contains(got, `"result":2048`), nil
	})
	outer := []byte(`{"jsonrpc":"2.0","method":"outer","params":["` + strings.Repeat("x", 2<<10) + `"],"id":1}`)
	answer(t, async(context.Background(), nested, outer), `"result":true`)
}

// A negative MaxLarge gives large requests no turns: they are at work at
// once.
func TestNoTurns(t *testing.T) {
	s := newTurnServer(jsonrpc.Limits{LargeRequest: 1 << 10, MaxLarge: -1})
	var answers []<-chan string
	for _, k := range []string{"a", "b", "c"} {
		answers = append(answers, async(context.Background(), s.Server, holdRequest(k, 2<<10)))
	}
	seen := map[string]bool{}
	for range 3 {
		seen[entered(t, s)] = true
	}
	if len(seen) != 3 {
		t.Errorf("entered: %v", seen)
	}
	close(s.release)
	var wg sync.WaitGroup
	for _, a := range answers {
		wg.Go(func() { answer(t, a, `"result"`) })
	}
	wg.Wait()
}
