package pubsub_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/jsonrpc-go/jsonrpc/client"
	"github.com/jsonrpc-go/jsonrpc/internal/leaktest"
	"github.com/jsonrpc-go/jsonrpc/pubsub"
	"github.com/jsonrpc-go/jsonrpc/stream"
)

// TestBrokerReplicas: two servers ("replicas"), each with its own Topic on
// one Broker, are one topic: a subscriber on replica a receives, in order
// and once each, what is published on a and on b, and a replica's Publish
// hands the value to the Broker instead of counting subscribers.
func TestBrokerReplicas(t *testing.T) {
	leaktest.Check(t)
	b := pubsub.NewMemoryBroker()
	ta := &pubsub.Topic{Method: "eth_subscription", Broker: b, Subject: "heads"}
	tb := &pubsub.Topic{Method: "eth_subscription", Broker: b, Subject: "heads"}
	defer ta.Close()
	defer tb.Close()
	a := &stream.Server{Server: ethServer(ta, nil)}
	got := make(chan int, 64)
	c := dial(t, a, client.Serve(headsClient(got)))
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	if _, err := client.Call[string](ctx, c, "eth_subscribe", []any{"newHeads"}); err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		topic := ta
		if i%2 == 1 {
			topic = tb // no subscriber of its own: it has not joined the Broker
		}
		if n, err := topic.Publish(map[string]int{"number": i}); n != 0 || err != nil {
			t.Fatalf("Publish = %d, %v; want 0, nil with a Broker", n, err)
		}
	}
	for i := range 20 {
		select {
		case n := <-got:
			if n != i {
				t.Fatalf("notification %d is %d", i, n)
			}
		case <-ctx.Done():
			t.Fatalf("notification %d never came", i)
		}
	}
	if ta.Len() != 1 || tb.Len() != 0 {
		t.Fatalf("Len %d and %d, want 1 and 0", ta.Len(), tb.Len())
	}
}

// failingBroker refuses every subscription.
type failingBroker struct{ pubsub.Broker }

var errBrokerDown = errors.New("broker down")

func (failingBroker) Subscribe(context.Context, string, func([]byte)) (func(), error) {
	return nil, errBrokerDown
}

// TestBrokerSubscribeFails: a subscription the Broker refuses fails with
// its error, and the Topic holds nothing for it.
func TestBrokerSubscribeFails(t *testing.T) {
	topic := &pubsub.Topic{Method: "m", Broker: failingBroker{}}
	s := &stream.Server{Server: ethServer(topic, nil)}
	c := dial(t, s)
	_, err := client.Call[string](context.Background(), c, "eth_subscribe", []any{"newHeads"})
	if err == nil {
		t.Fatal("subscribed through a broker that refuses")
	}
	for v, err := range topic.Values(context.Background()) {
		if !errors.Is(err, errBrokerDown) {
			t.Fatalf("Values yielded %s, %v; want %v", v, err, errBrokerDown)
		}
	}
	if topic.Len() != 0 {
		t.Fatalf("%d subscriptions held", topic.Len())
	}
}

// TestBrokerValues: a subscriber of Values on one replica receives what
// another replica publishes through the Broker, in order.
func TestBrokerValues(t *testing.T) {
	leaktest.Check(t)
	b := pubsub.NewMemoryBroker()
	ta := &pubsub.Topic{Method: "m", Broker: b}
	tb := &pubsub.Topic{Method: "m", Broker: b}
	defer ta.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	values := ta.Values(ctx)
	for i := range 10 {
		if _, err := tb.Publish(i); err != nil {
			t.Fatal(err)
		}
	}
	n := 0
	for v, err := range values {
		if err != nil || string(v) != fmt.Sprint(n) {
			t.Fatalf("value %d: %s, %v", n, v, err)
		}
		if n++; n == 10 {
			break
		}
	}
	if ta.Len() != 0 {
		t.Fatalf("%d subscriptions after the loop stopped", ta.Len())
	}
}

// awayBroker takes no value until its context ends.
type awayBroker struct{ pubsub.Broker }

func (awayBroker) Publish(ctx context.Context, _ string, _ []byte) error {
	<-ctx.Done()
	return ctx.Err()
}

// TestPublishContext: the context of PublishContext bounds the Broker's
// Publish.
func TestPublishContext(t *testing.T) {
	topic := &pubsub.Topic{Method: "m", Broker: awayBroker{}}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := topic.PublishContext(ctx, 1); !errors.Is(err, context.Canceled) {
		t.Fatalf("PublishContext to a broker that is away: %v, want context.Canceled", err)
	}
}
