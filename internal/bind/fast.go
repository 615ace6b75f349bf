package bind

import (
	"context"
	"reflect"
	"unsafe"
)

//go:generate go run ./gen -o table.go -adapters adapters.go

// maxFast is the largest number of params (besides a context) that the generic
// adapters serve.
const maxFast = 2

// tableKey selects an adapter: the classes of the params (classVoid where
// absent) and of the result (classVoid when there is none), and whether the
// function is a method expression called with a bound receiver.
type tableKey struct {
	a, b, r class
	recv    bool
}

// buildFast installs a generic adapter when the function's shape has one.
func (f *Func) buildFast() error {
	if len(f.params) > maxFast || f.variadic || f.structs {
		return nil
	}
	k := tableKey{a: classVoid, b: classVoid, r: classVoid, recv: f.recvV.IsValid()}
	for i, p := range f.params {
		if p.class == classNone {
			return nil
		}
		if i == 0 {
			k.a = p.class.abi()
		} else {
			k.b = p.class.abi()
		}
	}
	if f.shape&^shapeCtx >= shapeR {
		if k.r = f.res.class.abi(); k.r == classNone {
			k.r = f.res.layout // encoded by the codec
		}
		if k.r == classNone {
			return nil
		}
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
			p.def = reflect.NewAt(classType[p.class.abi()], cp.UnsafePointer()).Elem().Interface()
		}
		if p.class == classPtr && p.prim && f.borrow {
			f.useSlots = true
		}
	}
	f.fast = build(f)
	f.Fast = true
	return nil
}

// fastInvoker calls a function through a generic adapter with the spans of
// its (at most maxFast) params; a nil span is an omitted param.
type fastInvoker func(ctx context.Context, dst, a0, a1 []byte, slots *argSlots) ([]byte, error)

// arg decodes param i from span, or gives its default when span is nil.
func arg[A any](f *Func, i int, span []byte, slots *argSlots) (A, error) {
	var a A
	if span == nil {
		if p := &f.params[i]; p.opt {
			return p.def.(A), nil
		}
		return a, f.missing(i)
	}
	err := f.decodeInto(&f.params[i], span, unsafe.Pointer(&a), slots)
	return a, err
}

func args2[A, B any](f *Func, a0, a1 []byte, slots *argSlots) (a A, b B, err error) {
	if a, err = arg[A](f, 0, a0, slots); err != nil {
		return a, b, err
	}
	b, err = arg[B](f, 1, a1, slots)
	return a, b, err
}

// finish encodes the outcome of a call.
func finish[R any](f *Func, dst []byte, r R, err error) ([]byte, error) {
	if err == nil {
		dst, err = f.appendResult(dst, unsafe.Pointer(&r))
	}
	return dst, err
}
