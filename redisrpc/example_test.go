package redisrpc_test

import (
	"context"
	"log"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/pubsub"
	"github.com/jsonrpc-go/jsonrpc/redisrpc"
)

// A Topic on a Redis Broker: every replica of the server that runs this,
// with the same Redis server and Subject, shares its subscribers and its
// values. (It needs a Redis server, so it is compiled but not run here.)
func Example() {
	b, err := redisrpc.Dial("redis://127.0.0.1:6379/0")
	if err != nil {
		log.Fatal(err)
	}
	defer b.Close()
	heads := &pubsub.Topic{Method: "eth_subscription", Broker: b, Subject: "heads"}
	defer heads.Close()

	srv := jsonrpc.NewServer()
	srv.MustRegister("eth_subscribe", func(ctx context.Context) (string, error) {
		s, err := heads.Subscribe(ctx)
		if err != nil {
			return "", err
		}
		return s.ID(), nil
	})
	// Serve srv over a two-way transport (stream, ws); then, on any
	// replica, this reaches the subscribers of all of them:
	if _, err := heads.Publish(map[string]int{"number": 1}); err != nil {
		log.Print(err)
	}
}
