package client

import (
	"context"
	"encoding/json"
)

// An Outgoing describes one call, notification or batch a Client sends, to
// the interceptors around it (see Intercept). It belongs to that one
// call: an interceptor may read and change it from the goroutine that runs
// the interceptor, and must not keep it past its return.
type Outgoing struct {
	// Method is the method called or notified; "" for a batch.
	Method string

	// Params are the call's or the notification's params, as given to
	// CallRaw (Call) or Notify: nil for none, a value that encodes as an
	// array or an object otherwise. They are encoded when next sends the
	// message, so an interceptor may replace them before it calls next
	// (to add a params._meta, say).
	Params any

	// Notification reports whether the message is a notification
	// (Notify), which gets no answer.
	Notification bool

	// Batch holds the specs of a batch (Batch), non-nil for a batch and
	// nil otherwise. An interceptor may replace it before next, as Params.
	Batch []Spec

	// Result is a call's result as sent, set by next when the call
	// succeeded (nil after a failure). An interceptor that answers the
	// call itself, without next, or that drops next's error, sets it; a
	// call that succeeds with a nil Result returns the JSON null.
	Result json.RawMessage

	// Results are a batch's outcomes, one per spec, set by next as
	// Batch returns them.
	Results []Result

	client   *Client
	session  *session // of the last attempt; nil if it had none
	attempts int      // how many times the message was sent, or tried to be
	waited   bool     // Retry's wait for the next attempt was ended by ctx
	last     error    // the error of the attempt before that wait
}

// what names o in a TimeoutError: its method, or "batch".
func (o *Outgoing) what() string {
	if o.Batch != nil {
		return "batch"
	}
	return o.Method
}

// An Interceptor runs around each call, notification and batch a Client
// sends; see Intercept.
type Interceptor func(ctx context.Context, o *Outgoing, next func(ctx context.Context) error) error

// Intercept adds an interceptor: a function that runs around each call,
// notification and batch the client sends, over whatever channel it has,
// for logging, metrics, tracing, credentials, or retries of its own. It has
// the shape of the server's jsonrpc.Intercept: it is given the context of
// the call, the Outgoing that describes it and next, which sends it (through
// the interceptors given after this one) with the context it is passed and
// returns its error: nil when the call succeeded (o.Result or o.Results
// hold its outcome then), or the error the call failed with (a
// *jsonrpc.Error for an error answer). For example, credentials and a log
// of the calls that fail:
//
//	client.Intercept(func(ctx context.Context, o *client.Outgoing, next func(context.Context) error) error {
//		ctx = client.WithHTTPHeader(ctx, http.Header{"Authorization": {"Bearer " + token()}})
//		err := next(ctx)
//		if err != nil {
//			logger.Warn("call failed", "method", o.Method, "error", err)
//		}
//		return err
//	})
//
// What the interceptor returns is what the caller gets: an error fails the
// call with it, and nil succeeds with o.Result (o.Results for a batch) as
// they are then. Unlike the server's, an interceptor may call next more
// than once, each time sending the message again (Retry does so), or not at
// all, answering from o.Result itself.
//
// Several Intercept options nest: the first one given runs outermost.
// Retry is an interceptor too, at its place among the options: the
// interceptors given before it see a call once, whatever its attempts;
// those after it see each attempt. Timeout bounds them all: the context
// they are given carries its deadline. They run on the caller's goroutine;
// a panic in one reaches the caller. They do not run for the client's
// answers to the server's calls (Serve), nor for calls made directly on
// Conn. A client without interceptors pays nothing for them.
func Intercept(f Interceptor) Option {
	return func(o *options) { o.intercepts = append(o.intercepts, f) }
}

// run runs the i-th interceptor of c around o, or the attempt after the
// last one.
func (c *Client) run(ctx context.Context, o *Outgoing, i int) error {
	if i == len(c.opts.intercepts) {
		return c.attempt(ctx, o)
	}
	return c.opts.intercepts[i](ctx, o, func(ctx context.Context) error {
		return c.run(ctx, o, i+1)
	})
}

// attempt sends o once, over the channel of the moment (dialed first when
// the client redials).
func (c *Client) attempt(ctx context.Context, o *Outgoing) error {
	o.attempts++
	o.Result, o.Results = nil, nil
	s, err := c.session(ctx)
	o.session = s
	if err != nil {
		return err
	}
	switch {
	case o.Batch != nil:
		o.Results, err = s.conn.Batch(ctx, o.Batch)
	case o.Notification:
		err = s.conn.Notify(ctx, o.Method, o.Params)
	default:
		o.Result, err = s.conn.CallRaw(ctx, o.Method, o.Params)
	}
	return c.lost(s, err)
}
