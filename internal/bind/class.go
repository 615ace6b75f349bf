package bind

import (
	"fmt"
	"reflect"
	"unsafe"

	"github.com/jsonrpc-go/jsonrpc/internal/wire"
)

// A class is the layout of a primitive Go type. Types of one class have the
// same underlying type, or are int/uint of the same size as int64/uint64, or
// are pointers: values of one class are interchangeable in memory and in
// calls, so one generic adapter serves them all.
type class uint8

const (
	classNone class = iota // not a primitive: decoded through the Codec
	classVoid              // no result
	classBool
	classI8
	classI16
	classI32
	classI64
	classU8
	classU16
	classU32
	classU64
	classF32
	classF64
	classString
	classPtr
	// The layouts of results that the codec encodes, which the adapters
	// return as they return primitives: a slice, and an interface. (A map,
	// a channel or a function is a pointer: classPtr.)
	classSlice
	classIface
	numClasses
)

var classNames = [numClasses]string{"codec", "void", "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32", "float64", "string", "unsafe.Pointer", "[]byte", "any"}

func (c class) String() string { return classNames[c] }

// abi returns the class whose adapters serve c: an unsigned integer is
// passed and returned as the signed integer of its size, whose size,
// alignment and registers it shares, so that the table needs no adapters
// of its own for it. The value is decoded and encoded by c itself.
func (c class) abi() class {
	switch c {
	case classU8:
		return classI8
	case classU16:
		return classI16
	case classU32:
		return classI32
	case classU64:
		return classI64
	}
	return c
}

// classOf returns the class of t, or classNone. A json.Number is a string
// that encoding/json reads and writes as a number: not a primitive here.
func classOf(t reflect.Type) class {
	if t == numberType || hasCustomJSON(t) {
		return classNone
	}
	switch t.Kind() {
	case reflect.Bool:
		return classBool
	case reflect.Int8:
		return classI8
	case reflect.Int16:
		return classI16
	case reflect.Int32:
		return classI32
	case reflect.Int64:
		return classI64
	case reflect.Int:
		return sized(t, classI32, classI64)
	case reflect.Uint8:
		return classU8
	case reflect.Uint16:
		return classU16
	case reflect.Uint32:
		return classU32
	case reflect.Uint64:
		return classU64
	case reflect.Uint, reflect.Uintptr:
		return sized(t, classU32, classU64)
	case reflect.Float32:
		return classF32
	case reflect.Float64:
		return classF64
	case reflect.String:
		return classString
	case reflect.Pointer:
		return classPtr
	}
	return classNone
}

func sized(t reflect.Type, c32, c64 class) class {
	if t.Size() == 8 {
		return c64
	}
	return c32
}

// classType is the Go type that stands for each class in the adapters.
var classType = [numClasses]reflect.Type{
	classVoid:   reflect.TypeFor[struct{}](),
	classBool:   reflect.TypeFor[bool](),
	classI8:     reflect.TypeFor[int8](),
	classI16:    reflect.TypeFor[int16](),
	classI32:    reflect.TypeFor[int32](),
	classI64:    reflect.TypeFor[int64](),
	classU8:     reflect.TypeFor[uint8](),
	classU16:    reflect.TypeFor[uint16](),
	classU32:    reflect.TypeFor[uint32](),
	classU64:    reflect.TypeFor[uint64](),
	classF32:    reflect.TypeFor[float32](),
	classF64:    reflect.TypeFor[float64](),
	classString: reflect.TypeFor[string](),
	classPtr:    reflect.TypeFor[unsafe.Pointer](),
	classSlice:  reflect.TypeFor[[]byte](),
	classIface:  reflect.TypeFor[any](),
}

// layoutOf returns the class whose layout a result of type t has when t is
// not a primitive (classOf is classNone): classSlice, classIface, classPtr
// for a map, a channel, a function or a pointer with JSON methods of its
// own, or classNone (a struct, an array).
func layoutOf(t reflect.Type) class {
	switch t.Kind() {
	case reflect.Slice:
		return classSlice
	case reflect.Interface:
		return classIface
	case reflect.Map, reflect.Chan, reflect.Func, reflect.Pointer, reflect.UnsafePointer:
		return classPtr
	}
	return classNone
}

// eface is the layout of an empty interface: the type word and the data
// word.
type eface struct {
	typ, data unsafe.Pointer
}

