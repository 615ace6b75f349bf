package jsonrpc

import (
	"context"
	"errors"

	"github.com/jsonrpc-go/jsonrpc/internal/bind"
)

// A TypedMethod is a function whose param and result types are known when
// the program is compiled, made by Typed (a function that takes the call's
// context) or TypedNoContext (one that does not). Register and MustRegister
// take it in place of a function, with the same options; its calls are
// direct Go calls, never through reflect.Value.Call, whatever its types.
//
// Both take a function that returns a result and an error. One of another
// shape is wrapped in a closure, at no cost: a function without an error
// returns a nil one, and one that ignores its context is better given to
// TypedNoContext, whose calls allocate no context for the method.
//
//	jsonrpc.TypedNoContext(func(s string) (string, error) { return strings.ToUpper(s), nil })
//
// The function takes one value P, which is the params: when P is a struct
// (or a pointer to one) without JSON methods of its own, named params are
// its fields by their json names, positional params its fields in order,
// and an array whose only element is the object is the struct whole, as
// Register binds a function whose only param is a struct. The members of
// an object are decoded one by one into the fields, in the pass that
// matches their names; fields of primitive types are decoded without the
// codec, so that a struct of numbers and booleans is decoded without
// allocating. When P is another type, it is the only positional param
// (named, with ParamNames). The result R is encoded as Register encodes a
// result.
type TypedMethod struct {
	build func(bind.Options) (*bind.Func, error)
}

var errNilTyped = errors.New("nil function")

// Typed returns fn as a TypedMethod: a method that takes the call's context
// and params P and returns a result R or an error.
//
//	srv.MustRegister("createUser", jsonrpc.Typed(func(ctx context.Context, u User) (User, error) { ... }))
func Typed[P, R any](fn func(context.Context, P) (R, error)) TypedMethod {
	return TypedMethod{build: func(o bind.Options) (*bind.Func, error) {
		if fn == nil {
			return nil, errNilTyped
		}
		return bind.Typed(fn, true, o)
	}}
}

// TypedNoContext returns fn as a TypedMethod: a method that takes params P
// and returns a result R or an error, and no context. Its calls allocate
// no context (on a server without interceptors): a method over primitive
// params and results is called without allocating.
//
//	srv.MustRegister("double", jsonrpc.TypedNoContext(func(x int) (int, error) { return 2 * x, nil }))
func TypedNoContext[P, R any](fn func(P) (R, error)) TypedMethod {
	return TypedMethod{build: func(o bind.Options) (*bind.Func, error) {
		if fn == nil {
			return nil, errNilTyped
		}
		return bind.Typed(func(_ context.Context, p P) (R, error) { return fn(p) }, false, o)
	}}
}
