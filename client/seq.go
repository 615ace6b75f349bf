package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"sync"
	"time"

	"github.com/jsonrpc-go/jsonrpc/internal/wire"
	"github.com/jsonrpc-go/jsonrpc/peer"
	"github.com/jsonrpc-go/jsonrpc/protocol/enumerator"
	"github.com/jsonrpc-go/jsonrpc/protocol/progress"
)

// emptyArray reports whether the JSON array arr has no element (or is
// missing).
func emptyArray(arr []byte) bool {
	if wire.KindOf(arr) != wire.Array {
		return true
	}
	_, _, ok := wire.NextElement(arr, 0)
	return !ok
}

// CallSeq calls method with params, a method whose result is a sequence
// (see jsonrpc.Server.Register), and returns its items as they come:
//
//	for m, err := range client.CallSeq[Match](ctx, c, "search", []any{"needle"}) {
//		if err != nil { ... }
//		...
//	}
//
// Over a connection (a stream, WebSocket, a peer.Conn), the server sends
// the first items with its answer and a token, and CallSeq pulls the next
// ones as the loop takes them ($/enumerator/next, StreamJsonRpc's
// enumerator protocol), so that the server produces no more than the
// loop consumes; a loop that stops early, or whose ctx ends, ends the
// sequence on the server ($/enumerator/abort). With ReadAhead it pulls
// the next items while the loop takes the ones before. An answer that is
// one array, as a server answers over plain HTTP, yields its elements.
//
// When c is a *Client whose Protocol has partial results (lsp.Protocol()) and
// params is an object, the call carries a partialResultToken
// (peer.Conn.PartialResults): the server sends the items as they come,
// without being pulled, and CallSeq holds at most MaxPartialBuffered
// bytes of them for the loop; past that, and when the loop stops early,
// the call is cancelled, and a loop that fell behind gets
// ErrPartialOverflow. The items of the final answer, if any, come last.
//
// Each item is decoded into T with encoding/json. An error ends the
// sequence: the call's, a pull's, or an item that does not decode,
// yielded once with the zero T.
func CallSeq[T any](ctx context.Context, c Caller, method string, params any, opts ...SeqOption) iter.Seq2[T, error] {
	var o seqOptions
	for _, opt := range opts {
		opt(&o)
	}
	return func(yield func(T, error) bool) {
		var zero T
		if cl, ok := c.(*Client); ok {
			if conn := cl.Conn(); conn != nil {
				if done := callPartial(ctx, conn, method, params, yield); done {
					return
				}
			}
		}
		raw, err := c.CallRaw(ctx, method, params)
		if err != nil {
			yield(zero, err)
			return
		}
		page, err := readPage(raw)
		if err != nil {
			yield(zero, fmt.Errorf("jsonrpc: result of %s: %w", method, err))
			return
		}
		open := page.Token != nil // the server holds the sequence until it is finished or aborted
		defer func() {
			if open {
				abort(ctx, c, page.Token)
			}
		}()
		token := page.Token
		type pulled struct {
			p      seqPage
			err    error
			failed bool // the pull itself failed: the server has ended the sequence
		}
		pull := func() pulled {
			raw, err := c.CallRaw(ctx, enumerator.NextMethod, map[string]json.RawMessage{"token": token})
			if err != nil {
				return pulled{err: err, failed: true}
			}
			p, err := readPage(raw)
			if err != nil {
				err = fmt.Errorf("jsonrpc: %s of %s: %w", enumerator.NextMethod, method, err)
			}
			return pulled{p: p, err: err}
		}
		var ahead chan pulled // the pull under way while the loop takes a page (ReadAhead)
		item := new(T)        // each item is decoded here, then yielded by value
		for {
			more := open && !page.Finished
			if more && o.readAhead {
				ahead = make(chan pulled, 1)
				go func() { ahead <- pull() }()
			}
			if more, err := decodeItems(page.Values, item, yield); err != nil {
				yield(zero, fmt.Errorf("jsonrpc: item of %s: %w", method, err))
				return
			} else if !more {
				return
			}
			if !more {
				return
			}
			var r pulled
			if ahead != nil {
				r = <-ahead
			} else {
				r = pull()
			}
			page = r.p
			page.Token = token
			if r.err != nil {
				if r.failed {
					open = false // the server ends a sequence whose pull failed
				}
				yield(zero, r.err)
				return
			}
			if page.Finished || emptyArray(page.Values) {
				open = false // the server forgets a finished sequence
			}
		}
	}
}

// A SeqOption configures CallSeq.
type SeqOption func(*seqOptions)

type seqOptions struct {
	readAhead bool
}

// ReadAhead makes CallSeq pull the next items of an enumerator sequence
// while its loop takes the items of the answer before, one pull under
// way at a time as the protocol asks: the loop waits less for the
// network, and the server runs ahead of it by one answer
// (transport.Limits.MaxSeqItems items). How many items an answer carries is
// the server's choice.
func ReadAhead() SeqOption { return func(o *seqOptions) { o.readAhead = true } }

// MaxPartialBuffered bounds the bytes of partial results that CallSeq
// holds for a loop that takes them slower than the server sends them.
const MaxPartialBuffered = 16 << 20

// ErrPartialOverflow is the error CallSeq yields when the partial results
// waiting for its loop pass MaxPartialBuffered: the call is cancelled.
var ErrPartialOverflow = errors.New("jsonrpc: partial results came faster than the loop took them")