// pointerShaped reports whether an interface holds a value of type t in its
// data word itself rather than a pointer to it, as the gc toolchain lays
// interfaces out: a pointer, a map, a channel, a function, or an array of
// one or a struct of one field that is pointer-shaped.
func pointerShaped(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Chan, reflect.Func, reflect.UnsafePointer:
		return true
	case reflect.Array:
		return t.Len() == 1 && pointerShaped(t.Elem())
	case reflect.Struct:
		return t.NumField() == 1 && pointerShaped(t.Field(0).Type)
	}
	return false
}

// typeWord returns the type word of an interface holding a value of type
// t, which is not an interface type.
func typeWord(t reflect.Type) unsafe.Pointer {
	z := reflect.Zero(t).Interface()
	return (*eface)(unsafe.Pointer(&z)).typ
}

// boxed returns the result at p, of a type that the codec encodes and of
// layout f.res.layout, as an interface holding it, as reflect's Interface
// would: a slice header is copied to the heap, a pointer-shaped value is
// its own data word, an empty interface is itself. p does not escape, so
// that an adapter's result stays on its stack.
func (f *Func) boxed(p unsafe.Pointer) any {
	switch f.res.layout {
	case classSlice:
		h := new([]byte)
		*h = *(*[]byte)(p)
		var v any
		*(*eface)(unsafe.Pointer(&v)) = eface{typ: f.res.typ, data: unsafe.Pointer(h)}
		return v
	case classPtr:
		var v any
		*(*eface)(unsafe.Pointer(&v)) = eface{typ: f.res.typ, data: *(*unsafe.Pointer)(p)}
		return v
	}
	if f.res.t.NumMethod() == 0 {
		return *(*any)(p)
	}
	w := *(*[2]unsafe.Pointer)(p)
	return reflect.NewAt(f.res.t, unsafe.Pointer(&w)).Elem().Interface()
}

var kindWant = [numClasses]string{
	classBool: "a boolean", classI8: "an int8", classI16: "an int16", classI32: "an int32", classI64: "an integer",
	classU8: "a uint8", classU16: "a uint16", classU32: "a uint32", classU64: "an unsigned integer",
	classF32: "a float32", classF64: "a number", classString: "a string",
}

// storePrim decodes the JSON value v into the primitive of class c at dst.
func storePrim(c class, v []byte, dst unsafe.Pointer, borrow bool) bool {
	switch c {
	case classBool:
		b, ok := wire.ParseBool(v)
		*(*bool)(dst) = b
		return ok
	case classI8:
		n, ok := wire.ParseInt(v, 8)
		*(*int8)(dst) = int8(n)
		return ok
	case classI16:
		n, ok := wire.ParseInt(v, 16)
		*(*int16)(dst) = int16(n)
		return ok
	case classI32:
		n, ok := wire.ParseInt(v, 32)
		*(*int32)(dst) = int32(n)
		return ok
	case classI64:
		n, ok := wire.ParseInt(v, 64)
		*(*int64)(dst) = n
		return ok
	case classU8:
		n, ok := wire.ParseUint(v, 8)
		*(*uint8)(dst) = uint8(n)
		return ok
	case classU16:
		n, ok := wire.ParseUint(v, 16)
		*(*uint16)(dst) = uint16(n)
		return ok
	case classU32:
		n, ok := wire.ParseUint(v, 32)
		*(*uint32)(dst) = uint32(n)
		return ok
	case classU64:
		n, ok := wire.ParseUint(v, 64)
		*(*uint64)(dst) = n
		return ok
	case classF32:
		x, ok := wire.ParseFloat(v, 32)
		*(*float32)(dst) = float32(x)
		return ok
	case classF64:
		x, ok := wire.ParseFloat(v, 64)
		*(*float64)(dst) = x
		return ok
	case classString:
		s, ok := wire.Unquote(v, borrow)
		*(*string)(dst) = s
		return ok
	}
	return false
}

