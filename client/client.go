// Package client calls JSON-RPC 2.0 servers.
//
// A Client sends calls, notifications and batches over a Channel and
// matches responses to calls by id, so that many calls may be in flight on
// one connection:
//
//	c := client.New(client.Local(srv))
//	defer c.Close()
//	sum, err := client.Call[float64](ctx, c, "add", []any{1, 2})
//
// Channels exist for an in-process server (Local), HTTP (HTTP), and byte
// streams with the framings of package framing: any stream (Stream), TCP and
// Unix sockets (Dial), TLS over TCP (DialTLS, with the client's certificate
// for a server that asks for one), and a child process's stdin and stdout
// (Command). Package ws adds WebSocket (ws.Dial). Over HTTPS and wss, TLS
// is the http.Client's (its Transport's TLSClientConfig), and a bearer
// token a header (HTTPHeader, or the websocket.DialOptions' HTTPHeader).
//
// # Calls from the server
//
// Over a channel that carries messages both ways (Stream, Dial, DialTLS,
// Command, ws.Dial), the server may call and notify the client too: a Client made
// with the Serve option answers them with its own *jsonrpc.Server, as a
// peer.Conn does (a Client is one), and UseProtocol makes it speak a
// protocol's cancel and progress notifications (lsp.Protocol(), mcp.Protocol()).
//
// # Errors
//
// A call answered with an error object returns it as a *jsonrpc.Error. A call
// whose context ends first returns the context's error, and its response, if
// it comes, is discarded. When the channel fails, every pending call and every
// later one fails with an error wrapping ErrClosed and the channel's error.
//
// # In production
//
// Timeout bounds the calls that have no deadline of their own; Retry sends
// idempotent calls again after failures that say the server did not answer
// them, with backoff; Redial makes a client that dials a new channel when
// its channel breaks, failing the calls in flight with ErrConnectionLost.
// None of them is on by default.
//
// # Interceptors
//
// Intercept wraps each call, notification and batch the client sends, on
// every channel, with the shape of the server's jsonrpc.Intercept: for
// logs, metrics and traces of outgoing calls (package otelrpc's
// InstrumentClient is one), credentials (client.WithHTTPHeader on the
// context given to next), or answers from a cache. Retry is an interceptor
// too, at its place among the options.
//
// # Concurrency
//
// A Client is safe for concurrent use by multiple goroutines.
package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/peer"
	"github.com/jsonrpc-go/jsonrpc/protocol/enumerator"
	"github.com/jsonrpc-go/jsonrpc/transport"
)

// ErrClosed is the error, wrapped with the cause, of calls made on a
// closed or broken client (peer.ErrClosed).
var ErrClosed = peer.ErrClosed

// ErrNoAnswer is the error of Result.Unmarshal for a notification of a
// batch, which gets no answer (peer.ErrNoAnswer).
var ErrNoAnswer = peer.ErrNoAnswer

// A Channel carries whole JSON-RPC messages between a client and a
// server: it is transport.Carrier, the one carrier of every connection in
// this module, a transport.Conn, whose methods are
//
//	Read() ([]byte, error)                       // the next whole message
//	Write(ctx context.Context, msg []byte) error // one whole message, or buffered for Flush
//	Flush() error                                // send what Write buffered
//	Close() error
//
// (see transport.Conn for their contracts), with what it declares of
// itself (transport.Traits). The channels of this package and ws.Dial are
// ready made; one of a program's own implements Read, Write, Flush and
// Close as transport.Conn says, and is passed as Channel{Conn: c}. A
// Channel whose messages each travel in an exchange of their own (a
// request of some protocol that carries the answer back) declares
// Traits.Exchanges, so that concurrent calls are sent at once; others are
// written by one goroutine at a time.
type Channel = transport.Carrier

// Client is a JSON-RPC 2.0 client over a Channel: a peer.Conn that calls
// its server and, with the Serve option, answers the server's calls. Use
// New to make one, or Redial for one that dials a new channel when its
// channel breaks.
type Client struct {
	opts options
	dial func(context.Context) (Channel, error) // Redial's; nil for New

	mu       sync.Mutex
	cur      *session  // the channel of the moment; nil before Redial's first dial
	closed   bool      // Close was called
	dialing  *dialCall // the dial in progress (Redial); nil if none
	dialErr  error     // the error of the last failed dial
	failures int       // dials failed in a row
	nextDial time.Time // no dial before then (backoff)
}

