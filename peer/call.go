package peer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/internal/wire"
)

// response is a decoded answer to a call of the Conn's own.
type response struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *jsonrpc.Error  `json:"error"`
}

// Call calls method on the peer with params and decodes its result into
// result (nil drops it). params is encoded with encoding/json and must
// encode as an array (positional params) or an object (named params); nil
// sends none. An error answer is returned as a *jsonrpc.Error.
//
// When ctx ends first, Call returns ctx's error at once; under a Protocol
// with a cancel notification, the Conn sends it to the peer meanwhile, on
// a goroutine of its own, and drops the answer if one comes. A method may
// call its peer under its own context only if it is registered with
// jsonrpc.Blocking; otherwise Call returns ErrNotBlocking.
func (c *Conn) Call(ctx context.Context, method string, params, result any) error {
	raw, err := c.CallRaw(ctx, method, params)
	if err != nil || result == nil {
		return err
	}
	if err := json.Unmarshal(raw, result); err != nil {
		return fmt.Errorf("jsonrpc: result of %s: %w", method, err)
	}
	return nil
}

// CallRaw is Call, returning the result as sent.
func (c *Conn) CallRaw(ctx context.Context, method string, params any) (json.RawMessage, error) {
	first, chs, err := c.register(ctx, 1)
	if err != nil {
		return nil, err
	}
	msg, err := appendRequest(nil, method, params, first)
	if err == nil {
		err = c.send(ctx, msg, false)
	}
	if err != nil {
		c.forget(first, 1, false)
		return nil, err
	}
	r, err := c.wait(ctx, first, chs[0])
	if err != nil {
		c.forget(first, 1, true)
		return nil, err
	}
	c.forget(first, 1, false)
	if r.Error != nil {
		return nil, r.Error
	}
	return r.Result, nil
}

// Notify sends the peer a notification: a call without an id, which gets
// no answer. Once the peer has ended its input (io.EOF: it sends nothing
// more, as an editor closes a server's standard input) it may still read,
// and the answers of the calls still running still go to it: so do their
// notifications, until the transport is closed. When another goroutine is
// writing to the peer and more than Limits.MaxQueued bytes wait to be
// written, Notify (and Call) waits for room first, or until ctx ends, so
// that a peer that does not read holds back whoever sends it more; a
// method that runs on the goroutine that reads the connection (one not
// registered jsonrpc.Blocking) does not wait, under its own context.
func (c *Conn) Notify(ctx context.Context, method string, params any) error {
	msg, err := appendRequest(nil, method, params, 0)
	if err != nil {
		return err
	}
	return c.send(ctx, msg, true)
}

// A Spec is one call of a batch.
type Spec struct {
	Method string
	Params any  // as for Call
	Notify bool // send as a notification, without an answer
}

// A Result is the outcome of one call of a batch.
type Result struct {
	Result json.RawMessage // the result as sent, when Err is nil
	Err    error           // a *jsonrpc.Error, or why no answer came
}

// ErrNoAnswer is the error of Result.Unmarshal for a notification of a
// batch: a notification gets no answer, so there is no result to decode.
var ErrNoAnswer = errors.New("jsonrpc: no answer: the call was sent as a notification")

// Unmarshal decodes the result into v, or returns Err, or ErrNoAnswer for
// a notification.
func (r Result) Unmarshal(v any) error {
	if r.Err != nil {
		return r.Err
	}
	if r.Result == nil {
		return ErrNoAnswer
	}
	return json.Unmarshal(r.Result, v)
}

// Batch sends specs as one batch and waits for all their answers. It
// returns one Result per spec, in order (notifications get a zero Result).
// The error is about the batch as a whole: it could not be sent, or ctx
// ended first.
func (c *Conn) Batch(ctx context.Context, specs []Spec) ([]Result, error) {
	calls := 0
	for _, s := range specs {
		if !s.Notify {
			calls++
		}
	}
	first, chs, err := c.register(ctx, calls)
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
			c.forget(first, calls, false)
			return nil, err
		}
	}
	msg = append(msg, ']')
	if err := c.send(ctx, msg, false); err != nil {
		c.forget(first, calls, false)
		return nil, err
	}
	results := make([]Result, len(specs))
	k := 0
	for i, s := range specs {
		if s.Notify {
			continue
		}
		r, err := c.wait(ctx, first+uint64(k), chs[k])
		k++
		if err != nil {
			c.forget(first, calls, true)
			return nil, err
		}
		if r.Error != nil {
			results[i].Err = r.Error
		} else {
			results[i].Result = r.Result
		}
	}
	c.forget(first, calls, false)
	return results, nil
}

