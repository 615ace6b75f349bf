package bind

import (
	"context"
	"reflect"
	"unsafe"
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
	f.fast = build(f)
	f.Fast = true
	return nil
}

// fastInvoker calls a function through a generic adapter with the spans of
// its (at most maxFast) params; a nil span is an omitted param.
type fastInvoker func(ctx context.Context, dst, a0, a1 []byte, sc *scratch) ([]byte, error)

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

func args2[A, B any](f *Func, a0, a1 []byte, sc *scratch) (a A, b B, err error) {
	if a, err = arg[A](f, 0, a0, sc); err != nil {
		return a, b, err
	}
	b, err = arg[B](f, 1, a1, sc)
	return a, b, err
}

// finish encodes the outcome of a call.
func finish[R any](f *Func, dst []byte, r R, err error) ([]byte, error) {
	if err == nil {
		dst, err = f.appendResult(dst, unsafe.Pointer(&r))
	}
	return dst, err
}

// fast0 adapts func() R and func() (R, error), each optionally with a
// leading context.
func fast0[R any](f *Func) fastInvoker {
	p := f.fn
	switch f.shape {
	case shapeR:
		fn := *(*func() R)(p)
		return func(_ context.Context, dst, a0, a1 []byte, sc *scratch) ([]byte, error) {
			return finish(f, dst, fn(), nil)
		}
	case shapeRErr:
		fn := *(*func() (R, error))(p)
		return func(_ context.Context, dst, a0, a1 []byte, sc *scratch) ([]byte, error) {
			r, err := fn()
			return finish(f, dst, r, err)
		}
	case shapeR | shapeCtx:
		fn := *(*func(context.Context) R)(p)
		return func(ctx context.Context, dst, a0, a1 []byte, sc *scratch) ([]byte, error) {
			return finish(f, dst, fn(ctx), nil)
		}
	default: // shapeRErr | shapeCtx
		fn := *(*func(context.Context) (R, error))(p)
		return func(ctx context.Context, dst, a0, a1 []byte, sc *scratch) ([]byte, error) {
			r, err := fn(ctx)
			return finish(f, dst, r, err)
		}
	}
}

// fast0v adapts func() and func() error, each optionally with a leading
// context.
func fast0v(f *Func) fastInvoker {
	p := f.fn
	var void struct{}
	switch f.shape {
	case shapeNone:
		fn := *(*func())(p)
		return func(_ context.Context, dst, a0, a1 []byte, sc *scratch) ([]byte, error) {
			fn()
			return finish(f, dst, void, nil)
		}
	case shapeErr:
		fn := *(*func() error)(p)
		return func(_ context.Context, dst, a0, a1 []byte, sc *scratch) ([]byte, error) {
			return finish(f, dst, void, fn())
		}
	case shapeNone | shapeCtx:
		fn := *(*func(context.Context))(p)
		return func(ctx context.Context, dst, a0, a1 []byte, sc *scratch) ([]byte, error) {
			fn(ctx)
			return finish(f, dst, void, nil)
		}
	default: // shapeErr | shapeCtx
		fn := *(*func(context.Context) error)(p)
		return func(ctx context.Context, dst, a0, a1 []byte, sc *scratch) ([]byte, error) {
			return finish(f, dst, void, fn(ctx))
		}
	}
}

// fast1 adapts the one-param shapes with a result; see fast0.
func fast1[A, R any](f *Func) fastInvoker {
	p := f.fn
	switch f.shape {
	case shapeR:
		fn := *(*func(A) R)(p)
		return func(_ context.Context, dst, a0, a1 []byte, sc *scratch) ([]byte, error) {
			a, err := arg[A](f, 0, a0, sc)
			var r R
			if err == nil {
				r = fn(a)
			}
			return finish(f, dst, r, err)
		}
	case shapeRErr:
		fn := *(*func(A) (R, error))(p)
		return func(_ context.Context, dst, a0, a1 []byte, sc *scratch) ([]byte, error) {
			a, err := arg[A](f, 0, a0, sc)
			var r R
			if err == nil {
				r, err = fn(a)
			}
			return finish(f, dst, r, err)
		}
	case shapeR | shapeCtx:
		fn := *(*func(context.Context, A) R)(p)
		return func(ctx context.Context, dst, a0, a1 []byte, sc *scratch) ([]byte, error) {
			a, err := arg[A](f, 0, a0, sc)
			var r R
			if err == nil {
				r = fn(ctx, a)
			}
			return finish(f, dst, r, err)
		}
	default: // shapeRErr | shapeCtx
		fn := *(*func(context.Context, A) (R, error))(p)
		return func(ctx context.Context, dst, a0, a1 []byte, sc *scratch) ([]byte, error) {
			a, err := arg[A](f, 0, a0, sc)
			var r R
			if err == nil {
				r, err = fn(ctx, a)
			}
			return finish(f, dst, r, err)
		}
	}
}

