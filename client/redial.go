package client

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
)

// ErrConnectionLost is wrapped, with ErrClosed and the channel's error, by
// the error of the calls that a client made by Redial had in flight when
// its channel broke. Such a call may or may not have run; the client's
// later calls go over a new channel.
var ErrConnectionLost = errors.New("jsonrpc: connection lost")

// Redial returns a client whose channel dial makes, for a server over a
// stream or WebSocket that may restart or fail over:
//
//	c := client.Redial(func(ctx context.Context) (client.Channel, error) {
//		return client.Dial(ctx, "tcp", addr, nil)
//	}, client.Retry(client.RetryPolicy{Idempotent: readOnly}))
//
// It dials at its first call, not before. When the channel breaks (its
// Read fails), the calls in flight fail with an error wrapping
// ErrConnectionLost and ErrClosed, and the next call dials a new channel,
// under its own context; the calls made meanwhile wait for that dial and
// share its outcome. A failed dial fails the calls that waited for it with
// its error, and the dials after it wait first, from DefaultRetryBackoff
// (or Retry's Backoff) doubling with each failure in a row up to
// DefaultRetryMaxBackoff (or Retry's MaxBackoff), so that a server that is
// down is not dialed in a loop; a call's context ends that wait. With
// Retry, an idempotent call that failed for a lost connection or a failed
// dial is sent again over the next channel; the others fail, and it is for
// the caller to tell whether they ran.
//
// The options are New's and apply to every channel: Serve answers the
// server's calls on each. Close closes the channel of the moment and makes
// later calls fail with ErrClosed.
func Redial(dial func(ctx context.Context) (Channel, error), opts ...Option) *Client {
	return &Client{opts: makeOptions(opts), dial: dial}
}

// A dialCall is one dial of a client made by Redial.
type dialCall struct {
	done chan struct{} // closed when the dial has ended
	err  error         // its error, once done is closed
}

// A dialError is the error of Redial's dial.
type dialError struct{ err error }

func (e *dialError) Error() string { return "jsonrpc: redial: " + e.err.Error() }
func (e *dialError) Unwrap() error { return e.err }

// session returns the session the next attempt of a call is to use: New's
// channel, or Redial's channel of the moment, dialed when there is none or
// it broke.
func (c *Client) session(ctx context.Context) (*session, error) {
	if c.dial == nil {
		return c.cur, nil // New's, never replaced
	}
	c.mu.Lock()
	for {
		if c.closed {
			c.mu.Unlock()
			return nil, fmt.Errorf("%w: the client was closed", ErrClosed)
		}
		if s := c.cur; s != nil && !s.broken() {
			c.mu.Unlock()
			return s, nil
		}
		if d := c.dialing; d != nil {
			c.mu.Unlock()
			select {
			case <-d.done:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			if d.err != nil && !errors.Is(d.err, context.Canceled) && !errors.Is(d.err, context.DeadlineExceeded) {
				return nil, d.err
			}
			c.mu.Lock()
			continue // it succeeded, or its caller's context ended: look again
		}
		d := &dialCall{done: make(chan struct{})}
		c.dialing = d
		old, wait := c.cur, time.Until(c.nextDial)
		c.mu.Unlock()
		if old != nil {
			old.close() // its read loop has ended: release the channel
		}
		s, err := c.redial(ctx, wait)
		c.mu.Lock()
		c.dialing = nil
		d.err = err
		close(d.done)
		switch {
		case err != nil && ctx.Err() != nil:
			// This call's context ended the wait or the dial: not a
			// failure of the server's.
			c.mu.Unlock()
			return nil, ctx.Err()
		case err != nil:
			c.failures++
			base, limit := DefaultRetryBackoff, DefaultRetryMaxBackoff
			if p := c.opts.retry; p != nil {
				base, limit = p.Backoff, p.MaxBackoff
			}
			c.nextDial = time.Now().Add(backoff(base, limit, c.failures))
			c.mu.Unlock()
			return nil, err
		case c.closed:
			c.mu.Unlock()
			s.close()
			return nil, fmt.Errorf("%w: the client was closed", ErrClosed)
		}
		c.failures = 0
		c.cur = s
		c.mu.Unlock()
		return s, nil
	}
}

// redial waits for wait, then dials a channel and makes a session of it.
func (c *Client) redial(ctx context.Context, wait time.Duration) (*session, error) {
	if wait > 0 {
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		}
	}
	ch, err := c.dial(ctx)
	if err != nil {
		return nil, &dialError{err}
	}
	// A channel whose Read failed is closed at once, so that a broken
	// connection is not held until the next call.
	return newSession(ch, c.opts.peer, func(s *session) { s.ch.Close() }), nil
}

// lost returns the error of an attempt on session s that failed with err:
// for a client made by Redial whose channel broke meanwhile, an error
// wrapping ErrConnectionLost and ErrClosed; err otherwise.
func (c *Client) lost(s *session, err error) error {
	if err == nil || c.dial == nil {
		return err
	}
	var je *jsonrpc.Error
	if errors.As(err, &je) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err // an answer, or the call's own context
	}
	if !errors.Is(err, ErrClosed) && !s.broken() {
		return err
	}
	c.mu.Lock()
	closed := c.closed
	c.mu.Unlock()
	if closed {
		return err
	}
	if !errors.Is(err, ErrClosed) {
		err = fmt.Errorf("%w: %w", ErrClosed, err)
	}
	return fmt.Errorf("%w: %w", ErrConnectionLost, err)
}
