package main

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"time"

	"github.com/jsonrpc-go/jsonrpc/natsrpc"
	"github.com/jsonrpc-go/jsonrpc/pubsub"
	"github.com/jsonrpc-go/jsonrpc/redisrpc"
	"github.com/nats-io/nats.go"
)

// brokerTimeout bounds the first connection to the -broker.
const brokerTimeout = 5 * time.Second

// dialBroker connects to the broker of -broker: nats://HOST:PORT (natsrpc)
// or redis://HOST:PORT[/DB] (redisrpc). The connection reconnects by
// itself when it is lost (NATS every 500 ms), and logs it. close closes it.
func dialBroker(ctx context.Context, rawURL string, logger *slog.Logger) (b pubsub.Broker, close func(), err error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, nil, fmt.Errorf("-broker: %w", err)
	}
	logf := func(msg string, args ...any) {
		if logger != nil {
			logger.Warn(msg, args...)
		}
	}
	switch u.Scheme {
	case "nats":
		nb, err := natsrpc.Dial(rawURL,
			nats.Timeout(brokerTimeout),
			nats.ReconnectWait(500*time.Millisecond),
			nats.DisconnectErrHandler(func(_ *nats.Conn, err error) { logf("broker disconnected", "broker", rawURL, "err", err) }),
			nats.ReconnectHandler(func(*nats.Conn) { logf("broker reconnected", "broker", rawURL) }),
			nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) {
				logf("broker error", "broker", rawURL, "err", err)
			}),
		)
		if err != nil {
			return nil, nil, fmt.Errorf("-broker %s: %w", rawURL, err)
		}
		return nb, nb.Close, nil
	case "redis", "rediss":
		rb, err := redisrpc.Dial(rawURL)
		if err != nil {
			return nil, nil, fmt.Errorf("-broker %s: %w", rawURL, err)
		}
		rb.OnError = func(subject string, err error) {
			logf("broker subscription error", "broker", rawURL, "subject", subject, "err", err)
		}
		ctx, cancel := context.WithTimeout(ctx, brokerTimeout)
		defer cancel()
		if err := rb.Client().Ping(ctx).Err(); err != nil {
			rb.Close()
			return nil, nil, fmt.Errorf("-broker %s: %w", rawURL, err)
		}
		return rb, func() { rb.Close() }, nil
	}
	return nil, nil, fmt.Errorf("-broker %s: the scheme must be nats or redis", rawURL)
}
