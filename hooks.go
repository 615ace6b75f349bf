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

// callWithInfo runs a call with its Call in the context, and the hooks.
func (s *Server) callWithInfo(ctx context.Context, dst []byte, m *method, r *wire.Request) []byte {
	cf := s.cfg
	c := &callCtx{Context: ctx, call: Call{server: s, method: m.name, id: r.ID, params: r.Params, parent: ctx}}
	call := &c.call
	start := len(dst)
	var err error
	if cf.pre != nil {
		err = protect(func() error { return cf.pre(c, call) })
		if pending := call.takeErr(); pending != nil {
			err = pending
		}
	}
	resStart := start
	if err == nil {
		dst = append(dst, wire.ResultPrefix...)
		resStart = len(dst)
		dst, err = s.invoke(c, m, dst, r.Params, &r.Args)
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
			e = rewrite(e, func() *Error { return cf.onError(c, call, err, &mapped) })
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
		perr := protect(func() error { return cf.post(c, call, result, ec) })
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
	switch {
	case r.ID == nil:
		return dst[:start]
	case e != nil:
		return appendError(dst[:start], e, r.ID)
	}
	return s.limit(wire.AppendIDEnd(dst, r.ID), start, r.ID)
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

// protect runs a hook, turning a panic into a *PanicError.
func protect(f func() error) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = &PanicError{Value: v, Stack: debug.Stack()}
		}
	}()
	return f()
}
