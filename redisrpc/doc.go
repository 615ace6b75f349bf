// Package redisrpc carries the values of peer.Topics between processes on
// Redis publish and subscribe, so that the replicas of a server behind a
// load balancer are one set of topics: a value published on any replica
// reaches the subscribers of every one.
//
// # Use
//
// Dial the Redis server (or wrap a client with New) and give the Broker
// to each Topic:
//
//	b, err := redisrpc.Dial("redis://127.0.0.1:6379/0")
//	if err != nil {
//		return err
//	}
//	defer b.Close()
//	heads := &pubsub.Topic{Method: "eth_subscription", Broker: b, Subject: "heads"}
//
// The Topics of every process that share a Subject and a Redis server are
// then one topic: the Subject is the Redis channel. A Topic's Publish
// returns once the server has answered PUBLISH, so that values published
// one after another, on one replica or on several, reach each subscriber
// in that order.
//
// # Failures
//
// Redis publish and subscribe deliver at most once: a value published
// while a replica's subscription is away from the server is lost to that
// replica's subscribers. A subscription reconnects and resubscribes by
// itself (go-redis's PubSub), and pings the server when it has heard
// nothing for HealthCheck, to find a connection that died quietly;
// OnError reports each failure. The Topic's subscribers stay subscribed
// across an outage and receive again once it is over.
//
// # Concurrency
//
// A Broker is safe for concurrent use by multiple goroutines. The
// deliveries of one subscription come from one goroutine.
package redisrpc
