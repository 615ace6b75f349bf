package pubsub_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/client"
	"github.com/jsonrpc-go/jsonrpc/internal/leaktest"
	"github.com/jsonrpc-go/jsonrpc/protocol/mcp"
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

// downBroker is a Broker whose broker is away: Publish and Subscribe fail
// with err.
type downBroker struct{ err error }

func (b downBroker) Publish(context.Context, string, []byte) error { return b.err }
func (b downBroker) Subscribe(context.Context, string, func([]byte)) (func(), error) {
	return nil, b.err
}

// A Publish whose Broker fails returns an error that says the broker is
// unavailable: it matches ErrBrokerUnavailable and the Broker's error, and
// a method that returns it is answered with the code of a call the server
// could not serve for now (the call's codes' Shutdown: -32005 by default,
// -31006 under MCP's), the message "Broker unavailable" and data naming
// the subject. A context that ended is not an outage. Before, the caller
// got a bare -32000 "Server error", as for a bug (issue 34).
func TestBrokerUnavailable(t *testing.T) {
	down := errors.New("dial tcp 127.0.0.1:6379: connect: connection refused")
	topic := &pubsub.Topic{Method: "feed", Broker: downBroker{down}, Subject: "feed.values"}
	defer topic.Close()

	_, err := topic.Publish("x")
	if !errors.Is(err, pubsub.ErrBrokerUnavailable) || !errors.Is(err, down) {
		t.Fatalf("Publish with the broker down: %v; want one matching ErrBrokerUnavailable and the Broker's error", err)
	}

	srv := jsonrpc.NewServer()
	srv.MustRegister("publish", func(ctx context.Context, s string) (int, error) { return topic.PublishContext(ctx, s) })
	for _, c := range []struct {
		name string
		ctx  context.Context
		want string
	}{
		{"default codes", context.Background(), `{"jsonrpc":"2.0","error":{"code":-32005,"message":"Broker unavailable","data":{"subject":"feed.values"}},"id":1}`},
		{"MCP's codes", jsonrpc.WithCodes(context.Background(), mcp.Protocol().Codes), `{"jsonrpc":"2.0","error":{"code":-31006,"message":"Broker unavailable","data":{"subject":"feed.values"}},"id":1}`},
	} {
		if got := string(srv.Process(c.ctx, nil, []byte(`{"jsonrpc":"2.0","method":"publish","params":["x"],"id":1}`))); got != c.want {
			t.Errorf("%s: publish answered %s, want %s", c.name, got, c.want)
		}
	}

	// A Subscribe whose Broker fails says so too.
	ts := &pubsub.Topic{Method: "feed", Broker: downBroker{down}}
	srv.MustRegister("subscribe", func(ctx context.Context) (string, error) {
		s, err := ts.Subscribe(ctx)
		if err != nil {
			return "", err
		}
		return s.ID(), nil
	})
	a := &stream.Server{Server: srv}
	cl := dial(t, a)
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	_, err = client.Call[string](ctx, cl, "subscribe", nil)
	if e, ok := errors.AsType[*jsonrpc.Error](err); !ok || e.Code != jsonrpc.CodeLimitExceeded || e.Message != pubsub.BrokerUnavailable || string(e.Data) != `{"subject":"feed"}` {
		t.Errorf("subscribe with the broker down: %v", err)
	}

	// The context's own end is the context's error.
	cctx, ccancel := context.WithCancel(context.Background())
	ccancel()
	cancelled := &pubsub.Topic{Method: "feed", Broker: downBroker{cctx.Err()}}
	if _, err := cancelled.PublishContext(cctx, "x"); errors.Is(err, pubsub.ErrBrokerUnavailable) || !errors.Is(err, context.Canceled) {
		t.Errorf("Publish under a cancelled context: %v; want context.Canceled, not ErrBrokerUnavailable", err)
	}
}
