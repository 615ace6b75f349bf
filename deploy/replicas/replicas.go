// Package replicas holds the test of several jsonrpcd behind no proxy at
// all, sharing the demo feed through a message broker (jsonrpcd -broker):
// NATS (nats-server) or Redis (redis-server), both real processes. It
// has no code of its own; see its test.
package replicas
