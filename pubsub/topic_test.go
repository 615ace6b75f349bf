package pubsub_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/client"
	"github.com/jsonrpc-go/jsonrpc/internal/leaktest"
	"github.com/jsonrpc-go/jsonrpc/internal/peertest"
	"github.com/jsonrpc-go/jsonrpc/peer"
	"github.com/jsonrpc-go/jsonrpc/protocol/lsp"
	"github.com/jsonrpc-go/jsonrpc/pubsub"
	"github.com/jsonrpc-go/jsonrpc/stream"
	"github.com/jsonrpc-go/jsonrpc/transport"
)

// ethServer serves eth_subscribe and eth_unsubscribe on topic, and reports
// each subscription made.
func ethServer(topic *pubsub.Topic, subs chan<- *pubsub.Subscription) *jsonrpc.Server {
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
	for _, overflow := range []pubsub.Overflow{pubsub.Drop, pubsub.Unsubscribe} {
		t.Run(fmt.Sprint(overflow), func(t *testing.T) {
			topic := &pubsub.Topic{Method: "eth_subscription", Overflow: overflow}
			subs := make(chan *pubsub.Subscription, 2)
			s := &stream.Server{Server: ethServer(topic, subs), Limits: transport.Limits{MaxPush: 8, WriteTimeout: -1}}

			got := make(chan int, 64)
			fast := dial(t, s, client.Serve(headsClient(got)))
			ctx, cancel := context.WithTimeout(context.Background(), wait)
			defer cancel()
			if _, err := client.Call[string](ctx, fast, "eth_subscribe", []any{"newHeads"}); err != nil {
				t.Fatal(err)
			}
			<-subs

			// The slow subscriber subscribes, then reads nothing more.
			r := peertest.NewRaw(t, s)
			r.Send(`{"jsonrpc":"2.0","method":"eth_subscribe","params":["newHeads"],"id":1}`)
			slow := <-subs
			r.Recv()
			r.StopReading()
			defer r.ResumeReading()

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
			case pubsub.Drop:
				if slow.Dropped() == 0 || slow.Err() != nil {
					t.Fatalf("slow subscriber: dropped %d, err %v; want some dropped and the subscription alive", slow.Dropped(), slow.Err())
				}
			case pubsub.Unsubscribe:
				if !errors.Is(slow.Err(), pubsub.ErrOverflow) {
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
	topic := &pubsub.Topic{Method: "eth_subscription"}
	subs := make(chan *pubsub.Subscription, 2)
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
	if !errors.Is(first.Err(), pubsub.ErrUnsubscribed) {
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

// TestAnswerBeforeNotification: a notification published from inside the
// subscribe method that made the subscription reaches the wire after the
// method's answer, never before it (go-ethereum's client drops a
// notification for a subscription id it has not learnt yet), 10,000 times
// over one connection, for a method that runs inline and one registered
// Blocking, with and without a Protocol.
func TestAnswerBeforeNotification(t *testing.T) {
	leaktest.Check(t)
	const n = 10000
	for _, proto := range []peer.Protocol{{}, lsp.Protocol()} {
		for _, blocking := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/blocking=%v", proto.CancelMethod, blocking), func(t *testing.T) {
				srv := jsonrpc.NewServer()
				var opts []jsonrpc.MethodOption
				if blocking {
					opts = append(opts, jsonrpc.Blocking())
				}
				srv.MustRegister("subscribe", func(ctx context.Context, i int) (string, error) {
					topic := &pubsub.Topic{Method: "tick"}
					s, err := topic.Subscribe(ctx)
					if err != nil {
						return "", err
					}
					if k, err := topic.Publish(i); k != 1 || err != nil {
						return "", fmt.Errorf("published to %d: %v", k, err)
					}
					return s.ID(), nil
				}, opts...)
				r := peertest.NewRaw(t, &stream.Server{Server: srv, Protocol: proto, Limits: transport.Limits{MaxPush: 4, MaxSubscriptions: n}})
				for i := range n {
					r.Send(fmt.Sprintf(`{"jsonrpc":"2.0","method":"subscribe","params":[%d],"id":%d}`, i, i))
					answer := r.Recv()
					var a struct {
						Result string `json:"result"`
						ID     int    `json:"id"`
					}
					if err := json.Unmarshal([]byte(answer), &a); err != nil || a.ID != i || a.Result == "" {
						t.Fatalf("call %d: first message %s, want its answer", i, answer)
					}
					want := fmt.Sprintf(`{"jsonrpc":"2.0","method":"tick","params":{"subscription":%q,"result":%d}}`, a.Result, i)
					if got := r.Recv(); got != want {
						t.Fatalf("call %d: then %s, want %s", i, got, want)
					}
				}
			})
		}
	}
}

// TestMaxSubscriptions: a connection holds at most MaxSubscriptions
// subscriptions; past it Subscribe fails, and one ended makes room.
func TestMaxSubscriptions(t *testing.T) {
	leaktest.Check(t)
	topic := &pubsub.Topic{Method: "eth_subscription"}
	s := &stream.Server{Server: ethServer(topic, nil), Limits: transport.Limits{MaxSubscriptions: 3}}
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
