package jsonrpc

import (
	"context"
	"sync/atomic"

	"github.com/jsonrpc-go/jsonrpc/internal/asyncbuf"
	"github.com/jsonrpc-go/jsonrpc/internal/keys"
	"github.com/jsonrpc-go/jsonrpc/internal/wire"
)

// ProcessAsync answers req, one request or a batch, like Process, and
// delivers the response by calling reply exactly once: with the response, or
// with an empty slice when there is none (a notification, a batch of
// notifications).
//
// Methods registered with Blocking run on goroutines of their own; the
// elements of a batch that call them run concurrently, and the batch's answer
// is delivered when the last one finishes, with the responses of the methods
// that did not block first. At most Limits.MaxRunning such calls run on
// goroutines of their own at once, server-wide; past that a call runs on the
// caller's goroutine, which ProcessAsync then holds until it returns. When no method blocks, reply runs on the
// caller's goroutine before ProcessAsync returns and the response is
// appended to dst, so that reply's slice is dst[len(dst):] of the grown
// buffer and nothing is allocated when dst has room. Otherwise reply runs on
// the goroutine of the last method to finish, with a slice of a buffer of the
// server's. Large requests take turns (Limits.LargeRequest, MaxLarge).
//
// ctx reaches every method of the call; cancelling it is how a caller stops
// waiting methods. A call that runs on a goroutine of its own gets the
// context that the transport's call tracker, if ctx carries one
// (transport.WithTracker), makes for it, so that the transport can cancel
// that call alone. ProcessAsync does not retain req or dst after it returns
// (calls that run later work on a copy of req). The slice passed to reply is
// valid only until reply returns. A reply that runs on another goroutine must
// not panic.
func (s *Server) ProcessAsync(ctx context.Context, dst, req []byte, reply func(resp []byte)) {
	req = req[:len(req):len(req)] // dst may be the room after req
	if len(req) >= s.cfg.large && s.cfg.turns != nil {
		var release func()
		ctx, reply, release = s.takeTurn(ctx, reply)
		defer release()
	}
	if i := wire.SkipSpace(req, 0); i < len(req) && req[i] == '[' {
		s.batchAsync(ctx, dst, req, reply)
		return
	}
	var r wire.Request
	kind, err := s.cfg.scan.ScanRequest(req, &r)
	s.processAsync(ctx, dst, req, &r, kind, err, reply)
}

// processScanned is ProcessAsync for a single object that the caller has
// scanned already, with a scanner of the default depth, into r: a host
// that had to classify the message (a two-way connection) passes its scan
// on rather than have it made twice. It reports false, having done
// nothing, when the server's scanner is not of the default depth, and for
// large requests, which take turns.
func (s *Server) processScanned(ctx context.Context, dst, req []byte, r *wire.Request, reply func(resp []byte)) bool {
	req = req[:len(req):len(req)]
	if s.cfg.scan.Depth() != wire.DefaultMaxDepth || len(req) >= s.cfg.large && s.cfg.turns != nil {
		return false
	}
	s.processAsync(ctx, dst, req, r, wire.Object, nil, reply)
	return true
}

// processAsync answers the single document req, which the scanner found
// to be of kind (or failed on, with err), with its members in r.
func (s *Server) processAsync(ctx context.Context, dst, req []byte, r *wire.Request, kind wire.Kind, err error, reply func(resp []byte)) {
	start := len(dst)
	switch {
	case err != nil:
		dst = s.parseError(ctx, dst, req, err)
	case kind != wire.Object:
		dst = appendError(dst, errInvalidRequest, nil)
	default:
		m, out, ok := s.resolve(ctx, dst, r)
		switch {
		case !ok:
			dst = out
		case m.blocking:
			client := clientOf(ctx)
			if !s.cfg.take(client, 1, len(req)) {
				// No slot or no room for the copy, the server's or the
				// client's: it runs here (MaxRunning, MaxHeld and
				// their shares per client).
				dst = s.call(ctx, dst, m, r)
				break
			}
			// Run it later on a copy of the request.
			sc := asyncbuf.Get()
			sc.Req = wire.AppendLong(sc.Req[:0], req)
			held := new(wire.Request)
			*held = *r
			held.Rebase(req, sc.Req)
			cctx, end := keys.Begin(ctx, held.ID)
			go s.runSuspended(cctx, end, client, sc, m, held, reply)
			return
		default:
			dst = s.call(ctx, dst, m, r)
		}
	}
	reply(dst[start:])
}

