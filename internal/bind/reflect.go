package bind

import (
	"context"
	"reflect"
	"strings"
	"unsafe"

	"github.com/jsonrpc-go/jsonrpc/internal/wire"
)

// invokeReflect serves the shapes the generic adapters do not: more params,
// variadic functions, struct-bound params and codec-decoded types.
func (f *Func) invokeReflect(ctx context.Context, dst, params []byte) ([]byte, error) {
	in := make([]reflect.Value, 0, len(f.params)+2)
	switch {
	case f.resolve != nil:
		recv, err := f.resolve(ctx)
		if err != nil {
			return dst, err
		}
		in = append(in, recv)
	case f.recvV.IsValid():
		in = append(in, f.recvV)
	}
	if f.Context {
		in = append(in, reflect.ValueOf(&ctx).Elem())
	}
	var err error
	if f.structs {
		var v reflect.Value
		if v, err = f.bindStruct(params); err != nil {
			return dst, err
		}
		in = append(in, v)
	} else if in, err = f.bindArgs(in, params); err != nil {
		return dst, err
	}
	var out []reflect.Value
	if f.variadic {
		out = f.rv.CallSlice(in)
	} else {
		out = f.rv.Call(in)
	}
	switch f.shape &^ shapeCtx {
	case shapeNone:
		return append(dst, "null"...), nil
	case shapeErr:
		if e := out[0].Interface(); e != nil {
			return dst, e.(error)
		}
		return append(dst, "null"...), nil
	case shapeRErr:
		if e := out[1].Interface(); e != nil {
			return dst, e.(error)
		}
	}
	if f.seq != nil {
		return f.appendSeq(ctx, dst, out[0])
	}
	if f.res.raw {
		// A result that is a json.RawMessage param itself (an echo) was
		// validated with the request.
		var param []byte
		for i, p := range f.params {
			if p.raw && !f.structs && !f.variadic {
				b := in[len(in)-len(f.params)+i].Bytes()
				fromDefault := p.opt && unsafe.SliceData(b) == unsafe.SliceData(p.defV.Bytes())
				if len(b) > 0 && !fromDefault && unsafe.SliceData(b) == unsafe.SliceData(out[0].Bytes()) {
					param = b
				}
			}
		}
		return f.appendRaw(dst, out[0].Bytes(), param)
	}
	return f.appendValue(dst, out[0])
}

func (f *Func) appendValue(dst []byte, v reflect.Value) ([]byte, error) {
	if f.res.raw {
		return f.appendRaw(dst, v.Bytes(), nil)
	}
	if f.res.class != classNone {
		tmp := reflect.New(f.res.t)
		tmp.Elem().Set(v)
		return f.appendResult(dst, tmp.UnsafePointer())
	}
	// A struct or a slice: its encoder, or else the codec. The interface
	// of a result that reflect.Value.Call returned holds the call's own
	// copy of it, not a new one (the value is not addressable).
	x := v.Interface()
	if f.res.enc != nil {
		e := (*eface)(unsafe.Pointer(&x))
		p := e.data
		if pointerShaped(f.res.t) {
			p = unsafe.Pointer(&e.data) // the interface holds the value itself
		}
		if out, err := f.res.enc.append(dst, p, 0); err == nil {
			return out, nil
		}
	}
	out, err := f.codec.Append(dst, x)
	if err != nil {
		return dst, &ResultError{Err: err}
	}
	return out, nil
}

// decodeValue decodes one param value of any type.
func (f *Func) decodeValue(p *param, span []byte) (reflect.Value, error) {
	v := reflect.New(p.t).Elem()
	if err := f.decodeAt(p, span, v); err != nil {
		return reflect.Value{}, err
	}
	return v, nil
}

// decodeAt decodes one param value into dst, an addressable value of the
// param's type.
func (f *Func) decodeAt(p *param, span []byte, dst reflect.Value) error {
	return f.decodeParamAt(p, span, dst.Addr().UnsafePointer())
}