// session is one channel of a client and the peer.Conn over it.
type session struct {
	conn *peer.Conn
	ch   Channel
	stop context.CancelFunc
	done chan struct{} // closed when the read loop has stopped
}

func newSession(ch Channel, o peer.Options, end func(*session)) *session {
	ctx, stop := context.WithCancel(context.Background())
	s := &session{ch: ch, stop: stop, done: make(chan struct{})}
	s.conn = peer.New(enumerator.Enable(ctx), ch, o)
	go s.conn.Run(func(error) {
		if end != nil {
			end(s)
		}
		close(s.done)
	})
	return s
}

// broken reports whether the session's read loop has ended.
func (s *session) broken() bool {
	select {
	case <-s.conn.Done():
		return true
	default:
		return false
	}
}

// close closes the channel, cancels the session's methods and waits for
// the read loop to stop.
func (s *session) close() error {
	err := s.ch.Close()
	s.stop()
	<-s.done
	return err
}

// options are a client's settings.
type options struct {
	peer       peer.Options
	timeout    time.Duration
	retry      *RetryPolicy  // the last Retry's policy
	intercepts []Interceptor // outermost first; Retry's among them
	retryAt    int           // the index of Retry's interceptor; -1: none
}

// An Option configures a Client.
type Option func(*options)

// Serve makes the client answer the server's calls and notifications with
// srv. Without it, a call from the server is answered "Method not found".
func Serve(srv *jsonrpc.Server) Option { return func(o *options) { o.peer.Server = srv } }

// UseProtocol makes the client speak p's cancel and progress notifications
// (lsp.Protocol(), mcp.Protocol()): when the context of a call ends, the server is
// sent the cancel notification, and the server's cancel notifications
// cancel the client's methods.
func UseProtocol(p peer.Protocol) Option { return func(o *options) { o.peer.Protocol = p } }

func makeOptions(opts []Option) options {
	o := options{peer: peer.Options{
		Caller: true,
		Order:  peer.Concurrent,
		// A client waits for its server as long as its calls' contexts
		// say, and for pushes as long as it lives.
		Limits: transport.Limits{IdleTimeout: -1, ReadTimeout: -1},
	}, retryAt: -1}
	for _, opt := range opts {
		opt(&o)
	}
	return o
}

// New returns a client that sends over ch and starts the goroutine that
// reads what the server sends. Close the client to stop it.
func New(ch Channel, opts ...Option) *Client {
	c := &Client{opts: makeOptions(opts)}
	c.cur = newSession(ch, c.opts.peer, nil)
	return c
}

// Conn returns the client's connection, to notify the server or ask for
// progress (peer.Conn.OnProgress). For a client made by Redial it is the
// connection of the moment, which a reconnection replaces, or nil before
// the first call has dialed one.
func (c *Client) Conn() *peer.Conn {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cur == nil {
		return nil
	}
	return c.cur.conn
}

// Close closes the channel and fails the calls still pending with an error
// wrapping ErrClosed. It cancels the client's own methods and waits for
// the reading goroutine to stop.
func (c *Client) Close() error {
	c.mu.Lock()
	c.closed = true
	s := c.cur
	c.mu.Unlock()
	if s == nil {
		return nil
	}
	return s.close()
}

// A Caller calls methods of its peer: a *Client, or the *peer.Conn of a
// method's caller (peer.FromContext).
type Caller interface {
	CallRaw(ctx context.Context, method string, params any) (json.RawMessage, error)
}

// Call calls method with params and decodes its result into T. params is
// encoded with encoding/json and must encode as an array (positional
// params) or an object (named params); nil sends no params. An error
// response is returned as a *jsonrpc.Error.
func Call[T any](ctx context.Context, c Caller, method string, params any) (T, error) {
	var result T
	raw, err := c.CallRaw(ctx, method, params)
	if err != nil {
		return result, err
	}
	if err := json.Unmarshal(raw, &result); err != nil {
		return result, fmt.Errorf("jsonrpc: result of %s: %w", method, err)
	}
	return result, nil
}

