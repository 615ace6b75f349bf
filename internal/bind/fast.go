package bind

import (
	"context"
	"reflect"
	"unsafe"

	"github.com/jsonrpc-go/jsonrpc/internal/wire"
)

//go:generate go run ./gen -o table.go

// maxFast is the largest number of params (besides a context) that the generic
// adapters serve.
const maxFast = 2

// tableKey selects an adapter: the classes of the params (classVoid where
// absent) and of the result (classVoid when there is none).
type tableKey struct{ a, b, r class }

// buildFast installs a generic adapter when the function's shape has one.
func (f *Func) buildFast() error {
	if len(f.params) > maxFast || f.variadic || f.structs {
		return nil
	}
	k := tableKey{classVoid, classVoid, classVoid}
	for i, p := range f.params {
		if p.class == classNone {
			return nil
		}
		if i == 0 {
			k.a = p.class
		} else {
			k.b = p.class
		}
	}
	if f.shape&^shapeCtx >= shapeR {
		if f.res.class == classNone {
			return nil
		}
		k.r = f.res.class
	}
	build := fastTable[k]
	if build == nil {
		return nil
	}
	// The adapter reads the function through a variable of its own type: keep
	// one such variable alive for the Func's lifetime.
	fv := reflect.New(f.rv.Type())
	fv.Elem().Set(f.rv)
	f.fn = fv.UnsafePointer()
	for i := range f.params {
		p := &f.params[i]
		if p.opt {
			cp := reflect.New(p.t)
			cp.Elem().Set(p.defV)
			p.def = reflect.NewAt(classType[p.class], cp.UnsafePointer()).Elem().Interface()
		}
		if p.class == classPtr && p.prim && f.borrow {
			f.scratch = true
		}
	}
	f.invoke = build(f)
	f.Fast = true
	return nil
}

// arg decodes param i from span, or gives its default when span is nil.
func arg[A any](f *Func, i int, span []byte, sc *scratch) (A, error) {
	var a A
	if span == nil {
		if p := &f.params[i]; p.opt {
			return p.def.(A), nil
		}
		return a, f.missing(i)
	}
	err := f.decodeInto(&f.params[i], span, unsafe.Pointer(&a), sc)
	return a, err
}

func args1[A any](f *Func, params []byte, args wire.Args, sc *scratch) (a A, err error) {
	var sp [1][]byte
	if err = f.spans(params, args, sp[:]); err != nil {
		return a, err
	}
	return arg[A](f, 0, sp[0], sc)
}

func args2[A, B any](f *Func, params []byte, args wire.Args, sc *scratch) (a A, b B, err error) {
	var sp [2][]byte
	if err = f.spans(params, args, sp[:]); err != nil {
		return a, b, err
	}
	if a, err = arg[A](f, 0, sp[0], sc); err != nil {
		return a, b, err
	}
	b, err = arg[B](f, 1, sp[1], sc)
	return a, b, err
}

func args0(f *Func, params []byte, args wire.Args) error {
	return f.spans(params, args, nil)
}

// finish encodes the outcome of a call and releases its scratch.
func finish[R any](f *Func, dst []byte, r R, err error, sc *scratch) ([]byte, error) {
	if err == nil {
		dst, err = f.appendResult(dst, unsafe.Pointer(&r))
	}
	putScratch(sc)
	return dst, err
}

// fast0 adapts func() R and func() (R, error), each optionally with a
// leading context.
func fast0[R any](f *Func) Invoker {
	p := f.fn
	switch f.shape {
	case shapeR:
		fn := *(*func() R)(p)
		return func(_ context.Context, dst, params []byte, args wire.Args) ([]byte, error) {
			if err := args0(f, params, args); err != nil {
				return dst, err
			}
			return finish(f, dst, fn(), nil, nil)
		}
	case shapeRErr:
		fn := *(*func() (R, error))(p)
		return func(_ context.Context, dst, params []byte, args wire.Args) ([]byte, error) {
			if err := args0(f, params, args); err != nil {
				return dst, err
			}
			r, err := fn()
			return finish(f, dst, r, err, nil)
		}
	case shapeR | shapeCtx:
		fn := *(*func(context.Context) R)(p)
		return func(ctx context.Context, dst, params []byte, args wire.Args) ([]byte, error) {
			if err := args0(f, params, args); err != nil {
				return dst, err
			}
			return finish(f, dst, fn(ctx), nil, nil)
		}
	default: // shapeRErr | shapeCtx
		fn := *(*func(context.Context) (R, error))(p)
		return func(ctx context.Context, dst, params []byte, args wire.Args) ([]byte, error) {
			if err := args0(f, params, args); err != nil {
				return dst, err
			}
			r, err := fn(ctx)
			return finish(f, dst, r, err, nil)
		}
	}
}