func (f *Func) bindArgs(in []reflect.Value, params []byte) ([]reflect.Value, error) {
	n := len(f.params)
	spans := make([][]byte, n)
	// rest is the array whose elements after the first skip are the
	// variadic param's, when there are any.
	var (
		rest []byte
		skip int
	)
	if f.variadic && params != nil && params[0] == '[' {
		i := 0
		for elem, pos, ok := wire.NextElement(params, 0); ok && i < n-1; elem, pos, ok = wire.NextElement(params, pos) {
			spans[i] = elem
			i++
		}
		for i := 0; i < f.required; i++ {
			if spans[i] == nil {
				return nil, f.missing(i)
			}
		}
		rest, skip = params, n-1
	} else {
		if err := f.spans(params, nil, spans); err != nil {
			return nil, err
		}
		if f.variadic && spans[n-1] != nil {
			last := spans[n-1]
			if wire.KindOf(last) != wire.Array {
				return nil, &ParamError{Index: n - 1, Name: f.params[n-1].name, Msg: "want an array"}
			}
			rest = last
		}
	}
	fixed := n
	if f.variadic {
		fixed = n - 1
	}
	for i := 0; i < fixed; i++ {
		p := &f.params[i]
		if spans[i] == nil {
			in = append(in, p.defV)
			continue
		}
		v, err := f.decodeValue(p, spans[i])
		if err != nil {
			return nil, err
		}
		in = append(in, v)
	}
	if f.variadic {
		s, err := f.decodeRest(rest, skip)
		if err != nil {
			return nil, err
		}
		in = append(in, s)
	}
	return in, nil
}

// decodeRest decodes the elements of the array arr after its first skip
// into a new slice of the variadic param's type, each straight into its
// element: the slice is the only allocation it makes for primitive
// elements, whatever their number. A nil arr gives an empty slice.
func (f *Func) decodeRest(arr []byte, skip int) (reflect.Value, error) {
	count := 0
	for _, pos, ok := wire.NextElement(arr, 0); ok; _, pos, ok = wire.NextElement(arr, pos) {
		count++
	}
	count = max(count-skip, 0)
	t := f.params[len(f.params)-1].t
	s := reflect.MakeSlice(t, count, count)
	base, size := s.UnsafePointer(), t.Elem().Size()
	i := -skip
	for elem, pos, ok := wire.NextElement(arr, 0); ok; elem, pos, ok = wire.NextElement(arr, pos) {
		if i >= 0 {
			if err := f.decodeParamAt(&f.rest, elem, unsafe.Add(base, uintptr(i)*size)); err != nil {
				return reflect.Value{}, err
			}
			wire.YieldEvery(i)
		}
		i++
	}
	return s, nil
}

// bindStruct decodes params into the single struct param: an object by field
// names, an array by field order.
func (f *Func) bindStruct(params []byte) (reflect.Value, error) {
	nv := reflect.New(f.st)
	if err := f.decodeStruct(params, nv.UnsafePointer()); err != nil {
		return reflect.Value{}, err
	}
	if f.params[0].t.Kind() == reflect.Pointer {
		return nv, nil
	}
	return nv.Elem(), nil
}

// wholeStruct reports whether params, a positional array, holds the struct
// param whole: its only element is an object, and every member of the
// object names a field of the struct (so that an array whose element is the
// value of the first field, itself an object, still binds by position).
func (f *Func) wholeStruct(params []byte) ([]byte, bool) {
	if len(params) == 0 || params[0] != '[' {
		return nil, false
	}
	elem, pos, ok := wire.NextElement(params, 0)
	if !ok || elem[0] != '{' {
		return nil, false
	}
	if _, _, more := wire.NextElement(params, pos); more {
		return nil, false
	}
	if len(f.fields) > 0 && f.fields[0].p.class == classNone && f.checkFieldNames(elem) != nil {
		return nil, false // the object is the first field's value
	}
	return elem, true
}

// checkFieldNames rejects a named param that matches no field of the struct
// param. Names match fields as encoding/json matches them: exactly, or else
// case-insensitively.
func (f *Func) checkFieldNames(params []byte) error {
	var (
		name []byte
		esc  bool
		ok   bool
		pos  int
	)
	for {
		name, _, esc, pos, ok = wire.NextMember(params, pos)
		if !ok {
			return nil
		}
		n := string(unescapeName(name, esc))
		found := false
		for _, fd := range f.fields {
			if fd.name == n || strings.EqualFold(fd.name, n) {
				found = true
				break
			}
		}
		if !found {
			return &ParamError{Index: -1, Msg: "unknown param " + string(wire.AppendQuote(nil, n))}
		}
	}
}
