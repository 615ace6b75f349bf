// Package natsrpc carries the values of peer.Topics between processes on
// NATS (https://nats.io), so that the replicas of a server behind a load
// balancer are one set of topics: a value published on any replica
// reaches the subscribers of every one.
//
// # Use
//
// Dial the NATS server and give the Broker to each Topic:
//
//	b, err := natsrpc.Dial("nats://127.0.0.1:4222")
//	if err != nil {
//		return err
//	}
//	defer b.Close()
//	heads := &pubsub.Topic{Method: "eth_subscription", Broker: b, Subject: "heads"}
//
// The Topics of every process that share a Subject (and a NATS server or
// cluster) are then one topic. A Topic's Publish returns once the NATS
// server has routed the value, so that values published one after
// another, on one replica or on several, reach each subscriber in that
// order.
//
// # Failures
//
// NATS core publish and subscribe deliver at most once: a value
// published while a replica is away from the server is lost to that
// replica's subscribers. The connection of Dial reconnects for ever and
// resubscribes by itself; the Topic's subscribers stay subscribed across
// the outage and receive again once it has reconnected. Give the
// connection nats.DisconnectErrHandler, nats.ReconnectHandler and
// nats.ErrorHandler (slow consumers) to learn of these events.
//
// # Concurrency
//
// A Broker is safe for concurrent use by multiple goroutines. The
// deliveries of one subscription come from one goroutine, in the order
// the server received the messages.
package natsrpc
