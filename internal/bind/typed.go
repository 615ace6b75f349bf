package bind

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"unsafe"

	"github.com/jsonrpc-go/jsonrpc/internal/wire"
)

var (
	rawType    = reflect.TypeFor[json.RawMessage]()
	numberType = reflect.TypeFor[json.Number]()
)

// A typedInvoker serves a function bound by Typed: it decodes the params
// (for a struct bound by field) or the span of the only param (nil when
// omitted), calls the function directly and appends the result.
type typedInvoker func(ctx context.Context, dst, params, only []byte) ([]byte, error)

// Typed binds fn, a function of one param P (the params: a struct bound by
// field, or the only positional param) and one result R, with the rules and
// options of Build. Its calls are direct: no reflect.Value.Call, and P is
// decoded, and R encoded, without reflection where their types allow.
// Context reports whether the function that fn wraps takes a context, so
// that the server knows whether to attach the call's information to it.
func Typed[P, R any](fn func(context.Context, P) (R, error), withContext bool, opts Options) (*Func, error) {
	if fn == nil {
		return nil, errNilFn
	}
	if opts.Receiver.IsValid() || opts.Resolve != nil {
		return nil, errors.New("a typed function has no receiver")
	}
	f, err := Build(fn, opts)
	if err != nil {
		return nil, err
	}
	if f.seq != nil {
		return f, nil // a sequence result: the reflection path, which streams it
	}
	f.Context = withContext
	if !withContext {
		f.shape &^= shapeCtx
	}
	f.fast, f.useSlots = nil, false
	f.Fast = true
	byPtr := f.structs && f.params[0].t.Kind() == reflect.Pointer
	prim := !byPtr && f.primOnly(&f.params[0])
	echo := !f.structs && f.params[0].raw // P is a json.RawMessage
	f.typed = func(ctx context.Context, dst, params, only []byte) ([]byte, error) {
		// p stays on the stack when nothing but primitives is decoded into
		// it; otherwise the codec is given a value on the heap.
		var p P
		var err error
		switch {
		case prim && f.structs:
			err = f.decodeStructPrim(params, unsafe.Pointer(&p))
		case prim:
			if only == nil { // omitted, with a default
				p = f.params[0].defV.Interface().(P)
			} else {
				err = f.decodePrimAt(&f.params[0], only, unsafe.Pointer(&p))
			}
		case byPtr:
			nv := reflect.New(f.st)
			if err = f.decodeStruct(params, nv.UnsafePointer()); err == nil {
				*(*unsafe.Pointer)(unsafe.Pointer(&p)) = nv.UnsafePointer()
			}
		default:
			hp := new(P)
			if f.structs {
				err = f.decodeStruct(params, unsafe.Pointer(hp))
			} else {
				err = f.decodeOnly(only, unsafe.Pointer(hp))
			}
			p = *hp
		}
		if err != nil {
			return dst, err
		}
		r, err := fn(ctx, p)
		if err != nil {
			return dst, err
		}
		if f.res.raw {
			var param []byte
			if echo && only != nil { // not a default, which the scanner has not seen
				param = *(*[]byte)(unsafe.Pointer(&p))
			}
			return f.appendRaw(dst, *(*[]byte)(unsafe.Pointer(&r)), param)
		}
		if f.res.enc != nil {
			if out, err := f.res.enc.append(dst, unsafe.Pointer(&r), 0); err == nil {
				return out, nil
			}
			// errFallback: the codec answers.
		} else if f.res.class != classNone {
			return f.appendResult(dst, unsafe.Pointer(&r))
		}
		out, err := f.codec.Append(dst, r)
		if err != nil {
			return dst, &ResultError{Err: err}
		}
		return out, nil
	}
	return f, nil
}

// decodeOnly decodes span, the only param's (not a struct bound by field),
// into dst, a value of its type; a nil span is an omitted param with a
// default.
func (f *Func) decodeOnly(span []byte, dst unsafe.Pointer) error {
	p := &f.params[0]
	if span == nil {
		reflect.NewAt(p.t, dst).Elem().Set(p.defV)
		return nil
	}
	return f.decodeParamAt(p, span, dst)
}

