package peer_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/client"
	"github.com/jsonrpc-go/jsonrpc/internal/leaktest"
	"github.com/jsonrpc-go/jsonrpc/peer"
	"github.com/jsonrpc-go/jsonrpc/stream"
	"github.com/jsonrpc-go/jsonrpc/transport"
)

// ethServer serves eth_subscribe and eth_unsubscribe on topic, and reports
// each subscription made.
func ethServer(topic *peer.Topic, subs chan<- *peer.Subscription) *jsonrpc.Server {
	srv := jsonrpc.NewServer()
	srv.MustRegister("eth_subscribe", func(ctx context.Context, kind string) (string, error) {
		if kind != "newHeads" {
			return "", jsonrpc.NewError(jsonrpc.CodeInvalidParams, "unknown subscription "+kind)
		}
		s, err := topic.Subscribe(ctx)
		if err != nil {
			return "", err
		}
		if subs != nil {
			subs <- s
		}
		return s.ID(), nil
	}, jsonrpc.ParamNames("kind"))
	srv.MustRegister("eth_unsubscribe", func(id string) bool { return topic.Unsubscribe(id) })
	return srv
}

// headsClient receives eth_subscription notifications on got.
func headsClient(got chan<- int) *jsonrpc.Server {
	srv := jsonrpc.NewServer()
	srv.MustRegister("eth_subscription", func(p struct {
		Subscription string `json:"subscription"`
		Result       struct {
			Number int `json:"number"`
		} `json:"result"`
	}) {
		got <- p.Result.Number
	})
	return srv
}

// TestSlowSubscriber: one subscriber that stops reading neither blocks
// Publish nor holds up the others: under Drop it misses what its queue has
// no room for, under Unsubscribe its subscription ends, and the fast
// subscriber gets every notification in order either way.
func TestSlowSubscriber(t *testing.T) {
	leaktest.Check(t)
	for _, overflow := range []peer.Overflow{peer.Drop, peer.Unsubscribe} {
		t.Run(fmt.Sprint(overflow), func(t *testing.T) {
			topic := &peer.Topic{Method: "eth_subscription", Overflow: overflow}
			subs := make(chan *peer.Subscription, 2)
			s := &stream.Server{Server: ethServer(topic, subs), Limits: peer.Limits{MaxPush: 8, WriteTimeout: -1}}

			got := make(chan int, 64)
			fast := dial(t, s, client.Serve(headsClient(got)))
			ctx, cancel := context.WithTimeout(context.Background(), wait)
			defer cancel()
			if _, err := client.Call[string](ctx, fast, "eth_subscribe", []any{"newHeads"}); err != nil {
				t.Fatal(err)
			}
			<-subs

			// The slow subscriber subscribes, then reads nothing more.
			r := newRaw(t, s)
			r.send(`{"jsonrpc":"2.0","method":"eth_subscribe","params":["newHeads"],"id":1}`)
			slow := <-subs
			r.recv()
			r.stopReading()
			defer r.resumeReading()

			// Rounds of 4 notifications, fewer than MaxPush: the fast
			// subscriber has room for each round.
			published := make(chan error, 1)
			go func() {
				for round := range 100 {
					for i := range 4 {
						if _, err := topic.Publish(map[string]int{"number": round*4 + i}); err != nil {
							published <- err
							return
						}
					}
					for i := range 4 {
						select {
						case n := <-got:
							if n != round*4+i {
								published <- fmt.Errorf("fast subscriber got %d, want %d", n, round*4+i)
								return
							}
						case <-time.After(wait):
							published <- errors.New("the fast subscriber stopped getting notifications")
							return
						}
					}
				}
				published <- nil
			}()
			select {
			case err := <-published:
				if err != nil {
					t.Fatal(err)
				}
			case <-time.After(2 * wait):
				t.Fatal("Publish blocked")
			}
			switch overflow {
			case peer.Drop:
				if slow.Dropped() == 0 || slow.Err() != nil {
					t.Fatalf("slow subscriber: dropped %d, err %v; want some dropped and the subscription alive", slow.Dropped(), slow.Err())
				}
			case peer.Unsubscribe:
				if !errors.Is(slow.Err(), peer.ErrOverflow) {
					t.Fatalf("slow subscriber: err %v, want ErrOverflow", slow.Err())
				}
				if topic.Len() != 1 {
					t.Fatalf("%d subscriptions, want the fast one", topic.Len())
				}
			}
		})
	}
}

