package redisrpc_test

import (
	"testing"
	"time"

	"github.com/jsonrpc-go/jsonrpc/internal/peertest"
	"github.com/jsonrpc-go/jsonrpc/redisrpc"
)

// dial returns a Broker on a client of its own of the server at addr
// that reconnects its subscriptions quickly.
func dial(t *testing.T, addr string) *redisrpc.Broker {
	t.Helper()
	b, err := redisrpc.Dial("redis://" + addr)
	if err != nil {
		t.Fatal(err)
	}
	b.Retry = 50 * time.Millisecond
	t.Cleanup(func() { b.Close() })
	return b
}

// TestReplicas: two replicas on two clients are one topic.
func TestReplicas(t *testing.T) {
	addr, _ := startRedis(t)
	peertest.BrokerReplicas(t, dial(t, addr), dial(t, addr), 2000)
}

// TestRestart: delivery resumes when the server restarts on the same
// port: the subscription reconnects and resubscribes by itself (go-redis
// PubSub), the publisher's client reconnects.
func TestRestart(t *testing.T) {
	addr, stop := startRedis(t)
	peertest.BrokerRestart(t, dial(t, addr), dial(t, addr), func() {
		stop()
		startRedisOn(t, addr)
	}, 10*time.Second, 100)
}
