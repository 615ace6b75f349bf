package client

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/transport"
)

// queue holds the messages a channel has received and not yet handed to
// Read.
type queue struct {
	in     chan []byte
	closed chan struct{}
	once   sync.Once
}

func newQueue() queue {
	return queue{in: make(chan []byte, 64), closed: make(chan struct{})}
}

// put queues a copy of msg, unless the channel is closed.
func (q *queue) put(msg []byte) {
	if len(msg) == 0 {
		return
	}
	select {
	case q.in <- bytes.Clone(msg):
	case <-q.closed:
	}
}

// Read returns the next message received.
func (q *queue) Read() ([]byte, error) {
	select {
	case m := <-q.in:
		return m, nil
	case <-q.closed:
		return nil, io.EOF
	}
}

// Flush does nothing: each message is sent at once.
func (q *queue) Flush() error { return nil }

func (q *queue) Close() error {
	q.once.Do(func() { close(q.closed) })
	return nil
}

// Local returns a channel to srv in the same process: each message is
// answered by srv.ProcessAsync, with the context of the Write that carried
// it, so a call's context reaches its method.
func Local(srv *jsonrpc.Server) Channel {
	return exchanges(&local{srv: srv, queue: newQueue()})
}

// exchanges is the Channel of c, whose messages each travel in an exchange
// of their own: concurrent calls are sent at once.
func exchanges(c transport.Conn) Channel {
	return Channel{Conn: c, Traits: transport.Traits{Exchanges: true}}
}

type local struct {
	srv *jsonrpc.Server
	queue
}

func (l *local) Write(ctx context.Context, msg []byte) error {
	select {
	case <-l.closed:
		return io.ErrClosedPipe
	default:
	}
	l.srv.ProcessAsync(ctx, nil, msg, l.put)
	return nil
}

// HTTP returns a channel that POSTs each message to url with hc (nil means
// http.DefaultClient). Calls run concurrently, each in its own HTTP request;
// the context of a call is the context of its request, and a call whose
// context ends returns the context's error. Close cancels the requests in
// flight, whose calls fail with ErrClosed.
//
// Each request has Content-Type application/json, Accept application/json
// and text/event-stream, the headers of the HTTPHeader options, and those
// of the call's context (WithHTTPHeader). An answer that is an event
// stream, as a Streamable HTTP server (package streamhttp, MCP's
// transport) sends while a method reports progress or notifies before it
// answers, is read as it comes: each event's message reaches the client
// as if it had come on a stream connection (progress to OnProgress,
// notifications and calls to the client's Server), the answer last. A
// call whose context ends closes its stream, which such a server takes as
// cancellation. 202 Accepted and 204 No Content answer messages that have
// no answer.
//
// A server that answers with an Mcp-Session-Id header has begun a
// session (MCP 2025-11-25's, begun by initialize; package streamhttp's
// SessionMethod): the channel sends the id with every request after,
// opens the session's GET stream for what the server sends outside any
// call (unless HTTPNoGetStream), resumes a stream whose connection ends
// before its answer with a GET naming its last event (Last-Event-ID),
// after the server's retry delay, and ends the session with a DELETE on
// Close. A request the server answers 404 to the id has ended its
// session: its error wraps ErrSessionEnded, and the channel forgets the
// id. HTTPSessionID tells the id. Headers a protocol asks for on every
// request, such as MCP's MCP-Protocol-Version, are the caller's to send
// (HTTPHeader).
func HTTP(url string, hc *http.Client, opts ...HTTPOption) Channel {
	if hc == nil {
		hc = http.DefaultClient
	}
	ctx, cancel := context.WithCancel(context.Background())
	h := &httpChannel{url: url, hc: hc, queue: newQueue(), closing: ctx, cancel: cancel}
	for _, o := range opts {
		o(h)
	}
	return exchanges(h)
}

// An HTTPOption configures a channel made by HTTP.
type HTTPOption func(*httpChannel)

// HTTPHeader sends the headers h with every request of the channel, beside
// Content-Type (which they cannot replace). Its values replace those of
// earlier HTTPHeader options for the same keys. h is copied.
func HTTPHeader(h http.Header) HTTPOption {
	h = h.Clone()
	return func(c *httpChannel) {
		if c.header == nil {
			c.header = http.Header{}
		}
		for k, v := range h {
			c.header[http.CanonicalHeaderKey(k)] = v
		}
	}
}

type headerKey struct{}

// WithHTTPHeader returns a copy of ctx whose calls over an HTTP channel send
// the headers h, for example an Authorization of one user: a key of h
// replaces the values the channel (HTTPHeader) or an outer WithHTTPHeader
// gives it; Content-Type is always application/json. For a batch, the
// context of the batch gives the headers. h is copied. Other channels
// ignore it.
func WithHTTPHeader(ctx context.Context, h http.Header) context.Context {
	merged := http.Header{}
	if outer, ok := ctx.Value(headerKey{}).(http.Header); ok {
		for k, v := range outer {
			merged[k] = v
		}
	}
	for k, v := range h.Clone() {
		merged[http.CanonicalHeaderKey(k)] = v
	}
	return context.WithValue(ctx, headerKey{}, merged)
}

// An HTTPStatusError is the error of a call over HTTP answered with a
// status other than 200 OK (the answer) and 204 No Content (the answer to
// notifications only): the server, or a proxy before it, refused the
// request or failed. Retry retries 502, 503 and 504.
type HTTPStatusError struct {
	StatusCode int    // 503
	Status     string // "503 Service Unavailable"
	URL        string // the channel's
	// RetryAfter is the Retry-After header's delay, when it gave one in
	// seconds.
	RetryAfter time.Duration
}

func (e *HTTPStatusError) Error() string {
	return fmt.Sprintf("jsonrpc: HTTP %s from %s", e.Status, e.URL)
}

// sendError returns the error of a request that failed: ctx's error when
// the call's context ended, an error wrapping ErrClosed when the channel was
// closed, and err otherwise.
func (h *httpChannel) sendError(ctx context.Context, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return ctxErr
	}
	if h.closing.Err() != nil {
		return fmt.Errorf("%w: %w", ErrClosed, err)
	}
	return err
}
