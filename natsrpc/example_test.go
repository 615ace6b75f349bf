package natsrpc_test

import (
	"context"
	"fmt"
	"time"

	"github.com/jsonrpc-go/jsonrpc/natsrpc"
	"github.com/nats-io/nats-server/v2/server"
)

// Two Brokers, as on two replicas of a server, on one NATS server: what
// one publishes reaches the subscription of the other. (A Topic with a
// Broker does this for its subscribers.)
func Example() {
	ns, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, NoLog: true, NoSigs: true})
	if err != nil {
		panic(err)
	}
	ns.Start()
	defer ns.Shutdown()
	ns.ReadyForConnections(5 * time.Second)

	a, err := natsrpc.Dial(ns.ClientURL())
	if err != nil {
		panic(err)
	}
	defer a.Close()
	b, err := natsrpc.Dial(ns.ClientURL())
	if err != nil {
		panic(err)
	}
	defer b.Close()

	got := make(chan string, 1)
	stop, err := a.Subscribe(context.Background(), "heads", func(v []byte) { got <- string(v) })
	if err != nil {
		panic(err)
	}
	defer stop()
	if err := b.Publish(context.Background(), "heads", []byte(`{"number":1}`)); err != nil {
		panic(err)
	}
	fmt.Println(<-got)
	// Output: {"number":1}
}