// fast0v adapts func() and func() error, each optionally with a leading
// context.
func fast0v(f *Func) Invoker {
	p := f.fn
	var void struct{}
	switch f.shape {
	case shapeNone:
		fn := *(*func())(p)
		return func(_ context.Context, dst, params []byte, args wire.Args) ([]byte, error) {
			if err := args0(f, params, args); err != nil {
				return dst, err
			}
			fn()
			return finish(f, dst, void, nil, nil)
		}
	case shapeErr:
		fn := *(*func() error)(p)
		return func(_ context.Context, dst, params []byte, args wire.Args) ([]byte, error) {
			if err := args0(f, params, args); err != nil {
				return dst, err
			}
			return finish(f, dst, void, fn(), nil)
		}
	case shapeNone | shapeCtx:
		fn := *(*func(context.Context))(p)
		return func(ctx context.Context, dst, params []byte, args wire.Args) ([]byte, error) {
			if err := args0(f, params, args); err != nil {
				return dst, err
			}
			fn(ctx)
			return finish(f, dst, void, nil, nil)
		}
	default: // shapeErr | shapeCtx
		fn := *(*func(context.Context) error)(p)
		return func(ctx context.Context, dst, params []byte, args wire.Args) ([]byte, error) {
			if err := args0(f, params, args); err != nil {
				return dst, err
			}
			return finish(f, dst, void, fn(ctx), nil)
		}
	}
}

// fast1 adapts the one-param shapes with a result; see fast0.
func fast1[A, R any](f *Func) Invoker {
	p := f.fn
	switch f.shape {
	case shapeR:
		fn := *(*func(A) R)(p)
		return func(_ context.Context, dst, params []byte, args wire.Args) ([]byte, error) {
			sc := f.getScratch()
			a, err := args1[A](f, params, args, sc)
			var r R
			if err == nil {
				r = fn(a)
			}
			return finish(f, dst, r, err, sc)
		}
	case shapeRErr:
		fn := *(*func(A) (R, error))(p)
		return func(_ context.Context, dst, params []byte, args wire.Args) ([]byte, error) {
			sc := f.getScratch()
			a, err := args1[A](f, params, args, sc)
			var r R
			if err == nil {
				r, err = fn(a)
			}
			return finish(f, dst, r, err, sc)
		}
	case shapeR | shapeCtx:
		fn := *(*func(context.Context, A) R)(p)
		return func(ctx context.Context, dst, params []byte, args wire.Args) ([]byte, error) {
			sc := f.getScratch()
			a, err := args1[A](f, params, args, sc)
			var r R
			if err == nil {
				r = fn(ctx, a)
			}
			return finish(f, dst, r, err, sc)
		}
	default: // shapeRErr | shapeCtx
		fn := *(*func(context.Context, A) (R, error))(p)
		return func(ctx context.Context, dst, params []byte, args wire.Args) ([]byte, error) {
			sc := f.getScratch()
			a, err := args1[A](f, params, args, sc)
			var r R
			if err == nil {
				r, err = fn(ctx, a)
			}
			return finish(f, dst, r, err, sc)
		}
	}
}

