package jsonrpc

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"
	"unsafe"

	"github.com/jsonrpc-go/jsonrpc/internal/keys"
	"github.com/jsonrpc-go/jsonrpc/internal/wire"
)

// Process answers the request document req (one request object or a batch)
// and returns dst with the response appended. It appends nothing for a
// notification or a batch of notifications. Methods that take a context get
// one derived from ctx, carrying their Call; cancelling ctx is how a caller
// stops waiting methods.
//
// Process is safe for concurrent use by multiple goroutines. It does not
// retain req or dst, and never writes to req: dst may share its array, as
// the room after it (req[len(req):]).
func (s *Server) Process(ctx context.Context, dst, req []byte) []byte {
	req = req[:len(req):len(req)] // dst may be the room after req
	if i := wire.SkipSpace(req, 0); i < len(req) && req[i] == '[' {
		return s.batch(ctx, dst, req)
	}
	var r wire.Request
	kind, err := s.cfg.scan.ScanRequest(req, &r)
	switch {
	case err != nil:
		return s.parseError(ctx, dst, req, err)
	case kind == wire.Object:
		return s.handle(ctx, dst, &r)
	}
	return appendError(dst, errInvalidRequest, nil)
}

// ProcessString is Process for strings: it returns the response, or "" for
// a notification or a batch of notifications.
func (s *Server) ProcessString(ctx context.Context, req string) string {
	in := unsafe.Slice(unsafe.StringData(req), len(req))
	out := s.Process(ctx, make([]byte, 0, 64+len(req)), in)
	if len(out) == 0 {
		return ""
	}
	// out is not referenced elsewhere: hand it over without a copy.
	return unsafe.String(unsafe.SliceData(out), len(out))
}

func (s *Server) parseError(ctx context.Context, dst, req []byte, cause error) []byte {
	if l := s.cfg.logger; l != nil {
		l.LogAttrs(ctx, slog.LevelWarn, "parse error", slog.Any("error", cause), slog.Int("bytes", len(req)))
	}
	e := errParse
	if h := s.cfg.onParseError; h != nil {
		c := *errParse // the hook may modify what it is given
		e = rewrite(e, func() *Error { return h(req, cause, &c) })
	}
	return appendError(dst, e, nil)
}

// batchScan is how many requests of a batch are scanned in the validating
// pass; the members of later ones are found in a second pass.
const batchScan = 16

func (s *Server) batch(ctx context.Context, dst, req []byte) []byte {
	var reqs [batchScan]wire.Request
	arr, n, err := s.cfg.scan.ScanBatch(req, reqs[:])
	if out, bad := s.checkBatch(ctx, dst, req, n, err); bad {
		return out
	}
	start := len(dst)
	dst, _ = s.answerBatch(ctx, dst, arr, reqs[:], n, false)
	return closeBatch(dst, start)
}

// checkBatch appends the answer to a batch that cannot run (invalid JSON,
// empty, over the limit) and reports whether it did.
func (s *Server) checkBatch(ctx context.Context, dst, req []byte, n int, err error) ([]byte, bool) {
	switch {
	case err != nil:
		return s.parseError(ctx, dst, req, err), true
	case n == 0:
		return appendError(dst, errInvalidRequest, nil), true
	case n > s.cfg.maxBatch:
		e := errInvalidRequest.WithData(fmt.Sprintf("batch of %d requests exceeds the limit of %d", n, s.cfg.maxBatch))
		return appendError(dst, e, nil), true
	}
	return dst, false
}

// answerBatch appends "[" and the answers of the n requests of the batch arr
// to dst, without the closing bracket; reqs holds the first scanned requests.
// With hold set, calls of blocking methods are not run but returned.
func (s *Server) answerBatch(ctx context.Context, dst, arr []byte, reqs []wire.Request, n int, hold bool) ([]byte, []heldCall) {
	start := len(dst)
	dst = append(dst, '[')
	var held []heldCall
	pos := 0
	over := false // the answers have passed the response limit
	for k := range n {
		r := &reqs[k%len(reqs)]
		if k >= len(reqs) {
			var elem []byte
			elem, _, pos, _ = wire.NextRequest(arr, pos, r)
			r.Value = elem
		}
		mark := len(dst)
		if len(dst) > start+1 {
			dst = append(dst, ',')
		}
		before := len(dst)
		if r.Value[0] != '{' {
			dst = appendError(dst, errInvalidRequest, nil)
		} else if m, out, ok := s.resolve(ctx, dst, r); !ok {
			dst = out
		} else if over {
			if r.ID != nil {
				dst = appendError(dst, s.cfg.tooLarge(ctx), r.ID)
			}
		} else if hold && m.blocking {
			held = append(held, heldCall{m: m, r: *r})
		} else {
			dst = s.call(ctx, dst, m, r)
			if len(dst)-start > s.cfg.maxResponse {
				// This answer passes the limit: it and the later calls
				// are answered with the limit error, and not run.
				over = true
				dst = dst[:before]
				if r.ID != nil {
					dst = appendError(dst, s.cfg.tooLarge(ctx), r.ID)
				}
			}
		}
		if len(dst) == before {
			dst = dst[:mark]
		}
		if k == len(reqs)-1 {
			// Position the second pass after the last scanned element.
			pos = cap(arr) - cap(r.Value) + len(r.Value)
		}
	}
	return dst, held
}