// decodeParamAt decodes span, a JSON value, into dst, a value of the
// param's type: primitives and raw JSON without the codec, the rest with
// it.
func (f *Func) decodeParamAt(p *param, span []byte, dst unsafe.Pointer) error {
	switch {
	case p.raw:
		*(*json.RawMessage)(dst) = f.rawParam(span)
		return nil
	case p.class != classNone:
		return f.decodeInto(p, span, dst, nil)
	case p.sub != nil:
		return f.decodeNested(p, span, dst)
	case p.slice:
		return f.decodeSlice(p, span, dst)
	case p.unm:
		// As every codec does, the type decodes itself from the span.
		if err := reflect.NewAt(p.t, dst).Interface().(json.Unmarshaler).UnmarshalJSON(span); err != nil {
			return &ParamError{Index: p.index, Name: p.name, Msg: err.Error()}
		}
		return nil
	}
	if err := f.codec.Unmarshal(span, reflect.NewAt(p.t, dst).Interface(), f.lenient || !p.strict); err != nil {
		return &ParamError{Index: p.index, Name: p.name, Msg: err.Error()}
	}
	return nil
}

// decodeNested decodes span into the struct at dst, of p's type, member by
// member: null leaves it as it is, as encoding/json does. An error names
// the field by its path from p ("address.zip").
func (f *Func) decodeNested(p *param, span []byte, dst unsafe.Pointer) error {
	switch span[0] {
	case 'n':
		return nil
	case '{':
	default:
		return &ParamError{Index: p.index, Name: p.name, Msg: "want an object"}
	}
	for fd, value, pos, err := f.nextField(p.sub, span, 0, false, nil); fd != nil || err != nil; fd, value, pos, err = f.nextField(p.sub, span, pos, false, fd) {
		if err == nil {
			err = f.decodeParamAt(&fd.p, value, unsafe.Add(dst, fd.offset))
		}
		if err != nil {
			pe, ok := err.(*ParamError)
			switch {
			case !ok:
				return &ParamError{Index: p.index, Name: p.name, Msg: err.Error()}
			case pe.Field != "":
				return &ParamError{Index: p.index, Name: p.name, Field: pe.Name + "." + pe.Field, Msg: pe.Msg}
			}
			return &ParamError{Index: p.index, Name: p.name, Field: pe.Name, Msg: pe.Msg}
		}
	}
	return nil
}

// decodeSlice decodes span into the slice of primitives at dst, of p's
// type: null is a nil slice, an array a new slice, and a null element is
// left zero, as encoding/json decodes them.
func (f *Func) decodeSlice(p *param, span []byte, dst unsafe.Pointer) error {
	switch span[0] {
	case 'n':
		*(*[]byte)(dst) = nil // a slice header of any element type
		return nil
	case '[':
	default:
		return &ParamError{Index: p.index, Name: p.name, Msg: "want an array"}
	}
	// The elements are found in one pass when they are few, in two (a
	// count, then the decoding) when they are many.
	var few [16][]byte
	n, pos, more := 0, 0, false
	for elem, next, ok := wire.NextElement(span, 0); ok; elem, next, ok = wire.NextElement(span, next) {
		if n >= len(few) {
			more = true
		} else {
			few[n], pos = elem, next
		}
		n++
	}
	base, size := reflect.MakeSlice(p.t, n, n).UnsafePointer(), p.esize
	for i := range min(n, len(few)) {
		if few[i][0] != 'n' && !storePrim(p.eclass, few[i], unsafe.Add(base, uintptr(i)*size), f.borrow) {
			return f.badElement(p, i)
		}
	}
	if more {
		i := len(few)
		for elem, next, ok := wire.NextElement(span, pos); ok; elem, next, ok = wire.NextElement(span, next) {
			if elem[0] != 'n' && !storePrim(p.eclass, elem, unsafe.Add(base, uintptr(i)*size), f.borrow) {
				return f.badElement(p, i)
			}
			wire.YieldEvery(i)
			i++
		}
	}
	// The header of a slice is the same whatever its element type.
	*(*[]byte)(dst) = unsafe.Slice((*byte)(base), n)
	return nil
}

// badElement is the error of element i of a slice of primitives that is not
// of the elements' kind.
func (f *Func) badElement(p *param, i int) error {
	return &ParamError{Index: p.index, Name: p.name, Msg: "element " + itoa(i) + ": want " + kindWant[p.eclass]}
}

// rawParam is the value of a json.RawMessage param: the span the scanner
// has validated, copied unless borrowed.
func (f *Func) rawParam(span []byte) json.RawMessage {
	if f.borrow {
		return span[:len(span):len(span)]
	}
	return bytes.Clone(span)
}