// fast1v adapts the one-param shapes without a result; see fast0v.
func fast1v[A any](f *Func) Invoker {
	p := f.fn
	var void struct{}
	switch f.shape {
	case shapeNone:
		fn := *(*func(A))(p)
		return func(_ context.Context, dst, params []byte, args wire.Args) ([]byte, error) {
			sc := f.getScratch()
			a, err := args1[A](f, params, args, sc)
			if err == nil {
				fn(a)
			}
			return finish(f, dst, void, err, sc)
		}
	case shapeErr:
		fn := *(*func(A) error)(p)
		return func(_ context.Context, dst, params []byte, args wire.Args) ([]byte, error) {
			sc := f.getScratch()
			a, err := args1[A](f, params, args, sc)
			if err == nil {
				err = fn(a)
			}
			return finish(f, dst, void, err, sc)
		}
	case shapeNone | shapeCtx:
		fn := *(*func(context.Context, A))(p)
		return func(ctx context.Context, dst, params []byte, args wire.Args) ([]byte, error) {
			sc := f.getScratch()
			a, err := args1[A](f, params, args, sc)
			if err == nil {
				fn(ctx, a)
			}
			return finish(f, dst, void, err, sc)
		}
	default: // shapeErr | shapeCtx
		fn := *(*func(context.Context, A) error)(p)
		return func(ctx context.Context, dst, params []byte, args wire.Args) ([]byte, error) {
			sc := f.getScratch()
			a, err := args1[A](f, params, args, sc)
			if err == nil {
				err = fn(ctx, a)
			}
			return finish(f, dst, void, err, sc)
		}
	}
}

// fast2 adapts the two-param shapes with a result; see fast0.
func fast2[A, B, R any](f *Func) Invoker {
	p := f.fn
	switch f.shape {
	case shapeR:
		fn := *(*func(A, B) R)(p)
		return func(_ context.Context, dst, params []byte, args wire.Args) ([]byte, error) {
			sc := f.getScratch()
			a, b, err := args2[A, B](f, params, args, sc)
			var r R
			if err == nil {
				r = fn(a, b)
			}
			return finish(f, dst, r, err, sc)
		}
	case shapeRErr:
		fn := *(*func(A, B) (R, error))(p)
		return func(_ context.Context, dst, params []byte, args wire.Args) ([]byte, error) {
			sc := f.getScratch()
			a, b, err := args2[A, B](f, params, args, sc)
			var r R
			if err == nil {
				r, err = fn(a, b)
			}
			return finish(f, dst, r, err, sc)
		}
	case shapeR | shapeCtx:
		fn := *(*func(context.Context, A, B) R)(p)
		return func(ctx context.Context, dst, params []byte, args wire.Args) ([]byte, error) {
			sc := f.getScratch()
			a, b, err := args2[A, B](f, params, args, sc)
			var r R
			if err == nil {
				r = fn(ctx, a, b)
			}
			return finish(f, dst, r, err, sc)
		}
	default: // shapeRErr | shapeCtx
		fn := *(*func(context.Context, A, B) (R, error))(p)
		return func(ctx context.Context, dst, params []byte, args wire.Args) ([]byte, error) {
			sc := f.getScratch()
			a, b, err := args2[A, B](f, params, args, sc)
			var r R
			if err == nil {
				r, err = fn(ctx, a, b)
			}
			return finish(f, dst, r, err, sc)
		}
	}
}

// fast2v adapts the two-param shapes without a result; see fast0v.
func fast2v[A, B any](f *Func) Invoker {
	p := f.fn
	var void struct{}
	switch f.shape {
	case shapeNone:
		fn := *(*func(A, B))(p)
		return func(_ context.Context, dst, params []byte, args wire.Args) ([]byte, error) {
			sc := f.getScratch()
			a, b, err := args2[A, B](f, params, args, sc)
			if err == nil {
				fn(a, b)
			}
			return finish(f, dst, void, err, sc)
		}
	case shapeErr:
		fn := *(*func(A, B) error)(p)
		return func(_ context.Context, dst, params []byte, args wire.Args) ([]byte, error) {
			sc := f.getScratch()
			a, b, err := args2[A, B](f, params, args, sc)
			if err == nil {
				err = fn(a, b)
			}
			return finish(f, dst, void, err, sc)
		}
	case shapeNone | shapeCtx:
		fn := *(*func(context.Context, A, B))(p)
		return func(ctx context.Context, dst, params []byte, args wire.Args) ([]byte, error) {
			sc := f.getScratch()
			a, b, err := args2[A, B](f, params, args, sc)
			if err == nil {
				fn(ctx, a, b)
			}
			return finish(f, dst, void, err, sc)
		}
	default: // shapeErr | shapeCtx
		fn := *(*func(context.Context, A, B) error)(p)
		return func(ctx context.Context, dst, params []byte, args wire.Args) ([]byte, error) {
			sc := f.getScratch()
			a, b, err := args2[A, B](f, params, args, sc)
			if err == nil {
				err = fn(ctx, a, b)
			}
			return finish(f, dst, void, err, sc)
		}
	}
}
