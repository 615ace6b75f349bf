package natsrpc

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/jsonrpc-go/jsonrpc/pubsub"
	"github.com/nats-io/nats.go"
)

// DefaultFlushTimeout bounds the round trip of Publish and Subscribe when
// their context has no deadline: 5 s.
const DefaultFlushTimeout = 5 * time.Second

// A Broker is a pubsub.Broker on NATS core publish and subscribe: a
// subject of a Topic is a NATS subject, and a value a message's data.
// New makes one on a connection; Dial connects one that reconnects by
// itself. A Broker is safe for concurrent use by multiple goroutines.
//
// Delivery is that of NATS core: at most once. What is published while
// a subscriber's connection is away from the server does not reach it;
// nats.go resubscribes when it is back. A subscriber that reads slower
// than values come meets the connection's pending limits
// (nats.Subscription.SetPendingLimits), past which NATS drops messages
// and reports nats.ErrSlowConsumer to the connection's error handler.
type Broker struct {
	nc  *nats.Conn
	own bool // Close closes nc
	// FlushTimeout bounds the round trip of Publish and Subscribe when
	// their context has no deadline (a Topic's Publish has none); 0 means
	// DefaultFlushTimeout. Set it before the Broker is used.
	FlushTimeout time.Duration
}

var _ pubsub.Broker = (*Broker)(nil)

// New returns a Broker that publishes and subscribes on nc, with nc's own
// options (reconnects among them). Close does not close nc.
func New(nc *nats.Conn) *Broker { return &Broker{nc: nc} }

// Dial connects to the NATS server at url (such as nats://127.0.0.1:4222,
// or a comma-separated list of servers) and returns a Broker on that
// connection. The connection reconnects for ever, every 2 s by default,
// and resubscribes when it is back (nats.MaxReconnects(-1)); opts come
// after these defaults, so they may change them. Close closes it.
func Dial(url string, opts ...nats.Option) (*Broker, error) {
	all := append([]nats.Option{
		nats.Name("jsonrpc natsrpc"),
		nats.MaxReconnects(-1),
		nats.ReconnectWait(2 * time.Second),
	}, opts...)
	nc, err := nats.Connect(url, all...)
	if err != nil {
		return nil, fmt.Errorf("natsrpc: %w", err)
	}
	return &Broker{nc: nc, own: true}, nil
}

// Conn returns the Broker's NATS connection.
func (b *Broker) Conn() *nats.Conn { return b.nc }

// Close closes the connection of a Broker made by Dial, which ends its
// subscriptions; it does nothing to that of New.
func (b *Broker) Close() {
	if b.own {
		b.nc.Close()
	}
}

// flush waits until the server has processed what was sent on the
// connection before it, within ctx's deadline or FlushTimeout.
func (b *Broker) flush(ctx context.Context) error {
	if _, ok := ctx.Deadline(); ok {
		return b.nc.FlushWithContext(ctx)
	}
	d := b.FlushTimeout
	if d <= 0 {
		d = DefaultFlushTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	return b.nc.FlushWithContext(ctx)
}

// Publish publishes value on subject and waits, within ctx's deadline or
// FlushTimeout, for the server's answer to a PING sent after it: when it
// returns nil the server has routed value to the subscriptions it holds,
// so that what any process publishes after that reaches them after
// value. While the connection is reconnecting, value waits in nats.go's
// reconnect buffer and Publish waits for the reconnection; an error
// (such as a timeout) does not mean value was not sent, nor that it was.
func (b *Broker) Publish(ctx context.Context, subject string, value []byte) error {
	if err := b.nc.Publish(subject, value); err != nil {
		return fmt.Errorf("natsrpc: publishing on %q: %w", subject, err)
	}
	if err := b.flush(ctx); err != nil {
		return fmt.Errorf("natsrpc: publishing on %q: %w", subject, err)
	}
	return nil
}

// Subscribe subscribes to subject and waits, as Publish does, until the
// server holds the subscription. deliver is called with each message's
// data, on the subscription's own goroutine (nats.go's), never before
// Subscribe returns nor after stop has returned; stop must not be called
// from deliver. The subscription lasts across reconnections, until stop
// or the connection's Close.
func (b *Broker) Subscribe(ctx context.Context, subject string, deliver func(value []byte)) (func(), error) {
	s := &subscription{ready: make(chan struct{})}
	sub, err := b.nc.Subscribe(subject, func(m *nats.Msg) {
		<-s.ready
		s.mu.Lock()
		defer s.mu.Unlock()
		if !s.stopped {
			deliver(m.Data)
		}
	})
	if err != nil {
		return nil, fmt.Errorf("natsrpc: subscribing to %q: %w", subject, err)
	}
	s.sub = sub
	if err := b.flush(ctx); err != nil {
		s.stop()
		close(s.ready)
		return nil, fmt.Errorf("natsrpc: subscribing to %q: %w", subject, err)
	}
	close(s.ready)
	return s.stop, nil
}

// A subscription is one of Subscribe.
type subscription struct {
	sub   *nats.Subscription
	ready chan struct{} // closed when Subscribe returns

	mu      sync.Mutex // protects the field below, and is held while deliver runs
	stopped bool
}

func (s *subscription) stop() {
	s.sub.Unsubscribe()
	s.mu.Lock()
	s.stopped = true
	s.mu.Unlock()
}
