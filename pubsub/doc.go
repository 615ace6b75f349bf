// Package pubsub sends what a server publishes to the peers subscribed to
// it, over two-way connections (package peer): a Topic sends each value
// published to it to every subscribed connection as a notification, the
// shape of go-ethereum's eth_subscription,
//
//	heads := &pubsub.Topic{Method: "eth_subscription"}
//	srv.MustRegister("eth_subscribe", func(ctx context.Context, kind string) (string, error) {
//		s, err := heads.Subscribe(ctx) // the connection of the call
//		if err != nil {
//			return "", err
//		}
//		return s.ID(), nil
//	})
//	heads.Publish(block) // to every subscriber, never waiting for one
//
// and Values is a subscriber as a sequence, which a method returns to
// stream a subscription in the shape its caller's protocol gives sequence
// results. A Topic with a Broker reaches the subscribers of every process
// that shares its Subject: MemoryBroker is one in memory, and modules of
// their own carry topics on NATS (natsrpc) and Redis (redisrpc).
//
// # Bounds
//
// Publish never blocks: each connection queues at most
// transport.Limits.MaxPush notifications and MaxPushBytes bytes of them, and
// the Topic's Overflow says what happens past it (Drop, Unsubscribe). A
// connection holds at most transport.Limits.MaxSubscriptions subscriptions
// (ErrTooManySubscriptions). What is published before the answer of the
// subscribe call is on its way waits for it (peer.AfterAnswer), so that
// the peer always learns a subscription's id before its first
// notification.
//
// # Errors
//
// When a Topic's Broker fails, Publish and Subscribe return an error that
// matches ErrBrokerUnavailable (and the Broker's own error), which a
// method may return as it is: the call is answered "Broker unavailable",
// with the subject as data, under the code of a call the server could not
// serve for now (the Shutdown code of the call's connection), not as a
// bug of the method.
//
// # Concurrency
//
// A Topic, a Subscription and a MemoryBroker are safe for concurrent use
// by multiple goroutines. The package uses only the exported API of
// package peer: its seam (PushMessage, AfterAnswer, Local, OnClose,
// Limits, LimitError, LiveSequence).
package pubsub
