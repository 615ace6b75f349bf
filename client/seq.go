package client

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"time"

	"github.com/jsonrpc-go/jsonrpc/peer"
)

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
// sequence on the server ($/enumerator/abort). An answer that is one
// array, as a server answers over plain HTTP, yields its elements.
//
// Each item is decoded into T with encoding/json. An error ends the
// sequence: the call's, a pull's, or an item that does not decode,
// yielded once with the zero T.
func CallSeq[T any](ctx context.Context, c Caller, method string, params any) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var zero T
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
		for {
			for _, v := range page.Values {
				var item T
				if err := json.Unmarshal(v, &item); err != nil {
					yield(zero, fmt.Errorf("jsonrpc: item of %s: %w", method, err))
					return
				}
				if !yield(item, nil) {
					return
				}
			}
			if !open || page.Finished {
				return
			}
			raw, err := c.CallRaw(ctx, peer.SeqNextMethod, map[string]json.RawMessage{"token": page.Token})
			if err != nil {
				open = false // the server ends a sequence whose pull failed
				yield(zero, err)
				return
			}
			token := page.Token
			if page, err = readPage(raw); err != nil {
				page.Token = token
				yield(zero, fmt.Errorf("jsonrpc: %s of %s: %w", peer.SeqNextMethod, method, err))
				return
			}
			page.Token = token
			if page.Finished || len(page.Values) == 0 {
				open = false // the server forgets a finished sequence
			}
		}
	}
}

// A page is an answer of a sequence: the first ({"token", "values"}, a
// token only while there are more), or one of a pull ({"values",
// "finished"}); an array is a sequence answered whole.
type page struct {
	Token    json.RawMessage   `json:"token"`
	Values   []json.RawMessage `json:"values"`
	Finished bool              `json:"finished"`
}

func readPage(raw json.RawMessage) (page, error) {
	var p page
	if len(raw) > 0 && raw[0] == '[' {
		err := json.Unmarshal(raw, &p.Values)
		return p, err
	}
	if err := json.Unmarshal(raw, &p); err != nil {
		return p, err
	}
	if string(p.Token) == "null" {
		p.Token = nil
	}
	return p, nil
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
		n.Notify(ctx, peer.SeqAbortMethod, params)
		return
	}
	c.CallRaw(ctx, peer.SeqAbortMethod, params)
}