func (s *Server) runSuspended(ctx context.Context, end func(), client string, sc *asyncbuf.Buf, m *method, r *wire.Request, reply func([]byte)) {
	returned := false
	sl := slotOf(m, client)
	defer func() {
		if !returned {
			// The method called runtime.Goexit: the goroutine ends, but the
			// call is still answered.
			finished(end)
			sc.Resp = goexitAnswer(sc.Resp[:0], r)
			s.cfg.give(client, sl.calls(), len(sc.Req))
			reply(sc.Resp)
		}
	}()
	sc.Resp = s.callHolding(ctx, sc.Resp[:0], m, r, sl)
	returned = true
	finished(end)
	s.cfg.give(client, sl.calls(), len(sc.Req))
	reply(sc.Resp)
	asyncbuf.Put(sc)
}

// slotOf returns the record of the share of MaxRunning that a call of m
// holds for client on a goroutine of its own, which a sequence result
// left open takes over (keepRunning): nil for a method whose result is
// not a sequence.
func slotOf(m *method, client string) *slot {
	if !m.fn.Seq {
		return nil
	}
	return &slot{client: client}
}

// calls is how many of MaxRunning the end of the call of sl gives back:
// none once a sequence result has taken its slot.
func (sl *slot) calls() int {
	if sl != nil && sl.kept {
		return 0
	}
	return 1
}

// callHolding is call for a call that holds a share of MaxRunning, sl
// (slotOf).
func (s *Server) callHolding(ctx context.Context, dst []byte, m *method, r *wire.Request, sl *slot) []byte {
	if sl == nil {
		return s.call(ctx, dst, m, r)
	}
	return s.callWithInfo(ctx, dst, m, r, sl)
}

// finished tells the transport's call tracker, if any, that a call it was
// told of has returned (keys.Begin).
func finished(end func()) {
	if end != nil {
		end()
	}
}

// goexitAnswer appends the answer to the request r whose method called
// runtime.Goexit instead of returning: an internal error, or nothing for a
// notification.
func goexitAnswer(dst []byte, r *wire.Request) []byte {
	if r.ID == nil {
		return dst
	}
	return appendError(dst, errGoexit, r.ID)
}

// asyncBatch collects the answers of the blocking calls of a batch.
type asyncBatch struct {
	srv     *Server
	sc      *asyncbuf.Buf // sc.Resp holds "[" and the answers so far; sc.Req the request copy
	calls   []heldCall
	parts   [][]byte     // the answer of each held call, filled as it finishes
	pending atomic.Int32 // held calls still running, plus one for the dispatcher
	reply   func([]byte)
	client  string // the batch's client (transport.WithClient), "" for none
	held    int    // bytes of MaxHeld the request copy holds, the client's too
	inline  bool   // no copy (MaxHeld, MaxHeldPerClient): every call runs on the dispatching goroutine
	// tooLarge answers the calls past the response limit, in the codes of
	// the batch's context.
	tooLarge *Error
}

type heldCall struct {
	m *method
	r wire.Request
}

func (s *Server) batchAsync(ctx context.Context, dst, req []byte, reply func([]byte)) {
	var reqs [batchScan]wire.Request
	arr, n, err := s.cfg.scan.ScanBatch(req, reqs[:])
	s.batchScanned(ctx, dst, req, arr, reqs[:], n, err, reply)
}

// processScannedBatch is ProcessAsync for a batch that the caller has
// scanned already with wire.Scanner.ScanBatch, of the default depth, into
// reqs (at least BatchScan of them, when the batch has that many), with
// the results arr, n and err: a two-way connection that had to classify
// the batch passes its scan on. It reports false, having done nothing,
// when the server's scanner is not of the default depth, for large
// requests, which take turns, and for fewer than BatchScan records.
func (s *Server) processScannedBatch(ctx context.Context, dst, req, arr []byte, reqs []wire.Request, n int, err error, reply func(resp []byte)) bool {
	req = req[:len(req):len(req)]
	if s.cfg.scan.Depth() != wire.DefaultMaxDepth || len(req) >= s.cfg.large && s.cfg.turns != nil || len(reqs) < batchScan {
		return false
	}
	s.batchScanned(ctx, dst, req, arr, reqs[:batchScan], n, err, reply)
	return true
}

