package jsonrpc

import (
	"context"
	"runtime/debug"

	"github.com/jsonrpc-go/jsonrpc/internal/wire"
)

// Intercept adds an interceptor: a function that runs around each method
// call. It is the one way to act on every call: to check or refuse it
// before the method runs, to give the method a context of its own (one
// carrying a tracing span), to see its outcome, and to change the error it
// answers with.
//
// The interceptor is given the call's context and Call, and next, which
// runs the call (the method, or the next interceptor) with the context it
// is passed and returns the call's error: nil when the call answers with a
// result (Call.Result holds it then), or the Go error it failed with, as
// the method returned it, a *PanicError when the method panicked, or an
// error about its params; ErrorCode gives the code the call answers with.
// The context passed to next must be ctx or derived from it, so that the
// method finds the Call with CallOf; a context that is not answers the call
// with CodeInternalError.
//
// The interceptor returns the error the call answers with, mapped to an
// error object as a method's error is (see Errors in the package
// documentation): nil answers as next did, with its result or its error;
// an error replaces the result, or next's error. Without calling next:
//
//   - refuse the call: return an error (return NewError(-32001,
//     "unauthorized")), and the method does not run;
//   - return nil, and the call answers with CodeInternalError: a call must
//     be answered with a result or an error.
//
// For example, a log of the calls that fail:
//
//	jsonrpc.Intercept(func(ctx context.Context, c *jsonrpc.Call, next func(context.Context) error) error {
//		err := next(ctx)
//		if err != nil {
//			logger.Warn("call failed", "method", c.Method(), "code", jsonrpc.ErrorCode(err), "error", err)
//		}
//		return err
//	})
//
// Interceptors also run for notifications, whose outcome no one is sent,
// and for the calls of a batch, each on its own. They do not run for a
// request that names no registered method, nor for one that is not a
// valid request; OnParseError sees the documents that are not JSON.
//
// An interceptor must call next at most once, before it returns; the
// method runs once whatever it does, and a second call of next returns
// what the first one did. An interceptor that panics is recovered, logged
// (see UseLogger), and the call answers with CodeInternalError, or as next
// did when the panic came after next. Several Intercept options nest: the
// first one given runs outermost. A server with no interceptor pays
// nothing for the option; with interceptors, however many, a call
// allocates its context and nothing more.
func Intercept(f func(ctx context.Context, c *Call, next func(ctx context.Context) error) error) Option {
	return func(cf *config) { cf.intercepts = append(cf.intercepts, f) }
}

// OnParseError sets a hook that sees each request document that is not valid
// JSON, with the syntax error as cause, and returns the error object to
// answer with (nil keeps the default, CodeParseError without data). Such a
// document has no method and no id, so no Call: this is what Intercept
// cannot see. The hook is given a copy of the default error object; a panic
// in it is recovered and the default answered.
func OnParseError(f func(req []byte, cause error, e *Error) *Error) Option {
	return func(cf *config) { cf.onParseError = f }
}

// errNotCalled answers a call whose interceptor neither ran it nor
// returned an error.
var errNotCalled = NewError(CodeInternalError, "").WithData("the call's interceptor did not run it")

// errForeignContext answers a call whose interceptor passed next a
// context not derived from the call's.
var errForeignContext = NewError(CodeInternalError, "").WithData("the call's interceptor passed next a context that is not the call's")

// chain builds the next functions of the interceptors of cf, once, when
// the server is made: cf.nexts[i] runs interceptor i, and the last one
// runs the method. They find the call they run through the context they
// are given, so that a call allocates no next of its own.
func (cf *config) chain() {
	n := len(cf.intercepts)
	if n == 0 {
		return
	}
	cf.nexts = make([]func(context.Context) error, n+1)
	for i := range n {
		cf.nexts[i] = func(ctx context.Context) error {
			ic, _ := ctx.Value(interceptKey{}).(*intercepted)
			if ic == nil {
				return errForeignContext
			}
			return ic.level(ctx, i)
		}
	}
	cf.nexts[n] = func(ctx context.Context) error {
		ic, _ := ctx.Value(interceptKey{}).(*intercepted)
		if ic == nil {
			return errForeignContext
		}
		return ic.runOnce(ctx)
	}
}

