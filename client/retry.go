package client

import (
	"context"
	"errors"
	"github.com/jsonrpc-go/jsonrpc/pubsub"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"syscall"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/peer"
)

// Defaults of RetryPolicy.
const (
	DefaultRetryAttempts   = 3                     // RetryPolicy.Attempts
	DefaultRetryBackoff    = 50 * time.Millisecond // RetryPolicy.Backoff
	DefaultRetryMaxBackoff = 2 * time.Second       // RetryPolicy.MaxBackoff
)

// shutdownData is the data, as JSON, of the error that answers a call a
// server received while shutting down and did not run.
const shutdownData = `"server shutting down"`

// A RetryPolicy says which calls Retry sends again, how often, and how long
// it waits in between.
type RetryPolicy struct {
	// Attempts is how many times a call is sent at most, the first time
	// included; 0 means DefaultRetryAttempts (3), 1 never retries.
	Attempts int

	// Backoff is the wait before the first retry, doubled before each
	// next one up to MaxBackoff; each wait is drawn at random between
	// half of it and all of it, so that clients that failed together do
	// not retry together. 0 means DefaultRetryBackoff (50 ms) and
	// DefaultRetryMaxBackoff (2 s). An HTTP 503 with a Retry-After of
	// seconds waits that long instead, up to MaxBackoff.
	Backoff    time.Duration
	MaxBackoff time.Duration

	// Idempotent reports whether a method may run more than once for one
	// call, with the effect of once: a read, or a write keyed by the
	// caller. Only the calls of such methods, and those made under a
	// context from WithIdempotent, are retried. nil: only the latter.
	Idempotent func(method string) bool
}

// Retry makes the client send an idempotent call again (see
// RetryPolicy.Idempotent and WithIdempotent) when it failed in a way that
// says the server did not answer it, and may never have received it:
//
//   - the connection could not be made: any error of a dial (connection
//     refused, no route, no such host), the dial of Redial included;
//   - the connection failed before the answer came: connection reset or
//     aborted, a broken pipe, an end of the input (io.EOF,
//     io.ErrUnexpectedEOF) in the middle of an HTTP exchange, and, for a
//     client made by Redial, the loss of its connection (ErrConnectionLost);
//   - an HTTP proxy or server answered 502 Bad Gateway, 503 Service
//     Unavailable or 504 Gateway Timeout (an *HTTPStatusError);
//   - the server answered the JSON-RPC error jsonrpc.CodeLimitExceeded
//     (-32005) with the data "server shutting down", which this library's
//     servers (stream, ws and peer) send for a call they received while
//     shutting down and did not run; under a Protocol with a code of its
//     own for that refusal (UseProtocol, peer.Protocol.Codes.Shutdown), the
//     answer with that code and the same data too (mcp.Protocol()'s
//     mcp.CodeShuttingDown);
//   - the same code with the message "Broker unavailable"
//     (pubsub.BrokerUnavailable), which a topic's publish answers while
//     its broker is away.
//
// Nothing else is retried: not any other JSON-RPC error answer, not another
// HTTP status, not an error of the call's own (params that do not encode,
// a context that ended), not a call made on a closed client, nor one of a
// client made by New whose channel broke (its connection is gone for good;
// Redial makes one that reconnects). A call that is not idempotent is
// never retried, since a failure in flight cannot tell whether it ran; nor
// is a notification, which has no answer to wait for. A batch is retried
// as a whole, when each of its methods is idempotent. The waits count in
// the call's context and in the Timeout.
//
// Retry is an interceptor (see Intercept) at its place among the options:
// the interceptors given before it see a call once, with the error of its
// last attempt; those given after it see every attempt. Given more than
// once, the last Retry replaces the earlier ones, at its own place.
func Retry(p RetryPolicy) Option {
	if p.Attempts == 0 {
		p.Attempts = DefaultRetryAttempts
	}
	if p.Backoff <= 0 {
		p.Backoff = DefaultRetryBackoff
		if p.MaxBackoff <= 0 {
			p.MaxBackoff = DefaultRetryMaxBackoff
		}
	}
	if p.MaxBackoff < p.Backoff {
		p.MaxBackoff = p.Backoff
	}
	return func(o *options) {
		o.retry = &p
		if o.retryAt >= 0 {
			o.intercepts = append(o.intercepts[:o.retryAt:o.retryAt], o.intercepts[o.retryAt+1:]...)
		}
		o.retryAt = len(o.intercepts)
		o.intercepts = append(o.intercepts, retry)
	}
}

