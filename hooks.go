package jsonrpc

import (
	"context"
	"encoding/json"
	"runtime/debug"
	"sync"

	"github.com/jsonrpc-go/jsonrpc/internal/wire"
)

// OnPreProcess sets a hook that runs before each method call. A non-nil
// error aborts the call and becomes its outcome; so does an error set with
// Call.SetError.
func OnPreProcess(f func(ctx context.Context, c *Call) error) Option {
	return func(cf *config) { cf.pre = f }
}

// OnPostProcess sets a hook that runs after each method call, with the call
// and its outcome: the JSON result, or the error object the call will answer
// with. Both are copies, valid until the hook returns: changing them changes
// nothing. A non-nil error it returns, or sets with Call.SetError, replaces
// the outcome.
func OnPostProcess(f func(ctx context.Context, c *Call, result json.RawMessage, err *Error) error) Option {
	return func(cf *config) { cf.post = f }
}

// OnError sets a hook that sees every error a method call ends with (its
// returned error, a pending error, a param error, a panic as *PanicError) as
// cause, with a copy of the error object mapped from it, and returns the
// error object to answer with (nil keeps the mapped one).
func OnError(f func(ctx context.Context, c *Call, cause error, e *Error) *Error) Option {
	return func(cf *config) { cf.onError = f }
}

// OnParseError sets a hook that sees each request document that is not valid
// JSON, with the syntax error as cause, and returns the error object to
// answer with (by default CodeParseError without data).
func OnParseError(f func(req []byte, cause error, e *Error) *Error) Option {
	return func(cf *config) { cf.onParseError = f }
}

// resultCopies pools the copies of results that OnPostProcess hooks see;
// copies over maxResultCopy are not kept.
var resultCopies = sync.Pool{New: func() any { b := make([]byte, 0, 256); return &b }}

const maxResultCopy = 64 << 10

// Intercept adds a function that runs around each method call, hooks
// included: it is given the call's context and Call, and next, which runs the
// call (OnPreProcess, the method, OnError, OnPostProcess) with the context it
// is passed and returns the error object the call answers with, or nil when
// it answers with a result (a notification answers with neither, but next
// still reports its outcome). The context passed to next must be ctx or
// derived from it, so that the method and the hooks find the Call with
// CallOf; it is how an interceptor hands the method a context of its own,
// such as one carrying a tracing span.
//
// An interceptor must call next once, before it returns. When it returns
// without calling next the call answers with CodeInternalError; a second
// call of next returns the first one's outcome without running the call
// again. An interceptor that panics is recovered, and the call answers with
// the *PanicError unless next had already run. Several Intercept options
// nest: the first one given runs outermost. A server with no interceptor
// pays nothing for the option; with one, a call allocates one value more
// than with hooks alone (next).
func Intercept(f func(ctx context.Context, c *Call, next func(ctx context.Context) *Error)) Option {
	return func(cf *config) {
		outer := cf.intercept
		if outer == nil {
			cf.intercept = f
			return
		}
		cf.intercept = func(ctx context.Context, c *Call, next func(context.Context) *Error) {
			outer(ctx, c, func(ctx context.Context) *Error {
				var e *Error
				ran := false
				f(ctx, c, func(ctx context.Context) *Error {
					if !ran {
						ran = true
						e = next(ctx)
					}
					return e
				})
				if !ran {
					return errNotCalled
				}
				return e
			})
		}
	}
}

// errNotCalled answers a call whose interceptor did not call next.
var errNotCalled = NewError(CodeInternalError, "").WithData("the call's interceptor did not run it")

// callWithInfo runs a call with its Call in the context, the interceptors
// and the hooks.
func (s *Server) callWithInfo(ctx context.Context, dst []byte, m *method, r *wire.Request) []byte {
	call := Call{server: s, method: m.name, id: r.ID, params: r.Params, request: r.Value, parent: ctx}
	start := len(dst)
	var e *Error
	if s.cfg.intercept != nil {
		// The call's state moves to the heap with its context, so that
		// next, which the interceptor may keep, holds nothing of the
		// caller's stack.
		ic := &intercepted{callCtx: callCtx{Context: ctx, call: call}, s: s, m: m, params: r.Params, args: r.Args, dst: dst}
		dst, e = ic.intercept()
	} else {
		c := &callCtx{Context: ctx, call: call}
		dst, e = s.run(c, &c.call, dst, m, r.Params, &r.Args)
	}
	switch {
	case r.ID == nil:
		return dst[:start]
	case e != nil:
		return appendError(dst[:start], e, r.ID)
	}
	return s.limit(wire.AppendIDEnd(dst, r.ID), start, r.ID)
}

