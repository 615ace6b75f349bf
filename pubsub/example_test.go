package pubsub_test

import (
	"context"
	"fmt"
	"net"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/client"
	"github.com/jsonrpc-go/jsonrpc/framing"
	"github.com/jsonrpc-go/jsonrpc/pubsub"
	"github.com/jsonrpc-go/jsonrpc/stream"
)

// A Topic sends what is published to every subscribed connection, in
// go-ethereum's eth_subscription shape.
func ExampleTopic() {
	heads := &pubsub.Topic{Method: "eth_subscription"}
	srv := jsonrpc.NewServer()
	srv.MustRegister("eth_subscribe", func(ctx context.Context, kind string) (string, error) {
		sub, err := heads.Subscribe(ctx)
		if err != nil {
			return "", err
		}
		return sub.ID(), nil
	})
	s := &stream.Server{Server: srv}
	cc, sc := net.Pipe()
	go s.ServeConn(context.Background(), sc)
	defer s.Close()

	got := make(chan int)
	mine := jsonrpc.NewServer()
	mine.MustRegister("eth_subscription", func(p struct {
		Subscription string `json:"subscription"`
		Result       struct {
			Number int `json:"number"`
		} `json:"result"`
	}) {
		got <- p.Result.Number
	})
	c := client.New(client.Stream(cc, framing.Line), client.Serve(mine))
	defer c.Close()

	if _, err := client.Call[string](context.Background(), c, "eth_subscribe", []any{"newHeads"}); err != nil {
		fmt.Println(err)
		return
	}
	for n := range 3 {
		heads.Publish(map[string]int{"number": 100 + n})
		fmt.Println("new head", <-got)
	}
	// Output:
	// new head 100
	// new head 101
	// new head 102
}

// A subscriber of a Topic as a sequence: what is published from the call
// of Values on waits in its queue until the loop takes it. A method that
// returns the sequence streams the subscription to its caller.
func ExampleTopic_Values() {
	topic := &pubsub.Topic{Method: "update"}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	values := topic.Values(ctx)
	for _, v := range []string{"a", "b", "c"} {
		topic.Publish(v)
	}
	n := 0
	for v, err := range values {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(string(v))
		if n++; n == 3 {
			break
		}
	}
	// Output:
	// "a"
	// "b"
	// "c"
}

// Two Topics on one Broker are one topic: what either publishes reaches
// the subscribers of both, as the Topics of two replicas of a server on
// NATS or Redis do.
func ExampleMemoryBroker() {
	broker := pubsub.NewMemoryBroker()
	replicaA := &pubsub.Topic{Method: "update", Broker: broker}
	replicaB := &pubsub.Topic{Method: "update", Broker: broker}
	defer replicaA.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	values := replicaA.Values(ctx)
	replicaB.Publish(map[string]int{"block": 1})
	for v := range values {
		fmt.Println(string(v))
		break
	}
	// Output: {"block":1}
}
