package peertest

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"testing"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/client"
	"github.com/jsonrpc-go/jsonrpc/framing"
	"github.com/jsonrpc-go/jsonrpc/pubsub"
	"github.com/jsonrpc-go/jsonrpc/stream"
)

// A replica is a server whose Topic is on a Broker, as one replica of a
// service among several, served over TCP on 127.0.0.1.
type replica struct {
	topic *pubsub.Topic
	addr  string
}

// startReplica serves, over TCP, "subscribe" (the Topic's Subscribe) on
// a Topic of b with subject.
func startReplica(t *testing.T, b pubsub.Broker, subject string) *replica {
	t.Helper()
	r := &replica{topic: &pubsub.Topic{Method: "note", Broker: b, Subject: subject}}
	srv := jsonrpc.NewServer()
	srv.MustRegister("subscribe", func(ctx context.Context) (string, error) {
		s, err := r.topic.Subscribe(ctx)
		if err != nil {
			return "", err
		}
		return s.ID(), nil
	})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &stream.Server{Server: srv}
	done := make(chan error, 1)
	go func() { done <- s.Serve(l) }()
	t.Cleanup(func() {
		s.Close()
		<-done
		r.topic.Close()
	})
	r.addr = l.Addr().String()
	return r
}

// subscribe connects to the replica, subscribes, and returns the values
// of the notifications it receives.
func (r *replica) subscribe(t *testing.T) <-chan int {
	t.Helper()
	got := make(chan int, 1<<16)
	cl := jsonrpc.NewServer()
	cl.MustRegister("note", func(p struct {
		Subscription string          `json:"subscription"`
		Result       json.RawMessage `json:"result"`
	}) {
		var n int
		if json.Unmarshal(p.Result, &n) == nil {
			got <- n
		}
	})
	nc, err := net.DialTimeout("tcp", r.addr, Wait)
	if err != nil {
		t.Fatal(err)
	}
	c := client.New(client.Stream(nc, framing.Line), client.Serve(cl))
	t.Cleanup(func() { c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), Wait)
	defer cancel()
	if _, err := client.Call[string](ctx, c, "subscribe", nil); err != nil {
		t.Fatal(err)
	}
	return got
}

// expect receives want..want+n-1 from got, in order, within Wait.
func expect(t *testing.T, got <-chan int, want, n int) {
	t.Helper()
	timer := time.NewTimer(Wait)
	defer timer.Stop()
	for i := want; i < want+n; i++ {
		select {
		case v := <-got:
			if v != i {
				t.Fatalf("received %d, want %d", v, i)
			}
		case <-timer.C:
			t.Fatalf("value %d never came", i)
		}
	}
}

// BrokerReplicas checks that Topics on a and b, two Brokers on one
// message broker (two connections), are one topic: a subscriber over a
// connection to a replica with a's Topic receives, in order and once
// each, n values published alternately on a's Topic and on b's.
func BrokerReplicas(t *testing.T, a, b pubsub.Broker, n int) {
	subject := fmt.Sprintf("replicas.%d", time.Now().UnixNano())
	ra, rb := startReplica(t, a, subject), startReplica(t, b, subject)
	got := ra.subscribe(t)
	for i := range n {
		topic := ra.topic
		if i%2 == 1 {
			topic = rb.topic
		}
		if _, err := topic.Publish(i); err != nil {
			t.Fatalf("Publish %d: %v", i, err)
		}
	}
	expect(t, got, 0, n)
	select {
	case v := <-got:
		t.Fatalf("received %d past the last value", v)
	default:
	}
}

// BrokerRestart checks that delivery resumes after the message broker
// restarts: a subscriber of a Topic on a receives what is published on b
// before restart is called, and, once both Brokers have reconnected,
// what is published after. restart stops the message broker and starts
// it again at the same address. Values published while it is down may be
// lost (at most once): the test publishes probes (negative numbers) until
// one comes through, within deadline, then n values that must all come,
// in order.
func BrokerRestart(t *testing.T, a, b pubsub.Broker, restart func(), deadline time.Duration, n int) {
	subject := fmt.Sprintf("restart.%d", time.Now().UnixNano())
	ra, rb := startReplica(t, a, subject), startReplica(t, b, subject)
	got := ra.subscribe(t)
	if _, err := rb.topic.Publish(0); err != nil {
		t.Fatal(err)
	}
	expect(t, got, 0, 1)
	restart()
	start := time.Now()
	end := time.NewTimer(deadline)
	defer end.Stop()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	probe := -1
probing:
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
		err := b.Publish(ctx, subject, fmt.Appendf(nil, "%d", probe))
		cancel()
		if err == nil {
			probe--
		}
		select {
		case v := <-got:
			if v >= 0 {
				t.Fatalf("received %d, want a probe", v)
			}
			break probing
		case <-end.C:
			t.Fatalf("no value came through within %v of the restart", deadline)
		case <-tick.C:
		}
	}
	t.Logf("delivery resumed %v after the restart", time.Since(start).Round(time.Millisecond))
	for i := 1; i <= n; i++ {
		if _, err := rb.topic.Publish(i); err != nil {
			t.Fatalf("Publish %d: %v", i, err)
		}
	}
	// Probes still on their way come first.
	timer := time.NewTimer(Wait)
	defer timer.Stop()
	for i := 1; i <= n; {
		select {
		case v := <-got:
			if v < 0 && i == 1 {
				continue
			}
			if v != i {
				t.Fatalf("received %d, want %d", v, i)
			}
			i++
		case <-timer.C:
			t.Fatalf("value %d never came", i)
		}
	}
}