// handle answers one request object.
func (s *Server) handle(ctx context.Context, dst []byte, r *wire.Request) []byte {
	m, out, ok := s.resolve(ctx, dst, r)
	if !ok {
		return out
	}
	return s.call(ctx, dst, m, r)
}

// resolve checks the request envelope and finds its method. When the request
// cannot be called it returns ok == false and dst with the answer appended
// (nothing for a notification of an unknown method).
func (s *Server) resolve(ctx context.Context, dst []byte, r *wire.Request) (m *method, out []byte, ok bool) {
	id := r.ID
	if id != nil {
		switch wire.KindOf(id) {
		case wire.String, wire.Number, wire.Null:
		default:
			return nil, appendError(dst, errInvalidRequest, nil), false
		}
	}
	if r.Dup {
		return nil, appendError(dst, errInvalidRequest, nil), false
	}
	if p := r.Params; p != nil && p[0] != '[' && p[0] != '{' {
		if p[0] != 'n' || !s.cfg.nullParams && ctx.Value(keys.NullParams{}) == nil {
			return nil, appendError(dst, errInvalidRequest, id), false
		}
		r.Params, r.Args = nil, wire.Args{} // null, taken as absent (AcceptNullParams)
	}
	if !r.Checked && (!isVersion2(r.Version) || wire.KindOf(r.Method) != wire.String) {
		return nil, appendError(dst, errInvalidRequest, id), false
	}
	name := r.Method[1 : len(r.Method)-1]
	if !r.Checked {
		var buf [64]byte
		for _, c := range name {
			if c == '\\' {
				name = wire.AppendUnquoted(buf[:0], name)
				break
			}
		}
	}
	if m = s.lookup(name); m == nil {
		m = connMethod(ctx, name)
	}
	if m == nil {
		if id == nil {
			return nil, dst, false
		}
		return nil, appendMethodNotFound(dst, name, id), false
	}
	return m, dst, true
}

// connMethod returns the method name of the protocol of the connection of
// ctx (keys.Methods), or nil: for the methods the server lacks.
func connMethod(ctx context.Context, name []byte) *method {
	if look, ok := ctx.Value(keys.Methods{}).(keys.MethodLookup); ok {
		m, _ := look(name).(*method)
		return m
	}
	return nil
}

// call runs a resolved request and appends its response to dst.
func (s *Server) call(ctx context.Context, dst []byte, m *method, r *wire.Request) []byte {
	if s.cfg.nexts != nil || m.call {
		return s.callWithInfo(ctx, dst, m, r, nil)
	}
	id := r.ID
	start := len(dst)
	out, err := s.invoke(ctx, m, append(dst, wire.ResultPrefix...), r.Params, &r.Args)
	switch {
	case id == nil:
		return dst[:start]
	case err != nil:
		return appendError(dst[:start], toError(ctx, err, s.cfg), id)
	}
	return s.limit(ctx, wire.AppendIDEnd(out, id), start, id)
}

// limit returns dst, whose response to the request id begins at start, or
// with that response replaced by the limit error when it is over the
// response limit.
func (s *Server) limit(ctx context.Context, dst []byte, start int, id []byte) []byte {
	if len(dst)-start <= s.cfg.maxResponse {
		return dst
	}
	return appendError(dst[:start], s.cfg.tooLarge(ctx), id)
}

func isVersion2(v []byte) bool {
	if string(v) == `"2.0"` {
		return true
	}
	if wire.KindOf(v) != wire.String {
		return false
	}
	// An escaped spelling of "2.0" is still "2.0".
	var buf [16]byte
	return len(v) < 40 && string(wire.AppendUnquoted(buf[:0], v[1:len(v)-1])) == "2.0"
}

// invoke calls the method, turning a panic into a *PanicError, once the
// method's policy, if it has one, lets the Principal of ctx call it.
func (s *Server) invoke(ctx context.Context, m *method, dst, params []byte, args *wire.Args) (out []byte, err error) {
	if m.guard != nil {
		if err := m.guard.check(ctx, s.cfg); err != nil {
			return dst, err
		}
	}
	defer func() {
		if v := recover(); v != nil {
			pe := &PanicError{Value: v, Stack: debug.Stack()}
			s.logPanic(ctx, m.name, false, pe)
			out, err = dst, pe
		}
	}()
	return m.fn.Invoke(ctx, dst, params, args)
}

// logPanic logs a recovered panic of the method or, when interceptor is
// set, of an interceptor of the call of the method (see UseLogger).
func (s *Server) logPanic(ctx context.Context, method string, interceptor bool, pe *PanicError) {
	l := s.cfg.logger
	if l == nil {
		return
	}
	msg := "method panicked"
	if interceptor {
		msg = "interceptor panicked"
	}
	l.LogAttrs(ctx, slog.LevelError, msg, slog.String("method", method), slog.Any("panic", pe.Value), slog.String("stack", string(pe.Stack)))
}
