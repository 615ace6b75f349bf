package redisrpc

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/jsonrpc-go/jsonrpc/pubsub"
	"github.com/redis/go-redis/v9"
)

// Defaults of a Broker's zero fields.
const (
	// DefaultHealthCheck is how long a subscription waits for a message
	// before it pings the server, to learn that its connection is gone:
	// 3 s, as go-redis's PubSub.Channel.
	DefaultHealthCheck = 3 * time.Second
	// DefaultRetry is the longest wait between a subscription's attempts
	// to reconnect: 1 s. The first waits 10 ms, each next one twice as
	// long.
	DefaultRetry = time.Second
)

// A Broker is a pubsub.Broker on Redis publish and subscribe: a subject of
// a Topic is a Redis channel, a value a message's payload. New makes one
// on a client; Dial on a URL. A Broker is safe for concurrent use by
// multiple goroutines.
//
// Delivery is that of Redis publish and subscribe: at most once. What is
// published while a subscription's connection is away from the server
// does not reach it. Each subscription holds a connection of its own
// (a redis.PubSub), which reconnects, when the server has gone, and
// resubscribes. A subscription whose client reads too slowly is
// disconnected by the server (client-output-buffer-limit pubsub), and
// reconnects as it does from any other failure.
type Broker struct {
	c   redis.UniversalClient
	own bool // Close closes c

	// HealthCheck is how long a subscription waits for a message before
	// it pings the server; 0 means DefaultHealthCheck.
	HealthCheck time.Duration
	// Retry is the longest wait between attempts to reconnect a
	// subscription; 0 means DefaultRetry.
	Retry time.Duration
	// OnError, if set, is called with each error a subscription meets
	// on its connection before it reconnects; it must not wait.
	OnError func(subject string, err error)
	// Set the fields above before the Broker is used.
}

var _ pubsub.Broker = (*Broker)(nil)

// New returns a Broker on c (a *redis.Client, *redis.ClusterClient or
// other redis.UniversalClient). Close does not close c.
func New(c redis.UniversalClient) *Broker { return &Broker{c: c} }

// Dial returns a Broker on a client of the server at url, such as
// redis://127.0.0.1:6379/0 (redis.ParseURL). It connects when first
// used; Close closes the client.
func Dial(url string) (*Broker, error) {
	opt, err := redis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("redisrpc: %w", err)
	}
	return &Broker{c: redis.NewClient(opt), own: true}, nil
}

// Client returns the Broker's client.
func (b *Broker) Client() redis.UniversalClient { return b.c }

// Close closes the client of a Broker made by Dial; it does nothing to
// that of New. It does not end the subscriptions: stop them first.
func (b *Broker) Close() error {
	if b.own {
		return b.c.Close()
	}
	return nil
}

// Publish sends value to subject (PUBLISH) and returns when the server
// has answered: it has then sent value to the subscriptions it holds, so
// that what any process publishes after that reaches them after value.
// go-redis retries a publish that failed on the connection (its
// MaxRetries), so that a value may then reach subscribers twice.
func (b *Broker) Publish(ctx context.Context, subject string, value []byte) error {
	if err := b.c.Publish(ctx, subject, value).Err(); err != nil {
		return fmt.Errorf("redisrpc: publishing on %q: %w", subject, err)
	}
	return nil
}

// Subscribe subscribes to subject (SUBSCRIBE) on a connection of its own
// and returns once the server has confirmed it. A goroutine then calls
// deliver with the payload of each message, in the order the server sent
// them, until stop, which waits for it to end: deliver is never called
// after stop has returned, and stop must not be called from deliver.
// When the connection fails the goroutine reconnects and resubscribes,
// waiting between attempts up to Retry.
func (b *Broker) Subscribe(ctx context.Context, subject string, deliver func(value []byte)) (func(), error) {
	ps := b.c.Subscribe(ctx)
	if err := ps.Subscribe(ctx, subject); err != nil {
		ps.Close()
		return nil, fmt.Errorf("redisrpc: subscribing to %q: %w", subject, err)
	}
	for {
		m, err := ps.Receive(ctx)
		if err != nil {
			ps.Close()
			return nil, fmt.Errorf("redisrpc: subscribing to %q: %w", subject, err)
		}
		if s, ok := m.(*redis.Subscription); ok && s.Kind == "subscribe" && s.Channel == subject {
			break
		}
	}
	s := &subscription{b: b, ps: ps, subject: subject, deliver: deliver, quit: make(chan struct{}), done: make(chan struct{})}
	go s.receive()
	var once sync.Once
	return func() {
		once.Do(func() {
			close(s.quit)
			ps.Close()
			<-s.done
		})
	}, nil
}

// A subscription is one of Subscribe: its goroutine, receive, reads its
// PubSub.
type subscription struct {
	b       *Broker
	ps      *redis.PubSub
	subject string
	deliver func([]byte)
	quit    chan struct{} // closed by stop
	done    chan struct{} // closed when receive returns
}

func (s *subscription) receive() {
	defer close(s.done)
	health := s.b.HealthCheck
	if health <= 0 {
		health = DefaultHealthCheck
	}
	maxRetry := s.b.Retry
	if maxRetry <= 0 {
		maxRetry = DefaultRetry
	}
	ctx := context.Background()
	retry := 10 * time.Millisecond
	for {
		m, err := s.ps.ReceiveTimeout(ctx, health)
		select {
		case <-s.quit:
			return
		default:
		}
		if err != nil {
			if ne, ok := errors.AsType[net.Error](err); ok && ne.Timeout() {
				// Nothing for a while: a ping tells a live connection from
				// a dead one, which go-redis then replaces.
				if err = s.ps.Ping(ctx); err == nil {
					continue
				}
			}
			if s.b.OnError != nil {
				s.b.OnError(s.subject, err)
			}
			t := time.NewTimer(retry)
			select {
			case <-s.quit:
				t.Stop()
				return
			case <-t.C:
			}
			retry = min(2*retry, maxRetry)
			continue
		}
		retry = 10 * time.Millisecond
		if msg, ok := m.(*redis.Message); ok {
			s.deliver([]byte(msg.Payload))
		}
	}
}
