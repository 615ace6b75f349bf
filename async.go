package jsonrpc

import (
	"context"
	"sync/atomic"

	"github.com/jsonrpc-go/jsonrpc/internal/wire"
)

// Blocking marks a method as one that may wait (on I/O, a channel, a lock
// held elsewhere). ProcessAsync runs each call of a blocking method on a
// goroutine of its own, so that the caller is not held up; Process still runs
// it on the caller's goroutine.
func Blocking() MethodOption {
	return func(c *methodConfig) { c.blocking = true }
}

// ProcessAsync answers req, one request or a batch, like ProcessContext, and
// delivers the response by calling reply exactly once: with the response, or
// with an empty slice when there is none (a notification, a batch of
// notifications).
//
// Methods registered with Blocking run on goroutines of their own; the
// elements of a batch that call them run concurrently, and the batch's answer
// is delivered when the last one finishes, with the responses of the methods
// that did not block first. When no method blocks, reply runs on the
// caller's goroutine before ProcessAsync returns, at a cost close to
// Process. Otherwise reply runs on the goroutine of the last method to
// finish.
//
// ctx reaches every method of the call; cancelling it is how a caller stops
// waiting methods. ProcessAsync does not retain req after it returns (calls
// that run later work on a copy). The slice passed to reply is valid only
// until reply returns, and reply must not panic on another goroutine than
// the caller's.
func (s *Server) ProcessAsync(ctx context.Context, req []byte, reply func(resp []byte)) {
	if i := wire.SkipSpace(req, 0); i < len(req) && req[i] == '[' {
		s.batchAsync(ctx, req, reply)
		return
	}
	sc := scratches.get()
	var r wire.Request
	kind, err := s.cfg.scan.ScanRequest(req, &r)
	switch {
	case err != nil:
		sc.resp = s.parseError(sc.resp, req, err)
	case kind != wire.Object:
		sc.resp = appendError(sc.resp, errInvalidRequest, nil)
	default:
		m, out, ok := s.resolve(sc.resp, &r)
		switch {
		case !ok:
			sc.resp = out
		case m.blocking:
			// Run it later on a copy of the request.
			sc.req = append(sc.req[:0], req...)
			held := new(wire.Request)
			*held = r
			rebase(held, req, sc.req)
			go s.runSuspended(ctx, sc, m, held, reply)
			return
		default:
			sc.resp = s.call(ctx, sc.resp, m, &r)
		}
	}
	reply(sc.resp)
	// A reply that panics leaves sc to the garbage collector.
	scratches.put(sc)
}

func (s *Server) runSuspended(ctx context.Context, sc *scratch, m *method, r *wire.Request, reply func([]byte)) {
	sc.resp = s.call(ctx, sc.resp[:0], m, r)
	reply(sc.resp)
	scratches.put(sc)
}

// rebase moves the spans of r from old to new, a copy of old.
func rebase(r *wire.Request, old, new []byte) {
	move := func(span []byte) []byte {
		if span == nil {
			return nil
		}
		off := cap(old) - cap(span)
		return new[off : off+len(span)]
	}
	r.Version, r.Method, r.Params, r.ID, r.Value = move(r.Version), move(r.Method), move(r.Params), move(r.ID), move(r.Value)
	for i := range r.Args.Elems {
		r.Args.Elems[i] = move(r.Args.Elems[i])
	}
}

// asyncBatch collects the answers of the blocking calls of a batch.
type asyncBatch struct {
	sc      *scratch // sc.resp holds "[" and the answers so far; sc.req the request copy
	calls   []heldCall
	parts   [][]byte     // the answer of each held call, filled as it finishes
	pending atomic.Int32 // held calls still running, plus one for the dispatcher
	reply   func([]byte)
}

type heldCall struct {
	m *method
	r wire.Request
}

func (s *Server) batchAsync(ctx context.Context, req []byte, reply func([]byte)) {
	sc := scratches.get()
	var reqs [batchScan]wire.Request
	arr, n, err := s.cfg.scan.ScanBatch(req, reqs[:])
	var bad bool
	if sc.resp, bad = s.checkBatch(sc.resp, req, n, err); !bad {
		if b := s.runBatch(ctx, sc, arr, reqs[:], n, req, reply); b != nil {
			s.dispatch(ctx, b)
			return
		}
	}
	reply(sc.resp)
	scratches.put(sc)
}

// runBatch answers the batch's calls that do not block into sc.resp and
// returns the blocking ones, if any, as an asyncBatch over a copy of req.
func (s *Server) runBatch(ctx context.Context, sc *scratch, arr []byte, reqs []wire.Request, n int, req []byte, reply func([]byte)) *asyncBatch {
	var held []heldCall
	sc.resp, held = s.answerBatch(ctx, sc.resp[:0], arr, reqs, n, true)
	if held == nil {
		sc.resp = closeBatch(sc.resp, 0)
		return nil
	}
	sc.req = append(sc.req[:0], req...)
	for i := range held {
		rebase(&held[i].r, req, sc.req)
	}
	return &asyncBatch{sc: sc, calls: held, parts: make([][]byte, len(held)), reply: reply}
}

// closeBatch ends a batch answer begun with "[" at start, or removes it when
// it holds no response.
func closeBatch(dst []byte, start int) []byte {
	if len(dst) == start+1 {
		return dst[:start]
	}
	return append(dst, ']')
}

func (s *Server) dispatch(ctx context.Context, b *asyncBatch) {
	b.pending.Store(int32(len(b.calls)) + 1)
	for i := range b.calls {
		go func() {
			c := &b.calls[i]
			b.parts[i] = s.call(ctx, nil, c.m, &c.r)
			b.done()
		}()
	}
	b.done()
}

// done counts one finished participant; the last one assembles the answer
// and delivers it.
func (b *asyncBatch) done() {
	if b.pending.Add(-1) != 0 {
		return
	}
	dst := b.sc.resp
	for _, p := range b.parts {
		if len(p) == 0 {
			continue
		}
		if len(dst) > 1 {
			dst = append(dst, ',')
		}
		dst = append(dst, p...)
	}
	b.sc.resp = closeBatch(dst, 0)
	b.reply(b.sc.resp)
	scratches.put(b.sc)
}