// TestSubscriptionEnds: a subscription ends when its connection does, and
// eth_unsubscribe ends it.
func TestSubscriptionEnds(t *testing.T) {
	leaktest.Check(t)
	topic := &peer.Topic{Method: "eth_subscription"}
	subs := make(chan *peer.Subscription, 2)
	s := &stream.Server{Server: ethServer(topic, subs)}
	cc, sc := net.Pipe()
	done := make(chan error, 1)
	go func() { done <- s.ServeConn(context.Background(), sc) }()
	c := client.New(client.Stream(cc, nil), client.Serve(headsClient(make(chan int, 8))))
	ctx := context.Background()
	id, err := client.Call[string](ctx, c, "eth_subscribe", []any{"newHeads"})
	if err != nil {
		t.Fatal(err)
	}
	first := <-subs
	if ok, err := client.Call[bool](ctx, c, "eth_unsubscribe", []any{id}); err != nil || !ok {
		t.Fatalf("eth_unsubscribe = %v, %v", ok, err)
	}
	if !errors.Is(first.Err(), peer.ErrUnsubscribed) {
		t.Fatalf("err %v, want ErrUnsubscribed", first.Err())
	}
	if _, err := client.Call[string](ctx, c, "eth_subscribe", []any{"newHeads"}); err != nil {
		t.Fatal(err)
	}
	second := <-subs
	c.Close()
	select {
	case <-second.Done():
		if !errors.Is(second.Err(), peer.ErrClosed) {
			t.Fatalf("err %v, want ErrClosed", second.Err())
		}
	case <-time.After(wait):
		t.Fatal("the subscription outlived its connection")
	}
	if topic.Len() != 0 {
		t.Fatalf("%d subscriptions left", topic.Len())
	}
	<-done
}

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

// TestAnswerBeforeNotification: a notification published from inside the
// subscribe method that made the subscription reaches the wire after the
// method's answer, never before it (go-ethereum's client drops a
// notification for a subscription id it has not learnt yet), 10,000 times
// over one connection, for a method that runs inline and one registered
// Blocking, with and without a Protocol.
func TestAnswerBeforeNotification(t *testing.T) {
	leaktest.Check(t)
	const n = 10000
	for _, proto := range []peer.Protocol{{}, peer.LSP} {
		for _, blocking := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/blocking=%v", proto.CancelMethod, blocking), func(t *testing.T) {
				srv := jsonrpc.NewServer()
				var opts []jsonrpc.MethodOption
				if blocking {
					opts = append(opts, jsonrpc.Blocking())
				}
				srv.MustRegister("subscribe", func(ctx context.Context, i int) (string, error) {
					topic := &peer.Topic{Method: "tick"}
					s, err := topic.Subscribe(ctx)
					if err != nil {
						return "", err
					}
					if k, err := topic.Publish(i); k != 1 || err != nil {
						return "", fmt.Errorf("published to %d: %v", k, err)
					}
					return s.ID(), nil
				}, opts...)
				r := newRaw(t, &stream.Server{Server: srv, Protocol: proto, Limits: peer.Limits{MaxPush: 4, MaxSubscriptions: n}})
				for i := range n {
					r.send(fmt.Sprintf(`{"jsonrpc":"2.0","method":"subscribe","params":[%d],"id":%d}`, i, i))
					answer := r.recv()
					var a struct {
						Result string `json:"result"`
						ID     int    `json:"id"`
					}
					if err := json.Unmarshal([]byte(answer), &a); err != nil || a.ID != i || a.Result == "" {
						t.Fatalf("call %d: first message %s, want its answer", i, answer)
					}
					want := fmt.Sprintf(`{"jsonrpc":"2.0","method":"tick","params":{"subscription":%q,"result":%d}}`, a.Result, i)
					if got := r.recv(); got != want {
						t.Fatalf("call %d: then %s, want %s", i, got, want)
					}
				}
			})
		}
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
	c := peer.New(context.Background(), transport.Carrier{Conn: tr}, peer.Options{Limits: peer.Limits{MaxPush: 1000, MaxPushBytes: limit}})
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

// TestMaxSubscriptions: a connection holds at most MaxSubscriptions
// subscriptions; past it Subscribe fails, and one ended makes room.
func TestMaxSubscriptions(t *testing.T) {
	leaktest.Check(t)
	topic := &peer.Topic{Method: "eth_subscription"}
	s := &stream.Server{Server: ethServer(topic, nil), Limits: peer.Limits{MaxSubscriptions: 3}}
	c := dial(t, s)
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	var ids []string
	for range 3 {
		id, err := client.Call[string](ctx, c, "eth_subscribe", []any{"newHeads"})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	var e *jsonrpc.Error
	if _, err := client.Call[string](ctx, c, "eth_subscribe", []any{"newHeads"}); !errors.As(err, &e) || e.Code != jsonrpc.CodeLimitExceeded || !strings.Contains(string(e.Data), "too many subscriptions") {
		t.Fatalf("a fourth subscription: %v, want -32005 too many subscriptions", err)
	}
	if ok, err := client.Call[bool](ctx, c, "eth_unsubscribe", []any{ids[0]}); err != nil || !ok {
		t.Fatalf("eth_unsubscribe: %v, %v", ok, err)
	}
	if _, err := client.Call[string](ctx, c, "eth_subscribe", []any{"newHeads"}); err != nil {
		t.Fatalf("a subscription after one ended: %v", err)
	}
	if topic.Len() != 3 {
		t.Errorf("%d subscriptions, want 3", topic.Len())
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
