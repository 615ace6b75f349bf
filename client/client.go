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
// streams with the framings of package stream: any stream (Stream), TCP and
// Unix sockets (Dial), and a child process's stdin and stdout (Command).
// Package ws adds WebSocket (ws.Dial).
//
// # Errors
//
// A call answered with an error object returns it as a *jsonrpc.Error. A call
// whose context ends first returns the context's error, and its response, if
// it comes, is discarded. When the channel fails, every pending call and every
// later one fails with an error wrapping ErrClosed and the channel's error.
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
	"strconv"
	"sync"

	"github.com/jsonrpc-go/jsonrpc"
)

// ErrClosed is the error of calls made on a closed or broken client.
var ErrClosed = errors.New("jsonrpc: client closed")

// A Channel carries whole JSON-RPC messages between a client and a server.
// Send may be called by several goroutines at once (a channel over one
// stream serializes them); Recv is called by one goroutine at a time, and
// may run while Send does. Close unblocks a pending Recv.
type Channel interface {
	// Send sends one message: a request, a notification or a batch.
	Send(ctx context.Context, msg []byte) error
	// Recv returns the next message from the server; it is valid until the
	// next call of Recv.
	Recv() ([]byte, error)
	// Close closes the channel.
	Close() error
}

// Client is a JSON-RPC 2.0 client over a Channel. Use New to make one.
type Client struct {
	ch Channel

	mu      sync.Mutex // protects the fields below
	pending map[uint64]chan<- *response
	nextID  uint64
	err     error // set once the client is closed or broken

	done chan struct{} // closed when the reader has stopped
}

// response is a decoded response object.
type response struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *jsonrpc.Error  `json:"error"`
}

// New returns a client that sends over ch and starts the goroutine that
// reads its responses. Close the client to stop it.
func New(ch Channel) *Client {
	c := &Client{ch: ch, pending: map[uint64]chan<- *response{}, done: make(chan struct{})}
	go c.read()
	return c
}

// Close closes the channel and fails the calls still pending with
// ErrClosed. It waits for the reading goroutine to stop.
func (c *Client) Close() error {
	err := c.ch.Close()
	c.fail(ErrClosed)
	<-c.done
	return err
}

// fail marks the client broken with err and fails every pending call.
func (c *Client) fail(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err == nil {
		c.err = err
	}
	for id, ch := range c.pending {
		close(ch)
		delete(c.pending, id)
	}
}

func (c *Client) read() {
	defer close(c.done)
	for {
		msg, err := c.ch.Recv()
		if err != nil {
			c.fail(fmt.Errorf("%w: %w", ErrClosed, err))
			return
		}
		var resps []*response
		if len(msg) > 0 && msg[0] == '[' {
			if json.Unmarshal(msg, &resps) != nil {
				continue
			}
		} else {
			r := new(response)
			if json.Unmarshal(msg, r) != nil {
				continue
			}
			resps = []*response{r}
		}
		for _, r := range resps {
			c.deliver(r)
		}
	}
}

// deliver hands a response to the call waiting for its id. Responses to
// calls that gave up, and responses without a usable id, are dropped.
func (c *Client) deliver(r *response) {
	id, err := strconv.ParseUint(string(r.ID), 10, 64)
	if err != nil {
		return
	}
	c.mu.Lock()
	ch, ok := c.pending[id]
	delete(c.pending, id)
	c.mu.Unlock()
	if ok {
		ch <- r
	}
}

// register reserves n ids and returns the first, with a channel per id.
func (c *Client) register(n int) (uint64, []chan *response, error) {
	chs := make([]chan *response, n)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return 0, nil, c.err
	}
	first := c.nextID + 1
	c.nextID += uint64(n)
	for i := range chs {
		chs[i] = make(chan *response, 1)
		c.pending[first+uint64(i)] = chs[i]
	}
	return first, chs, nil
}

func (c *Client) forget(first uint64, n int) {
	c.mu.Lock()
	for i := range n {
		delete(c.pending, first+uint64(i))
	}
	c.mu.Unlock()
}

func (c *Client) send(ctx context.Context, msg []byte) error {
	c.mu.Lock()
	err := c.err
	c.mu.Unlock()
	if err != nil {
		return err
	}
	return c.ch.Send(ctx, msg)
}