// batchScanned answers the batch req, scanned into arr, reqs, n and err.
func (s *Server) batchScanned(ctx context.Context, dst, req, arr []byte, reqs []wire.Request, n int, err error, reply func([]byte)) {
	start := len(dst)
	if out, bad := s.checkBatch(ctx, dst, req, n, err); bad {
		reply(out[start:])
		return
	}
	out, held := s.answerBatch(ctx, dst, arr, reqs, n, true)
	if held == nil {
		reply(closeBatch(out, start)[start:])
		return
	}
	// Some calls block: move the answers so far and the request to a
	// pooled buffer, and run the held calls on it. Past MaxHeld, or the
	// client's share of it (MaxHeldPerClient), they run on this
	// goroutine, on req itself, before ProcessAsync returns.
	sc := asyncbuf.Get()
	sc.Resp = wire.AppendLong(sc.Resp[:0], out[start:])
	b := &asyncBatch{srv: s, sc: sc, calls: held, parts: make([][]byte, len(held)), reply: reply, client: clientOf(ctx), tooLarge: s.cfg.tooLarge(ctx)}
	if s.cfg.hold(b.client, len(req)) {
		b.held = len(req)
		sc.Req = wire.AppendLong(sc.Req[:0], req)
		for i := range held {
			held[i].r.Rebase(req, sc.Req)
		}
	} else {
		b.inline = true
	}
	s.dispatch(ctx, b)
}

// closeBatch ends a batch answer begun with "[" at start, or removes it when
// it holds no response.
func closeBatch(dst []byte, start int) []byte {
	if len(dst) == start+1 {
		return dst[:start]
	}
	return append(dst, ']')
}

// dispatch runs the held calls of a batch, each on a goroutine of its own
// while MaxRunning allows and the rest on the caller's goroutine, and
// delivers the answer when the last one finishes.
func (s *Server) dispatch(ctx context.Context, b *asyncBatch) {
	b.pending.Store(int32(len(b.calls)) + 1)
	for i := range b.calls {
		c := &b.calls[i]
		if b.inline || !s.cfg.acquire(b.client) {
			b.parts[i] = s.call(ctx, nil, c.m, &c.r)
			b.done()
			continue
		}
		cctx, end := keys.Begin(ctx, c.r.ID)
		go func() {
			returned := false
			sl := slotOf(c.m, b.client)
			defer func() {
				if !returned { // runtime.Goexit, as in runSuspended
					finished(end)
					b.parts[i] = goexitAnswer(nil, &c.r)
					s.cfg.give(b.client, sl.calls(), 0)
					b.done()
				}
			}()
			b.parts[i] = s.callHolding(cctx, nil, c.m, &c.r, sl)
			returned = true
			finished(end)
			s.cfg.give(b.client, sl.calls(), 0)
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
	dst := b.sc.Resp
	cf := b.srv.cfg
	over := false // the answers have passed the response limit
	for i, p := range b.parts {
		if len(p) == 0 {
			continue
		}
		if len(dst) > 1 {
			dst = append(dst, ',')
		}
		if over = over || len(dst)+len(p) > cf.maxResponse; over {
			// Past the response limit: the call has run, but its answer,
			// and every later one, is the limit error.
			dst = appendError(dst, b.tooLarge, b.calls[i].r.ID)
			continue
		}
		dst = wire.AppendLong(dst, p)
	}
	b.sc.Resp = closeBatch(dst, 0)
	if b.held > 0 {
		cf.unhold(b.client, b.held)
	}
	b.reply(b.sc.Resp)
	asyncbuf.Put(b.sc)
}

// A turn is a large request's share of MaxLarge, held while ProcessAsync
// works on it on the caller's goroutine.
type turn struct {
	cf   *config
	held atomic.Bool
}

type turnKey struct{}

// takeTurn waits for a turn for a large request (see Limits.LargeRequest),
// unless ctx is the context of a request that holds one (a ProcessAsync
// called by a method during its turn) or ctx ends first, and returns the
// context and reply to work with: the turn ends when reply is called or
// when release is, whichever comes first.
func (s *Server) takeTurn(ctx context.Context, reply func([]byte)) (context.Context, func([]byte), func()) {
	cf := s.cfg
	if t, ok := ctx.Value(turnKey{}).(*turn); ok && t.cf == cf && t.held.Load() {
		return ctx, reply, func() {}
	}
	select {
	case cf.turns <- struct{}{}:
	case <-ctx.Done():
		return ctx, reply, func() {}
	}
	t := &turn{cf: cf}
	t.held.Store(true)
	release := func() {
		if t.held.CompareAndSwap(true, false) {
			<-cf.turns
		}
	}
	return context.WithValue(ctx, turnKey{}, t), func(resp []byte) { release(); reply(resp) }, release
}