// intercepted is a call that runs under an interceptor: its context and
// what next needs to run it.
type intercepted struct {
	callCtx
	s      *Server
	m      *method
	params []byte
	args   wire.Args
	dst    []byte
	e      *Error
	ran    bool // next has run the call
}

// intercept runs the call under the server's interceptor.
func (ic *intercepted) intercept() (out []byte, e *Error) {
	start := len(ic.dst)
	defer func() {
		switch v := recover(); {
		case v == nil:
		case ic.ran: // the call has its outcome
			out, e = ic.dst, ic.e
		default:
			pe := &PanicError{Value: v, Stack: debug.Stack()}
			ic.s.logPanic(&ic.callCtx, ic.m.name, "Intercept", pe)
			out, e = ic.dst[:start], toError(pe, ic.s.cfg.details)
		}
	}()
	ic.s.cfg.intercept(&ic.callCtx, &ic.call, ic.next)
	if !ic.ran {
		return ic.dst[:start], errNotCalled
	}
	return ic.dst, ic.e
}

// next is the interceptor's next: it runs the call, once.
func (ic *intercepted) next(ctx context.Context) *Error {
	if !ic.ran {
		ic.ran = true
		ic.dst, ic.e = ic.s.run(ctx, &ic.call, ic.dst, ic.m, ic.params, &ic.args)
	}
	return ic.e
}

// run runs a call and its hooks with the context ctx, which carries call
// (the method's params are params, and args their scanned elements),
// and returns dst with the result appended, or the error object to answer
// with (dst is then as it was given).
func (s *Server) run(ctx context.Context, call *Call, dst []byte, m *method, params []byte, args *wire.Args) ([]byte, *Error) {
	cf := s.cfg
	start := len(dst)
	var err error
	if cf.pre != nil {
		err = s.protect(ctx, call, "OnPreProcess", func() error { return cf.pre(ctx, call) })
		if pending := call.takeErr(); pending != nil {
			err = pending
		}
	}
	resStart := start
	if err == nil {
		dst = append(dst, wire.ResultPrefix...)
		resStart = len(dst)
		dst, err = s.invoke(ctx, m, dst, params, args)
		if pending := call.takeErr(); pending != nil {
			err = pending
		}
	}
	var e *Error
	if err != nil {
		dst = dst[:start]
		e = toError(err, s.cfg.details)
		if cf.onError != nil {
			mapped := *e // the hook may change what it is given
			e = rewrite(e, func() *Error { return cf.onError(ctx, call, err, &mapped) })
		}
	}
	if cf.post != nil {
		// The hook sees copies: what it does to them cannot reach the
		// response, nor the error objects other calls answer with.
		var (
			result json.RawMessage
			rc     *[]byte
			ec     *Error
		)
		if e == nil {
			rc = resultCopies.Get().(*[]byte)
			*rc = append((*rc)[:0], dst[resStart:]...)
			result = (*rc)[:len(*rc):len(*rc)]
		} else {
			copied := *e
			ec = &copied
		}
		perr := s.protect(ctx, call, "OnPostProcess", func() error { return cf.post(ctx, call, result, ec) })
		if rc != nil && cap(*rc) <= maxResultCopy {
			resultCopies.Put(rc)
		}
		if pending := call.takeErr(); pending != nil {
			perr = pending
		}
		if perr != nil {
			dst = dst[:start]
			e = toError(perr, cf.details)
		}
	}
	if e != nil {
		dst = dst[:start]
	}
	return dst, e
}

// rewrite runs an error-rewriting hook and returns its error object, or e
// when the hook returns nil or panics.
func rewrite(e *Error, hook func() *Error) (out *Error) {
	defer func() {
		if recover() != nil {
			out = e
		}
	}()
	if he := hook(); he != nil {
		return he
	}
	return e
}

// protect runs the hook named hook of call, turning a panic into a
// *PanicError, which it logs.
func (s *Server) protect(ctx context.Context, call *Call, hook string, f func() error) (err error) {
	defer func() {
		if v := recover(); v != nil {
			pe := &PanicError{Value: v, Stack: debug.Stack()}
			s.logPanic(ctx, call.method, hook, pe)
			err = pe
		}
	}()
	return f()
}