// wait waits for the response on ch.
func (c *Client) wait(ctx context.Context, ch <-chan *response) (*response, error) {
	select {
	case r, ok := <-ch:
		if !ok {
			c.mu.Lock()
			err := c.err
			c.mu.Unlock()
			return nil, err
		}
		return r, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// appendRequest appends a request object; id 0 makes a notification.
func appendRequest(dst []byte, method string, params any, id uint64) ([]byte, error) {
	name, err := json.Marshal(method)
	if err != nil {
		return dst, err
	}
	dst = append(dst, `{"jsonrpc":"2.0","method":`...)
	dst = append(dst, name...)
	if params != nil {
		p, err := json.Marshal(params)
		if err != nil {
			return dst, fmt.Errorf("jsonrpc: params of %s: %w", method, err)
		}
		if len(p) == 0 || (p[0] != '[' && p[0] != '{') {
			if string(p) != "null" {
				return dst, fmt.Errorf("jsonrpc: params of %s must encode as an array or an object, not %s", method, p)
			}
		} else {
			dst = append(dst, `,"params":`...)
			dst = append(dst, p...)
		}
	}
	if id != 0 {
		dst = append(dst, `,"id":`...)
		dst = strconv.AppendUint(dst, id, 10)
	}
	return append(dst, '}'), nil
}

// Call calls method with params and decodes its result into T. params is
// encoded with encoding/json and must encode as an array (positional
// params) or an object (named params); nil sends no params. An error
// response is returned as a *jsonrpc.Error.
func Call[T any](ctx context.Context, c *Client, method string, params any) (T, error) {
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
	first, chs, err := c.register(1)
	if err != nil {
		return nil, err
	}
	msg, err := appendRequest(nil, method, params, first)
	if err == nil {
		err = c.send(ctx, msg)
	}
	if err != nil {
		c.forget(first, 1)
		return nil, err
	}
	r, err := c.wait(ctx, chs[0])
	if err != nil {
		c.forget(first, 1)
		return nil, err
	}
	if r.Error != nil {
		return nil, r.Error
	}
	return r.Result, nil
}

// Notify sends a notification: a call without an id, which gets no
// response.
func (c *Client) Notify(ctx context.Context, method string, params any) error {
	msg, err := appendRequest(nil, method, params, 0)
	if err != nil {
		return err
	}
	return c.send(ctx, msg)
}

// A Spec is one call of a batch.
type Spec struct {
	Method string
	Params any  // as for Call
	Notify bool // send as a notification, without a response
}

// A Result is the outcome of one call of a batch.
type Result struct {
	Result json.RawMessage // the result as sent, when Err is nil
	Err    error           // a *jsonrpc.Error, or why no response came
}

// Unmarshal decodes the result into v, or returns Err.
func (r Result) Unmarshal(v any) error {
	if r.Err != nil {
		return r.Err
	}
	return json.Unmarshal(r.Result, v)
}

// Batch sends specs as one batch and waits for all their responses. It
// returns one Result per spec, in order (notifications get a zero Result).
// The error is about the batch as a whole: it could not be sent, or ctx
// ended first.
func (c *Client) Batch(ctx context.Context, specs []Spec) ([]Result, error) {
	calls := 0
	for _, s := range specs {
		if !s.Notify {
			calls++
		}
	}
	first, chs, err := c.register(calls)
	if err != nil {
		return nil, err
	}
	msg := []byte{'['}
	id := first
	for i, s := range specs {
		if i > 0 {
			msg = append(msg, ',')
		}
		reqID := uint64(0)
		if !s.Notify {
			reqID = id
			id++
		}
		if msg, err = appendRequest(msg, s.Method, s.Params, reqID); err != nil {
			c.forget(first, calls)
			return nil, err
		}
	}
	msg = append(msg, ']')
	if err := c.send(ctx, msg); err != nil {
		c.forget(first, calls)
		return nil, err
	}
	results := make([]Result, len(specs))
	k := 0
	for i, s := range specs {
		if s.Notify {
			continue
		}
		r, err := c.wait(ctx, chs[k])
		k++
		if err != nil {
			c.forget(first, calls)
			return nil, err
		}
		if r.Error != nil {
			results[i].Err = r.Error
		} else {
			results[i].Result = r.Result
		}
	}
	return results, nil
}
