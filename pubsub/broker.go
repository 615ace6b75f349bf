package pubsub

import (
	"context"
	"slices"
	"sync"
)

// A Broker carries what is published to Topics between processes, so
// that a value published on one replica of a server reaches the
// subscribers of every replica. Without one (Topic.Broker nil) a Topic
// reaches the subscribers of its own process only. Modules of their own
// implement it on NATS (natsrpc) and Redis (redisrpc); MemoryBroker is
// one in memory, for tests and for Topics of one process that share a
// subject.
//
// A Broker must be safe for concurrent use by multiple goroutines.
type Broker interface {
	// Publish sends value, the JSON of a value published to a Topic, to
	// the subscribers of subject in every process, this one included.
	// It returns once the broker has taken value (or failed to): values
	// one process publishes one after another reach each subscriber in
	// that order. The Broker owns value from then on.
	Publish(ctx context.Context, subject string, value []byte) error
	// Subscribe calls deliver with each value published to subject from
	// when it returns, in the order the broker received them, from one
	// goroutine at a time, until stop is called. deliver must not keep
	// value past its return, and must not wait: a Topic's deliver only
	// queues. Subscribe must not call deliver before it returns.
	Subscribe(ctx context.Context, subject string, deliver func(value []byte)) (stop func(), err error)
}

// A MemoryBroker is a Broker in memory: what is published to a subject
// is delivered, on the publisher's goroutine, to every subscription to
// that subject in the process. NewMemoryBroker makes one.
type MemoryBroker struct {
	turn chan struct{} // held (a value in it) by whoever reads or changes subs
	subs map[string][]*memorySub
}

// NewMemoryBroker returns a MemoryBroker with no subscriptions.
func NewMemoryBroker() *MemoryBroker {
	return &MemoryBroker{turn: make(chan struct{}, 1), subs: map[string][]*memorySub{}}
}

func (b *MemoryBroker) lock()   { b.turn <- struct{}{} }
func (b *MemoryBroker) unlock() { <-b.turn }

type memorySub struct{ deliver func([]byte) }

var _ Broker = (*MemoryBroker)(nil)

// Publish calls the deliver function of each subscription to subject.
// The subscriptions of one subject receive the values of concurrent
// Publish calls in one order: the deliveries of one Publish end before
// those of the next begin.
func (b *MemoryBroker) Publish(_ context.Context, subject string, value []byte) error {
	b.lock()
	defer b.unlock()
	for _, s := range b.subs[subject] {
		s.deliver(value)
	}
	return nil
}

// Subscribe adds deliver to the subscriptions of subject.
func (b *MemoryBroker) Subscribe(_ context.Context, subject string, deliver func([]byte)) (func(), error) {
	s := &memorySub{deliver: deliver}
	b.lock()
	b.subs[subject] = append(b.subs[subject], s)
	b.unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			b.lock()
			defer b.unlock()
			b.subs[subject] = slices.DeleteFunc(b.subs[subject], func(x *memorySub) bool { return x == s })
			if len(b.subs[subject]) == 0 {
				delete(b.subs, subject)
			}
		})
	}, nil
}