// register reserves n ids for calls under ctx and returns the first, with
// a channel per id.
func (c *Conn) register(ctx context.Context, n int) (uint64, []chan response, error) {
	if ctx.Value(inlineKey{}) == c {
		return 0, nil, ErrNotBlocking
	}
	c.twoWay.Store(true)
	chs := make([]chan response, n)
	for i := range chs {
		chs[i] = make(chan response, 1)
	}
	var first uint64
	var err error
	c.update(func(st *state) {
		if err = c.err; err != nil {
			return
		}
		first = c.nextID.Add(uint64(n)) - uint64(n) + 1
		if c.pending == nil {
			c.pending = make(map[uint64]chan<- response) // on the first call
		}
		for i := range chs {
			c.pending[first+uint64(i)] = chs[i]
		}
		st.outgoing += n
	})
	if err != nil {
		return 0, nil, err
	}
	return first, chs, nil
}

// forget removes the n calls from first that have not been answered, and
// sends the peer the cancel notification of each when cancel is set.
func (c *Conn) forget(first uint64, n int, cancel bool) {
	if n == 0 {
		return
	}
	var gone []uint64
	c.update(func(st *state) {
		for i := range n {
			id := first + uint64(i)
			if _, ok := c.pending[id]; ok {
				delete(c.pending, id)
				gone = append(gone, id)
			}
		}
		st.outgoing -= n
	})
	if cancel && c.proto.CancelMethod != "" && len(gone) > 0 {
		go c.sendCancels(gone)
	}
}

// sendCancels sends the peer the cancel notification of each id.
func (c *Conn) sendCancels(ids []uint64) {
	for _, id := range ids {
		p := map[string]any{c.proto.CancelID: id}
		if c.proto.CancelReason != "" {
			p[c.proto.CancelReason] = "cancelled by the caller"
		}
		c.Notify(context.Background(), c.proto.CancelMethod, p)
	}
}

// send sends msg, a call or notification of the Conn's own: it writes it
// and flushes, or queues it behind the writer (see writeNow). A
// notification still goes once the peer's input has ended cleanly.
func (c *Conn) send(ctx context.Context, msg []byte, notify bool) error {
	if err := c.closedErr(); err != nil && (!notify || err != errClosedEOF) {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return c.writeNow(ctx, msg)
}

// wait waits for the answer on ch.
func (c *Conn) wait(ctx context.Context, id uint64, ch <-chan response) (response, error) {
	select {
	case r, ok := <-ch:
		if !ok {
			return r, c.closedErr()
		}
		return r, nil
	case <-ctx.Done():
		return response{}, ctx.Err()
	}
}

// deliver hands each response of msg, classified by handle as kind with
// the members r (the first element's, for responses in an array), to the
// call waiting for its id. Answers to calls that gave up, and answers
// without an id of ours, are dropped.
func (c *Conn) deliver(msg []byte, kind wire.MsgKind, r *wire.Request) {
	if kind == wire.MsgResponse {
		c.deliverOne(r)
		return
	}
	arr := msg[wire.SkipSpace(msg, 0):]
	var e wire.Request
	for _, isObject, pos, ok := wire.NextRequest(arr, 0, &e); ok; _, isObject, pos, ok = wire.NextRequest(arr, pos, &e) {
		if isObject {
			c.deliverOne(&e)
		}
	}
}

// deliverOne hands the response with the members r to its call.
func (c *Conn) deliverOne(r *wire.Request) {
	id, ok := wire.ParseUint(r.ID, 64)
	if !ok || r.Method != nil || r.Result == nil && r.Error == nil {
		return
	}
	c.mu.Lock()
	ch, ok := c.pending[id]
	delete(c.pending, id)
	c.mu.Unlock()
	if !ok {
		return
	}
	var resp response
	if r.Error != nil && string(r.Error) != "null" {
		resp.Error = new(jsonrpc.Error)
		if err := json.Unmarshal(r.Error, resp.Error); err != nil {
			resp.Error = jsonrpc.NewError(jsonrpc.CodeInternalError, "").WithData("the answer's error object is invalid: " + err.Error())
		}
	} else {
		resp.Result = append(json.RawMessage(nil), r.Result...)
	}
	ch <- resp
}

// appendRequest appends a request object; id 0 makes a notification.
func appendRequest(dst []byte, method string, params any, id uint64) ([]byte, error) {
	dst = append(dst, `{"jsonrpc":"2.0","method":`...)
	dst = wire.AppendQuote(dst, method)
	if params != nil {
		p, err := json.Marshal(params)
		p = wire.UnescapeHTML(p)
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