// appendPrim appends the primitive of class c at p as JSON.
func appendPrim(c class, dst []byte, p unsafe.Pointer) ([]byte, bool) {
	switch c {
	case classVoid:
		return append(dst, "null"...), true
	case classBool:
		return wire.AppendBool(dst, *(*bool)(p)), true
	case classI8:
		return wire.AppendInt(dst, int64(*(*int8)(p))), true
	case classI16:
		return wire.AppendInt(dst, int64(*(*int16)(p))), true
	case classI32:
		return wire.AppendInt(dst, int64(*(*int32)(p))), true
	case classI64:
		return wire.AppendInt(dst, *(*int64)(p)), true
	case classU8:
		return wire.AppendUint(dst, uint64(*(*uint8)(p))), true
	case classU16:
		return wire.AppendUint(dst, uint64(*(*uint16)(p))), true
	case classU32:
		return wire.AppendUint(dst, uint64(*(*uint32)(p))), true
	case classU64:
		return wire.AppendUint(dst, *(*uint64)(p)), true
	case classF32:
		return wire.AppendFloat(dst, float64(*(*float32)(p)), 32)
	case classF64:
		return wire.AppendFloat(dst, *(*float64)(p), 64)
	case classString:
		return wire.AppendQuote(dst, *(*string)(p)), true
	}
	return dst, false
}

func (f *Func) badParam(p *param) error {
	want := kindWant[p.class]
	if p.class == classPtr && p.prim {
		want = kindWant[p.eclass] + " or null"
	}
	if want == "" {
		want = "a value of type " + p.t.String()
	}
	return &ParamError{Index: p.index, Name: p.name, Msg: "want " + want}
}

// decodeInto decodes span into the param's class-typed slot at dst. Pointer
// params point to new memory, or into slots when they are borrowed.
func (f *Func) decodeInto(p *param, span []byte, dst unsafe.Pointer, slots *argSlots) error {
	if p.class != classPtr {
		if !storePrim(p.class, span, dst, f.borrow) {
			return f.badParam(p)
		}
		return nil
	}
	if string(span) == "null" {
		*(*unsafe.Pointer)(dst) = nil
		return nil
	}
	if p.prim {
		var slot unsafe.Pointer
		ec := p.eclass
		if slots != nil {
			if ec == classString {
				slot = unsafe.Pointer(&slots.s[p.index])
			} else {
				slot = unsafe.Pointer(&slots.w[p.index])
			}
		} else {
			slot = reflect.New(p.elem).UnsafePointer()
		}
		if !storePrim(ec, span, slot, f.borrow) {
			return f.badParam(p)
		}
		*(*unsafe.Pointer)(dst) = slot
		return nil
	}
	nv := reflect.New(p.elem)
	if err := f.codec.Unmarshal(span, nv.Interface(), f.lenient || !p.strict); err != nil {
		return &ParamError{Index: p.index, Name: p.name, Msg: err.Error()}
	}
	*(*unsafe.Pointer)(dst) = nv.UnsafePointer()
	return nil
}

// appendResult appends the class-typed result at p.
func (f *Func) appendResult(dst []byte, p unsafe.Pointer) ([]byte, error) {
	if f.res.raw && f.shape&^shapeCtx >= shapeR {
		return f.appendRaw(dst, *(*[]byte)(p), nil)
	}
	c := f.res.class
	if f.shape&^shapeCtx < shapeR {
		c = classVoid
	}
	if f.res.enc != nil && c != classVoid {
		if out, err := f.res.enc.append(dst, p, 0); err == nil {
			return out, nil
		}
		// errFallback: the codec answers.
	}
	if c == classNone {
		out, err := f.codec.Append(dst, f.boxed(p))
		if err != nil {
			return dst, &ResultError{Err: err}
		}
		return out, nil
	}
	if c != classPtr {
		out, ok := appendPrim(c, dst, p)
		if !ok {
			return dst, unencodable(c, p, f.res.t)
		}
		return out, nil
	}
	ptr := *(*unsafe.Pointer)(p)
	if ptr == nil {
		return append(dst, "null"...), nil
	}
	elem := f.res.t.Elem()
	if ec := f.res.eclass; ec != classNone && ec != classPtr {
		out, ok := appendPrim(ec, dst, ptr)
		if !ok {
			return dst, unencodable(ec, ptr, elem)
		}
		return out, nil
	}
	out, err := f.codec.Append(dst, reflect.NewAt(elem, ptr).Interface())
	if err != nil {
		return dst, &ResultError{Err: err}
	}
	return out, nil
}

// unencodable is the error of a primitive of class c at p, of type t, that
// appendPrim refused: a float that is NaN or infinite.
func unencodable(c class, p unsafe.Pointer, t reflect.Type) error {
	switch c {
	case classF32:
		return &ResultError{Err: nonFinite(float64(*(*float32)(p)))}
	case classF64:
		return &ResultError{Err: nonFinite(*(*float64)(p))}
	}
	return &ResultError{Err: fmt.Errorf("unsupported value of type %s", t)}
}