// callPartial runs the call of CallSeq with a partial-result token, when
// conn's Protocol has them and params allows, and reports whether it did.
func callPartial[T any](ctx context.Context, conn *peer.Conn, method string, params any, yield func(T, error) bool) bool {
	var (
		mu      sync.Mutex // protects the fields below
		batches []json.RawMessage
		size    int
		over    bool
	)
	ready := make(chan struct{}, 1)
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	withToken, stop, ok := progress.PartialResults(conn, params, func(v json.RawMessage) {
		mu.Lock()
		if size += len(v); size > MaxPartialBuffered {
			over = true
			cancel()
		} else {
			batches = append(batches, v)
		}
		mu.Unlock()
		select {
		case ready <- struct{}{}:
		default:
		}
	})
	if !ok {
		return false
	}
	defer stop()
	type answer struct {
		raw json.RawMessage
		err error
	}
	done := make(chan answer, 1)
	go func() {
		raw, err := conn.CallRaw(cctx, method, withToken)
		done <- answer{raw, err}
	}()
	var zero T
	item := new(T)
	each := func(batch json.RawMessage) bool {
		more, err := decodeItems(batch, item, yield)
		if err != nil {
			yield(zero, fmt.Errorf("jsonrpc: partial result of %s: %w", method, err))
		}
		return more
	}
	take := func() (json.RawMessage, bool) {
		mu.Lock()
		defer mu.Unlock()
		if len(batches) == 0 {
			return nil, over
		}
		b := batches[0]
		batches = batches[1:]
		size -= len(b)
		return b, false
	}
	for {
		select {
		case <-ready:
			for {
				b, _ := take()
				if b == nil {
					break
				}
				if !each(b) {
					return true
				}
			}
		case a := <-done:
			stop() // the answer follows every partial result of the call
			for {
				b, overflowed := take()
				if overflowed {
					yield(zero, ErrPartialOverflow)
					return true
				}
				if b == nil {
					break
				}
				if !each(b) {
					return true
				}
			}
			if a.err != nil {
				yield(zero, a.err)
				return true
			}
			if len(a.raw) > 0 && a.raw[0] == '[' {
				each(a.raw)
				return true
			}
			yield(zero, fmt.Errorf("jsonrpc: result of %s: a call with partial results is answered with an array, not %.40s", method, a.raw))
			return true
		}
	}
}

// A page is an answer of a sequence: the first ({"token", "values"}, a
// token only while there are more), or one of a pull ({"values",
// "finished"}); an array is a sequence answered whole.
type seqPage struct {
	Token    json.RawMessage `json:"token"`
	Values   json.RawMessage `json:"values"` // an array
	Finished bool            `json:"finished"`
}

func readPage(raw json.RawMessage) (seqPage, error) {
	var p seqPage
	v, err := (wire.Scanner{}).Validate(raw)
	if err != nil {
		return p, errors.New("the answer is not valid JSON")
	}
	switch wire.KindOf(v) {
	case wire.Array:
		p.Values = v
		return p, nil
	case wire.Object:
	default:
		return p, errors.New("the answer is neither an object nor an array")
	}
	// The members by their decoded names; a name given twice, its last.
	for name, at, ok := wire.NextName(v, 0); ok; name, at, ok = wire.NextName(v, at) {
		end := wire.SkipValue(v, at)
		value := v[at:end]
		switch {
		case wire.NameIs(name, "token"):
			p.Token = value
		case wire.NameIs(name, "values"):
			p.Values = value
		case wire.NameIs(name, "finished"):
			switch wire.KindOf(value) {
			case wire.True, wire.False:
				p.Finished = wire.KindOf(value) == wire.True
			case wire.Null:
			default:
				return p, errors.New("its finished is not a boolean")
			}
		}
		at = end
	}
	if k := wire.KindOf(p.Values); p.Values != nil && k != wire.Array && k != wire.Null {
		return p, errors.New("its values are not an array")
	}
	if wire.KindOf(p.Token) == wire.Null {
		p.Token = nil
	}
	return p, nil
}

// decodeItems decodes each element of the JSON array arr into *v, reset
// to the zero T first, and yields it; an arr that is null or missing has
// none. It reports whether the loop goes on: false when yield stopped it,
// or with the error of an element that does not decode.
func decodeItems[T any](arr []byte, v *T, yield func(T, error) bool) (bool, error) {
	switch k := wire.KindOf(arr); {
	case len(arr) == 0 || k == wire.Null:
		return true, nil
	case k != wire.Array:
		return false, errors.New("not an array")
	}
	var zero T
	for elem, pos, ok := wire.NextElement(arr, 0); ok; elem, pos, ok = wire.NextElement(arr, pos) {
		*v = zero
		if err := json.Unmarshal(elem, v); err != nil {
			return false, err
		}
		if !yield(*v, nil) {
			return false, nil
		}
	}
	return true, nil
}

// abort ends the sequence of token on the server, as a notification when
// c can send one, within 5 s whatever ctx says.
func abort(ctx context.Context, c Caller, token json.RawMessage) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	params := map[string]json.RawMessage{"token": token}
	if n, ok := c.(interface {
		Notify(context.Context, string, any) error
	}); ok {
		n.Notify(ctx, enumerator.AbortMethod, params)
		return
	}
	c.CallRaw(ctx, enumerator.AbortMethod, params)
}