// CallRaw calls method with params and returns its result as sent.
func (c *Client) CallRaw(ctx context.Context, method string, params any) (json.RawMessage, error) {
	var result json.RawMessage
	if c.plain() {
		// No interceptor and no Timeout: the one attempt, its record on
		// the stack.
		o := Outgoing{Method: method, Params: params, client: c}
		if err := c.attempt(ctx, &o); err != nil {
			return nil, err
		}
		result = o.Result
	} else {
		o := &Outgoing{Method: method, Params: params}
		if err := c.do(ctx, o); err != nil {
			return nil, err
		}
		result = o.Result
	}
	if result == nil {
		return json.RawMessage("null"), nil
	}
	return result, nil
}

// plain reports whether the client's calls go straight to their attempt:
// no interceptor (Retry's included) and no Timeout wraps them.
func (c *Client) plain() bool { return len(c.opts.intercepts) == 0 && c.opts.timeout <= 0 }

// Notify sends a notification: a call without an id, which gets no
// response. It is never retried (see Retry).
func (c *Client) Notify(ctx context.Context, method string, params any) error {
	if c.plain() {
		o := Outgoing{Method: method, Params: params, Notification: true, client: c}
		return c.attempt(ctx, &o)
	}
	return c.do(ctx, &Outgoing{Method: method, Params: params, Notification: true})
}

// A Spec is one call of a batch, as Batch takes it (it is peer.Spec, the
// type a peer.Conn's Batch takes too):
//
//	Method string // the method to call
//	Params any    // its params, as Call takes them: nil for none, a slice
//	              // or array for positional params, a map or struct for named
//	Notify bool   // send it as a notification, which gets no answer
//
// For example:
//
//	results, err := c.Batch(ctx, []client.Spec{
//		{Method: "add", Params: []any{1, 2}},
//		{Method: "log", Params: []any{"hello"}, Notify: true},
//	})
type Spec = peer.Spec

// A Result is the outcome of one call of a batch, at the index of its Spec
// in what Batch returns (it is peer.Result):
//
//	Result json.RawMessage // the result as sent, when Err is nil
//	Err    error           // the call's *jsonrpc.Error, or why no answer came
//
// Its method Unmarshal decodes the result into a value, or returns Err;
// for a notification, which gets no answer, it returns ErrNoAnswer:
//
//	var sum float64
//	if err := results[0].Unmarshal(&sum); err != nil { ... }
type Result = peer.Result

// Batch sends specs as one batch and waits for all their responses. It
// returns one Result per spec, in order (notifications get a zero Result).
// The error is about the batch as a whole: it could not be sent, or ctx
// ended first. With Retry, a batch whose methods are all idempotent is sent
// again as a whole when it failed as a whole; the error answers of single
// calls in it are never retried.
func (c *Client) Batch(ctx context.Context, specs []Spec) ([]Result, error) {
	if specs == nil {
		specs = []Spec{}
	}
	o := &Outgoing{Batch: specs}
	err := c.do(ctx, o)
	if err != nil {
		return nil, err
	}
	return o.Results, nil
}

// do sends o through the client's interceptors (Retry's among them), each
// attempt on the connection of the moment (a new one when the client
// redials), under the Timeout when ctx has no deadline.
func (c *Client) do(ctx context.Context, o *Outgoing) error {
	parent := ctx
	if d := c.opts.timeout; d > 0 {
		if _, ok := ctx.Deadline(); !ok {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, d)
			defer cancel()
		}
	}
	o.client = c
	err := c.run(ctx, o, 0)
	if err != nil && ctx != parent && parent.Err() == nil && (o.waited || errors.Is(err, context.DeadlineExceeded) && ctx.Err() != nil) {
		// The Timeout's own deadline passed.
		var last error
		if o.waited {
			last = o.last
		}
		return newTimeoutError(o.what(), c.opts.timeout, o.attempts, last)
	}
	return err
}