type interceptKey struct{}

// intercepted is the context of a call that runs under interceptors: the
// call's context, and what the interceptors' next functions need to run it.
// One is allocated per call, and belongs to that call alone.
type intercepted struct {
	callCtx
	s        *Server
	m        *method
	args     wire.Args
	dst      []byte
	resStart int   // where the result begins in dst
	err      error // the method's outcome
	outcome  error // the outcome of the innermost level that returned
	reached  int32 // the deepest level whose next was called
	ran      bool  // the method has run
}

func (ic *intercepted) Value(key any) any {
	if key == (interceptKey{}) {
		return ic
	}
	return ic.callCtx.Value(key)
}

// level runs interceptor i, with next the one that runs the levels inside
// it, and returns its outcome.
func (ic *intercepted) level(ctx context.Context, i int) (out error) {
	ic.reached = max(ic.reached, int32(i))
	defer func() {
		v := recover()
		if v == nil {
			return
		}
		pe := &PanicError{Value: v, Stack: debug.Stack()}
		ic.s.logPanic(ctx, ic.m.name, true, pe)
		if ic.reached <= int32(i) { // next has not answered: the panic is the outcome
			ic.outcome = pe
		}
		out = ic.outcome
	}()
	cf := ic.s.cfg
	err := cf.intercepts[i](ctx, &ic.call, cf.nexts[i+1])
	switch {
	case err != nil:
		ic.outcome = err
	case ic.reached <= int32(i):
		ic.outcome = errNotCalled
	}
	return ic.outcome
}

// runOnce runs the method, the first time it is called, and returns its
// outcome.
func (ic *intercepted) runOnce(ctx context.Context) error {
	ic.reached = int32(len(ic.s.cfg.intercepts))
	if !ic.ran {
		ic.ran = true
		ic.dst, ic.err = ic.s.run(ctx, &ic.call, ic.dst, ic.m, raw(ic.call.params), &ic.args)
		if ic.err == nil {
			ic.call.result = span(ic.dst[ic.resStart:])
		}
	}
	ic.outcome = ic.err
	return ic.err
}

// callWithInfo runs a call with its Call in the context, under the
// server's interceptors; sl is the call's share of MaxRunning, for a
// sequence result's method that runs on a goroutine of its own, else nil.
func (s *Server) callWithInfo(ctx context.Context, dst []byte, m *method, r *wire.Request, sl *slot) []byte {
	call := Call{server: s, method: m.name, id: span(r.ID), params: span(r.Params), request: span(r.Value), parent: ctx, slot: sl}
	start := len(dst)
	var err error
	if s.cfg.nexts != nil {
		ic := &intercepted{callCtx: callCtx{Context: ctx, call: call}, s: s, m: m, args: r.Args, dst: dst, resStart: start + len(wire.ResultPrefix)}
		err = ic.level(ic, 0)
		if pending := ic.call.takeErr(); pending != nil {
			err = pending
		}
		dst = ic.dst
	} else {
		c := &callCtx{Context: ctx, call: call}
		dst, err = s.run(c, &c.call, dst, m, r.Params, &r.Args)
	}
	switch {
	case r.ID == nil:
		return dst[:start]
	case err != nil:
		return appendError(dst[:start], toError(ctx, err, s.cfg), r.ID)
	}
	return s.limit(ctx, wire.AppendIDEnd(dst, r.ID), start, r.ID)
}

// run runs the method of call with the context ctx, which carries call
// (the method's params are params, and args their scanned elements), and
// returns dst with the result appended, or the error the call failed with
// (dst is then as it was given). An error set with Call.SetError before it
// runs is the call's outcome, and the method does not run; one set while
// the method runs replaces its outcome.
func (s *Server) run(ctx context.Context, call *Call, dst []byte, m *method, params []byte, args *wire.Args) ([]byte, error) {
	if pending := call.takeErr(); pending != nil {
		return dst, pending
	}
	start := len(dst)
	out, err := s.invoke(ctx, m, append(dst, wire.ResultPrefix...), params, args)
	if pending := call.takeErr(); pending != nil {
		err = pending
	}
	if err != nil {
		return dst[:start], err
	}
	return out, nil
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