// fast1v adapts the one-param shapes without a result; see fast0v.
func fast1v[A any](f *Func) fastInvoker {
	p := f.fn
	var void struct{}
	switch f.shape {
	case shapeNone:
		fn := *(*func(A))(p)
		return func(_ context.Context, dst, a0, a1 []byte, sc *scratch) ([]byte, error) {
			a, err := arg[A](f, 0, a0, sc)
			if err == nil {
				fn(a)
			}
			return finish(f, dst, void, err)
		}
	case shapeErr:
		fn := *(*func(A) error)(p)
		return func(_ context.Context, dst, a0, a1 []byte, sc *scratch) ([]byte, error) {
			a, err := arg[A](f, 0, a0, sc)
			if err == nil {
				err = fn(a)
			}
			return finish(f, dst, void, err)
		}
	case shapeNone | shapeCtx:
		fn := *(*func(context.Context, A))(p)
		return func(ctx context.Context, dst, a0, a1 []byte, sc *scratch) ([]byte, error) {
			a, err := arg[A](f, 0, a0, sc)
			if err == nil {
				fn(ctx, a)
			}
			return finish(f, dst, void, err)
		}
	default: // shapeErr | shapeCtx
		fn := *(*func(context.Context, A) error)(p)
		return func(ctx context.Context, dst, a0, a1 []byte, sc *scratch) ([]byte, error) {
			a, err := arg[A](f, 0, a0, sc)
			if err == nil {
				err = fn(ctx, a)
			}
			return finish(f, dst, void, err)
		}
	}
}

// fast2 adapts the two-param shapes with a result; see fast0.
func fast2[A, B, R any](f *Func) fastInvoker {
	p := f.fn
	switch f.shape {
	case shapeR:
		fn := *(*func(A, B) R)(p)
		return func(_ context.Context, dst, a0, a1 []byte, sc *scratch) ([]byte, error) {
			a, b, err := args2[A, B](f, a0, a1, sc)
			var r R
			if err == nil {
				r = fn(a, b)
			}
			return finish(f, dst, r, err)
		}
	case shapeRErr:
		fn := *(*func(A, B) (R, error))(p)
		return func(_ context.Context, dst, a0, a1 []byte, sc *scratch) ([]byte, error) {
			a, b, err := args2[A, B](f, a0, a1, sc)
			var r R
			if err == nil {
				r, err = fn(a, b)
			}
			return finish(f, dst, r, err)
		}
	case shapeR | shapeCtx:
		fn := *(*func(context.Context, A, B) R)(p)
		return func(ctx context.Context, dst, a0, a1 []byte, sc *scratch) ([]byte, error) {
			a, b, err := args2[A, B](f, a0, a1, sc)
			var r R
			if err == nil {
				r = fn(ctx, a, b)
			}
			return finish(f, dst, r, err)
		}
	default: // shapeRErr | shapeCtx
		fn := *(*func(context.Context, A, B) (R, error))(p)
		return func(ctx context.Context, dst, a0, a1 []byte, sc *scratch) ([]byte, error) {
			a, b, err := args2[A, B](f, a0, a1, sc)
			var r R
			if err == nil {
				r, err = fn(ctx, a, b)
			}
			return finish(f, dst, r, err)
		}
	}
}

// fast2v adapts the two-param shapes without a result; see fast0v.
func fast2v[A, B any](f *Func) fastInvoker {
	p := f.fn
	var void struct{}
	switch f.shape {
	case shapeNone:
		fn := *(*func(A, B))(p)
		return func(_ context.Context, dst, a0, a1 []byte, sc *scratch) ([]byte, error) {
			a, b, err := args2[A, B](f, a0, a1, sc)
			if err == nil {
				fn(a, b)
			}
			return finish(f, dst, void, err)
		}
	case shapeErr:
		fn := *(*func(A, B) error)(p)
		return func(_ context.Context, dst, a0, a1 []byte, sc *scratch) ([]byte, error) {
			a, b, err := args2[A, B](f, a0, a1, sc)
			if err == nil {
				err = fn(a, b)
			}
			return finish(f, dst, void, err)
		}
	case shapeNone | shapeCtx:
		fn := *(*func(context.Context, A, B))(p)
		return func(ctx context.Context, dst, a0, a1 []byte, sc *scratch) ([]byte, error) {
			a, b, err := args2[A, B](f, a0, a1, sc)
			if err == nil {
				fn(ctx, a, b)
			}
			return finish(f, dst, void, err)
		}
	default: // shapeErr | shapeCtx
		fn := *(*func(context.Context, A, B) error)(p)
		return func(ctx context.Context, dst, a0, a1 []byte, sc *scratch) ([]byte, error) {
			a, b, err := args2[A, B](f, a0, a1, sc)
			if err == nil {
				err = fn(ctx, a, b)
			}
			return finish(f, dst, void, err)
		}
	}
}