// appendRaw appends a json.RawMessage result, once checked: without the
// white space outside its strings, as encoding/json encodes it, and null
// when it is empty. It is not re-encoded, so that, as for string results,
// "<", ">" and "&" are not escaped. A result that is the very bytes of a
// json.RawMessage param (an echo) is not checked again: the scanner has
// validated them.
func (f *Func) appendRaw(dst []byte, b []byte, param []byte) ([]byte, error) {
	if len(b) == 0 {
		return append(dst, "null"...), nil
	}
	v := b
	if len(param) != len(b) || unsafe.SliceData(param) != unsafe.SliceData(b) {
		var err error
		if v, err = (wire.Scanner{}).Validate(b); err != nil {
			return dst, &ResultError{Err: errors.New("json.RawMessage result is not valid JSON: " + err.Error())}
		}
	}
	if !hasSpace(v) {
		return wire.AppendLong(dst, v), nil
	}
	return wire.AppendCompact(dst, v), nil
}

// hasSpace reports whether v holds a JSON white space byte, inside a string
// or not.
func hasSpace(v []byte) bool {
	return bytes.IndexByte(v, ' ') >= 0 || bytes.IndexByte(v, '\n') >= 0 ||
		bytes.IndexByte(v, '\t') >= 0 || bytes.IndexByte(v, '\r') >= 0
}

// strict reports whether the unknown-field policy can matter when a value
// of type t is decoded: whether the codec may decode a JSON object into a
// struct of t's own fields, at any depth. A type with its own JSON methods
// decodes itself, and an interface decodes objects into maps.
func strict(t reflect.Type, seen map[reflect.Type]bool) bool {
	if hasCustomJSON(t) {
		return false
	}
	switch t.Kind() {
	case reflect.Struct:
		return true
	case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map:
		if seen[t] {
			return false
		}
		if seen == nil {
			seen = map[reflect.Type]bool{}
		}
		seen[t] = true
		return strict(t.Elem(), seen)
	}
	return false
}

// fieldwise reports whether the struct's object members can be decoded one
// by one into its fields: no embedded structs (whose fields encoding/json
// promotes), no field with the ",string" option, and no two field names
// that encoding/json's case-insensitive match could confuse.
func fieldwise(t reflect.Type, fs []field, embedded bool) bool {
	if embedded {
		return false
	}
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	for i, fd := range fs {
		if tag, ok := t.Field(fd.index).Tag.Lookup("json"); ok {
			n, opts, _ := strings.Cut(tag, ",")
			if strings.Contains(","+opts+",", ",string,") || n != "" && !validTagName(n) {
				return false // a name encoding/json's releases read differently, too
			}
		}
		for _, other := range fs[:i] {
			if strings.EqualFold(fd.name, other.name) {
				return false
			}
		}
	}
	return true
}

// decodeStruct decodes params into the struct at base, for the single
// struct param: an object by field names, an array by field order, and
// the struct whole as the only element of an array.
func (f *Func) decodeStruct(params []byte, base unsafe.Pointer) error {
	if obj, ok := f.wholeStruct(params); ok {
		// The struct sent whole as the only element of a positional
		// array, as go-ethereum's client and vscode-jsonrpc's byPosition
		// send it.
		params = obj
	}
	switch {
	case params == nil:
	case params[0] == '{':
		if f.fieldwise {
			return f.decodeFields(params, base)
		}
		if !f.embedded && !f.lenient {
			if err := f.checkFieldNames(params); err != nil {
				return err
			}
		}
		if err := f.codec.Unmarshal(params, reflect.NewAt(f.st, base).Interface(), f.lenient); err != nil {
			return &ParamError{Index: -1, Msg: err.Error()}
		}
	default:
		i := -1
		for elem := range wire.Elements(params) {
			i++
			if i >= len(f.fields) {
				return &ParamError{Index: -1, Msg: "too many params: want at most " + itoa(len(f.fields))}
			}
			fd := &f.fields[i]
			if err := f.decodeParamAt(&fd.p, elem, unsafe.Add(base, fd.offset)); err != nil {
				return err
			}
		}
	}
	return nil
}

// decodeFields decodes the members of the object obj, which the scanner
// has validated, each into its field of the struct at base, matching names
// as encoding/json does (exactly, or else case-insensitively) in the same
// pass. As with encoding/json, null leaves a field that is not a pointer
// unchanged, and a member given twice is decoded twice, the last winning.
func (f *Func) decodeFields(obj []byte, base unsafe.Pointer) error {
	for fd, value, pos, err := f.nextField(f.fields, obj, 0, true, nil); fd != nil || err != nil; fd, value, pos, err = f.nextField(f.fields, obj, pos, true, fd) {
		if err != nil {
			return err
		}
		if err := f.decodeParamAt(&fd.p, value, unsafe.Add(base, fd.offset)); err != nil {
			return err
		}
	}
	return nil
}