// retry is the interceptor of Retry: it sends o again while its attempts
// fail in a way the policy retries, waiting between them.
func retry(ctx context.Context, o *Outgoing, next func(context.Context) error) error {
	c := o.client
	idempotent := c.idempotentOut(ctx, o)
	for attempt := 1; ; attempt++ {
		err := next(ctx)
		if err == nil {
			return nil
		}
		wait, again := c.retryWait(ctx, o.session, err, idempotent, attempt)
		if !again {
			return err
		}
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			o.waited, o.last = true, err
			return ctx.Err()
		}
	}
}

// idempotentOut reports whether o may be sent again under ctx: a call of
// an idempotent method, or a batch of such calls only; never a
// notification.
func (c *Client) idempotentOut(ctx context.Context, o *Outgoing) bool {
	switch {
	case o.Notification:
		return false
	case o.Batch != nil:
		for _, s := range o.Batch {
			if !c.idempotent(ctx, s.Method) {
				return false
			}
		}
		return len(o.Batch) > 0
	}
	return c.idempotent(ctx, o.Method)
}

type idempotentKey struct{}

// WithIdempotent returns a copy of ctx whose calls Retry may send again, as
// those of a method that RetryPolicy.Idempotent names.
func WithIdempotent(ctx context.Context) context.Context {
	return context.WithValue(ctx, idempotentKey{}, true)
}

// idempotent reports whether a call of method under ctx may be retried.
func (c *Client) idempotent(ctx context.Context, method string) bool {
	if c.opts.retry == nil {
		return false
	}
	if marked, _ := ctx.Value(idempotentKey{}).(bool); marked {
		return true
	}
	return c.opts.retry.Idempotent != nil && c.opts.retry.Idempotent(method)
}

// retryWait reports whether the attempt-th attempt of a call, which failed
// with err on session s (nil if none could be had), is to be retried, and
// after how long.
func (c *Client) retryWait(ctx context.Context, s *session, err error, idempotent bool, attempt int) (time.Duration, bool) {
	p := c.opts.retry
	if p == nil || !idempotent || attempt >= p.Attempts || ctx.Err() != nil || !retryable(err, shutdownCode(&c.opts.peer.Protocol)) {
		return 0, false
	}
	if c.dial == nil && s != nil && s.broken() {
		return 0, false // New's channel is gone for good
	}
	c.mu.Lock()
	closed := c.closed
	c.mu.Unlock()
	if closed {
		return 0, false
	}
	d := backoff(p.Backoff, p.MaxBackoff, attempt)
	var he *HTTPStatusError
	if errors.As(err, &he) && he.RetryAfter > d {
		d = min(he.RetryAfter, p.MaxBackoff)
	}
	return d, true
}

// backoff returns the wait after the n-th failure (n >= 1): base doubled
// n-1 times, at most limit, drawn at random from its upper half.
func backoff(base, limit time.Duration, n int) time.Duration {
	d := base
	for i := 1; i < n && d < limit; i++ {
		d *= 2
	}
	d = min(d, limit)
	if d <= 1 {
		return d
	}
	return d/2 + rand.N(d/2+1)
}

// shutdownCode returns the code with which a server under p refuses a
// call while shutting down.
func shutdownCode(p *peer.Protocol) jsonrpc.Code {
	return p.Codes.WithDefaults().Shutdown
}

// retryable reports whether err is among the failures Retry retries;
// shutdown is the code of the shutdown refusal under the client's
// Protocol, retried beside jsonrpc.CodeLimitExceeded.
func retryable(err error, shutdown jsonrpc.Code) bool {
	var je *jsonrpc.Error
	if errors.As(err, &je) {
		return (je.Code == jsonrpc.CodeLimitExceeded || je.Code == shutdown) &&
			(string(je.Data) == shutdownData || je.Message == pubsub.BrokerUnavailable)
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var he *HTTPStatusError
	if errors.As(err, &he) {
		switch he.StatusCode {
		case http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
			return true
		}
		return false
	}
	var de *dialError
	var oe *net.OpError
	switch {
	case errors.As(err, &de), errors.As(err, &oe) && oe.Op == "dial":
		return true
	case errors.Is(err, ErrConnectionLost):
		return true
	case errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET),
		errors.Is(err, syscall.ECONNABORTED), errors.Is(err, syscall.EPIPE):
		return true
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return !errors.Is(err, ErrClosed) // an HTTP exchange's, not a closed stream's
	}
	return false
}
