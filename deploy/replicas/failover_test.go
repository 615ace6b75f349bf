package replicas

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/client"
	"github.com/jsonrpc-go/jsonrpc/deploy/internal/proc"
	"github.com/jsonrpc-go/jsonrpc/ws"
)

// A note is a notification of the feed: its subscription and its value.
type note struct {
	sub string
	n   int
}

// TestReplicaKilled: a subscriber's replica is killed in the middle of a
// run of publishes through another replica; the subscriber's client
// (client.Redial) dials the next replica and subscribes again, and from
// the answer of that subscribe on receives every value published, in
// order: what is published while it is connected all arrives.
func TestReplicaKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a broker and three jsonrpcd per broker")
	}
	for _, b := range brokers {
		t.Run(b.name, func(t *testing.T) {
			baddr := proc.FreeAddr(t)
			b.start(t, baddr)
			bin := proc.Jsonrpcd(t)
			var addrs [3]string
			var procs [3]*process
			for i := range addrs {
				addrs[i] = proc.FreeAddr(t)
				procs[i] = start(t, addrs[i], bin, "-http", addrs[i], "-tcp", "", "-log-level", "warn", "-broker", b.url(baddr))
			}
			notes := make(chan note, 1<<17)
			handler := jsonrpc.NewServer()
			handler.MustRegister("subscription", func(p struct {
				Subscription string `json:"subscription"`
				Result       string `json:"result"`
			}) {
				var n int
				fmt.Sscan(p.Result, &n)
				notes <- note{p.Subscription, n}
			})
			var dials atomic.Int64
			sub := client.Redial(func(ctx context.Context) (client.Channel, error) {
				// A first (replica 0), then B (replica 1) and A in turn.
				return ws.Dial(ctx, "ws://"+addrs[(dials.Add(1)-1)%2]+"/ws", nil)
			}, client.Serve(handler))
			defer sub.Close()
			pub := client.Redial(func(ctx context.Context) (client.Channel, error) {
				return ws.Dial(ctx, "ws://"+addrs[2]+"/ws", nil)
			})
			defer pub.Close()
			subscribe := func() string {
				t.Helper()
				deadline := time.Now().Add(wait)
				for {
					ctx, cancel := context.WithTimeout(context.Background(), time.Second)
					id, err := client.Call[string](ctx, sub, "subscribe", nil)
					cancel()
					if err == nil {
						return id
					}
					if time.Now().After(deadline) {
						t.Fatalf("subscribe: %v", err)
					}
				}
			}
			first := subscribe()

			// The publisher: one value after another through C, until
			// stopAt, bounded in count and time.
			var stopAt atomic.Int64
			stopAt.Store(1 << 30)
			pubDone := make(chan error, 1)
			go func() {
				end := time.Now().Add(4 * wait)
				for i := 0; int64(i) < stopAt.Load(); i++ {
					if i >= 200000 || time.Now().After(end) {
						pubDone <- errors.New("the publisher reached its bound")
						return
					}
					ctx, cancel := context.WithTimeout(context.Background(), wait)
					_, err := client.Call[int](ctx, pub, "publish", []any{fmt.Sprint(i), 1})
					cancel()
					if err != nil {
						pubDone <- fmt.Errorf("publish %d: %w", i, err)
						return
					}
				}
				pubDone <- nil
			}()
			recv := func() note {
				t.Helper()
				select {
				case n := <-notes:
					return n
				case <-time.After(wait):
					t.Fatalf("no notification within %v", wait)
				}
				return note{}
			}
			// Before the kill: 0, 1, 2... on the first subscription.
			for i := range 1000 {
				if n := recv(); n != (note{first, i}) {
					t.Fatalf("before the kill: %v, want %d on %s", n, i, first)
				}
			}
			procs[0].Kill()
			second := subscribe()
			if second == first {
				t.Fatal("the same subscription after the replica died")
			}
			// Drain what came on the first subscription; the first value
			// of the second is where it begins.
			var k int
			for {
				n := recv()
				if n.sub == second {
					k = n.n
					break
				}
			}
			last := int64(k + 1000)
			stopAt.Store(last)
			for i := k + 1; int64(i) < last; i++ {
				if n := recv(); n != (note{second, i}) {
					t.Fatalf("after the redial: %v, want %d on %s", n, i, second)
				}
			}
			if err := <-pubDone; err != nil {
				t.Fatal(err)
			}
			t.Logf("replica A killed after 1000 values; resubscribed on B from value %d, and received it and the next %d in order", k, last-int64(k)-1)
		})
	}
}