// nextField returns the next member of obj from pos that is to be decoded
// into one of the fields fs (of the struct param when top, of a nested
// struct otherwise), its field and the position after it; a nil field and
// error at the end. prev is the field the previous member went to, if any:
// members mostly come in the order of their fields, so the one after it is
// tried first.
func (f *Func) nextField(fs []field, obj []byte, pos int, top bool, prev *field) (*field, []byte, int, error) {
	from := 0
	if prev != nil {
		from = prev.p.index + 1
	}
	for {
		name, value, esc, next, ok := wire.NextMember(obj, pos)
		if !ok {
			return nil, nil, next, nil
		}
		pos = next
		fd := findField(fs, name, esc, from)
		switch {
		case fd == nil && f.lenient:
			continue
		case fd == nil && top:
			return nil, nil, pos, &ParamError{Index: -1, Msg: "unknown param " + string(wire.AppendQuote(nil, unescapeName(name, esc)))}
		case fd == nil:
			return nil, nil, pos, errors.New("unknown field " + string(wire.AppendQuote(nil, unescapeName(name, esc))))
		case value[0] == 'n' && !fd.p.raw && fd.p.class != classNone && fd.p.class != classPtr:
			continue // null leaves a primitive as it is
		}
		return fd, value, pos, nil
	}
}

// primOnly reports whether every value p decodes (p itself, or the fields
// of a struct decoded field by field) is a primitive or raw JSON, which
// never reach the codec: decodePrimAt and decodeStructPrim then serve it,
// and its value may stay on the caller's stack.
func (f *Func) primOnly(p *param) bool {
	prim := func(p *param) bool { return p.raw || (p.class != classNone && (p.class != classPtr || p.prim)) }
	// Nested structs, slices and types with their own UnmarshalJSON need
	// no codec either, but they keep or hand on pointers into the value.
	if !f.structs {
		return prim(p)
	}
	if !f.fieldwise {
		return false
	}
	for i := range f.fields {
		if !prim(&f.fields[i].p) {
			return false
		}
	}
	return true
}

// decodePrimAt is decodeParamAt for a primitive or raw JSON param: it never
// calls the codec, so that dst does not escape.
func (f *Func) decodePrimAt(p *param, span []byte, dst unsafe.Pointer) error {
	if p.raw {
		*(*json.RawMessage)(dst) = f.rawParam(span)
		return nil
	}
	return f.decodeInto(p, span, dst, nil)
}

// decodeStructPrim is decodeStruct for a struct whose fields are all
// primitives or raw JSON, decoded field by field (see primOnly): it never
// calls the codec, so that base does not escape.
func (f *Func) decodeStructPrim(params []byte, base unsafe.Pointer) error {
	if obj, ok := f.wholeStruct(params); ok {
		params = obj
	}
	switch {
	case params == nil:
	case params[0] == '{':
		for fd, value, pos, err := f.nextField(f.fields, params, 0, true, nil); fd != nil || err != nil; fd, value, pos, err = f.nextField(f.fields, params, pos, true, fd) {
			if err != nil {
				return err
			}
			if err := f.decodePrimAt(&fd.p, value, unsafe.Add(base, fd.offset)); err != nil {
				return err
			}
		}
	default:
		i := 0
		for elem, pos, ok := wire.NextElement(params, 0); ok; elem, pos, ok = wire.NextElement(params, pos) {
			if i >= len(f.fields) {
				return &ParamError{Index: -1, Msg: "too many params: want at most " + itoa(len(f.fields))}
			}
			fd := &f.fields[i]
			if err := f.decodePrimAt(&fd.p, elem, unsafe.Add(base, fd.offset)); err != nil {
				return err
			}
			i++
		}
	}
	return nil
}

// findField returns the field of fs the member name (escaped when esc)
// names, or nil; fs[from], when there is one, is tried first.
func findField(fs []field, name []byte, esc bool, from int) *field {
	if esc {
		name = wire.AppendUnquoted(nil, name)
	}
	if from < len(fs) && fs[from].name == string(name) {
		return &fs[from]
	}
	for i := range fs {
		if fs[i].name == string(name) {
			return &fs[i]
		}
	}
	for i := range fs {
		if strings.EqualFold(fs[i].name, string(name)) {
			return &fs[i]
		}
	}
	return nil
}

func itoa(n int) string { return string(wire.AppendInt(nil, int64(n))) }
