package bind

import (
	"errors"
	"reflect"
	"strings"
	"sync"
	"time"
	"unicode"
	"unsafe"

	"github.com/jsonrpc-go/jsonrpc/internal/wire"
)

// An encoder appends the values of one type as encoding/json encodes them
// (without escaping "<", ">" and "&", as the server's own encodings never
// do), with neither reflection nor the codec: structs member by member,
// pointers, slices, primitives and time.Time. newEncoder says which types
// have one.
type encoder struct {
	kind   encKind
	class  class        // encPrim
	fields []encField   // encStruct
	elem   *encoder     // encPtr, encSlice
	esize  uintptr      // encSlice: the size of an element
	t      reflect.Type // the type encoded
}

type encKind uint8

const (
	encPrim   encKind = iota // a primitive of class class
	encStruct                // a struct, its fields in order
	encPtr                   // a pointer: null, or what it points to
	encSlice                 // a slice: null, or its elements
	encTime                  // a time.Time, by its MarshalJSON's rules
)

// An encField is a member of the object a struct encodes to.
type encField struct {
	key    string  // the member's name, quoted, and the colon after it
	offset uintptr // of the field in the struct
	omit   bool    // omitempty: left out when empty, as encoding/json says
	enc    *encoder
}

// errFallback is what an encoder answers for a value that it does not
// encode as encoding/json would: a float that is NaN or infinite, a time
// that RFC 3339 cannot write, values nested deeper than maxEncodeDepth (a
// cycle, perhaps). The caller then hands the whole value to the codec,
// whose answer, and error, is the result's.
var errFallback = errors.New("bind: encode with the codec")

// maxEncodeDepth is how deep an encoder goes before it leaves a value to
// the codec, which detects cycles.
const maxEncodeDepth = 512

var timeType = reflect.TypeFor[time.Time]()

// standard holds the dynamic types of the codecs that encode every value as
// encoding/json does, but for escaping "<", ">" and "&": the codecs of this
// module, which package codec/codectest checks. The results of a method with
// one of them that have an encoder are encoded by it; a codec of any other
// type, even one embedding a standard codec, encodes every result that is not
// a primitive itself.
var standard sync.Map // reflect.Type → struct{}

func init() { MarkStandard(JSON{}) }

// MarkStandard adds the type of c to the standard codecs. Only this module's
// codecs call it, from their packages' init functions.
func MarkStandard(c any) { standard.Store(reflect.TypeOf(c), struct{}{}) }

// IsStandard reports whether c is of the type of a standard codec.
func IsStandard(c any) bool {
	_, ok := standard.Load(reflect.TypeOf(c))
	return ok
}

// newEncoder returns the encoder of t, or nil when some value of t, at any
// depth, is one that only the codec encodes: a map, an interface, an array,
// []byte (base64), a type with JSON or text methods of its own other than
// time.Time, a struct that embeds another, or a field whose tag asks for
// ",string" or ",omitzero" or names it with characters encoding/json does
// not take in a name. Two fields of one name are also left to the codec.
func newEncoder(t reflect.Type) *encoder {
	return buildEncoder(t, map[reflect.Type]*encoder{})
}

// buildEncoder is newEncoder, with the encoders built so far: a recursive
// type refers to its own encoder, finished once the outermost call returns.
// As every type it visits is needed to encode t, one that has no encoder
// leaves t without one, and the half-built encoders are dropped.
func buildEncoder(t reflect.Type, seen map[reflect.Type]*encoder) *encoder {
	if e, ok := seen[t]; ok {
		return e
	}
	if t == timeType {
		return &encoder{kind: encTime, t: t}
	}
	if c := classOf(t); c != classNone && c != classPtr {
		return &encoder{kind: encPrim, class: c, t: t}
	}
	if t.Kind() == reflect.Pointer && t.Elem() == timeType {
		// *time.Time has time.Time's MarshalJSON: null or the time.
		return &encoder{kind: encPtr, elem: &encoder{kind: encTime, t: timeType}, t: t}
	}
	if hasCustomJSON(t) {
		return nil
	}
	e := &encoder{t: t}
	seen[t] = e
	switch t.Kind() {
	case reflect.Pointer:
		e.kind = encPtr
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return nil // base64, or a slice of a named byte type
		}
		e.kind, e.esize = encSlice, t.Elem().Size()
	case reflect.Struct:
		e.kind = encStruct
		if !e.buildFields(seen) {
			return nil
		}
		return e
	default:
		return nil
	}
	if e.elem = buildEncoder(t.Elem(), seen); e.elem == nil {
		return nil
	}
	return e
}

// buildFields fills in the fields of a struct's encoder, as encoding/json
// names and orders them; it reports false when the struct has no encoder.
func (e *encoder) buildFields(seen map[reflect.Type]*encoder) bool {
	t := e.t
	names := map[string]bool{}
	for i := range t.NumField() {
		sf := t.Field(i)
		if sf.Anonymous {
			return false // encoding/json promotes the fields of embedded structs
		}
		if !sf.IsExported() {
			continue
		}
		name, omit := sf.Name, false
		if tag, ok := sf.Tag.Lookup("json"); ok {
			if tag == "-" {
				continue
			}
			n, opts, _ := strings.Cut(tag, ",")
			switch {
			case validTagName(n):
				name = n
			case n != "":
				// encoding/json's releases read such a name differently.
				return false
			}
			for opts != "" {
				var o string
				o, opts, _ = strings.Cut(opts, ",")
				switch o {
				case "omitempty":
					omit = true
				case "string", "omitzero":
					return false
				}
			}
		}
		if names[name] {
			return false // encoding/json's rules for clashing names
		}
		names[name] = true
		fe := buildEncoder(sf.Type, seen)
		if fe == nil {
			return false
		}
		key := string(wire.AppendQuote(nil, name)) + ":"
		e.fields = append(e.fields, encField{key: key, offset: sf.Offset, omit: omit, enc: fe})
	}
	return true
}

// validTagName reports whether encoding/json takes s, a json tag's name, as
// the member's name (up to Go 1.26 it uses the field's name otherwise; Go
// 1.27 reads some such names in its own way).
func validTagName(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		switch {
		case strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c):
		case !unicode.IsLetter(c) && !unicode.IsDigit(c):
			return false
		}
	}
	return true
}

// append appends the value at p, of e's type. p does not escape, so that a
// result on its function's stack stays there.
func (e *encoder) append(dst []byte, p unsafe.Pointer, depth int) ([]byte, error) {
	switch e.kind {
	case encPrim:
		out, ok := appendPrim(e.class, dst, p)
		if !ok {
			return dst, errFallback
		}
		return out, nil
	case encTime:
		out, err := (*time.Time)(p).AppendText(append(dst, '"'))
		if err != nil {
			return dst, errFallback
		}
		return append(out, '"'), nil
	case encPtr:
		q := *(*unsafe.Pointer)(p)
		if q == nil {
			return append(dst, "null"...), nil
		}
		if depth >= maxEncodeDepth {
			return dst, errFallback
		}
		return e.elem.append(dst, q, depth+1)
	case encSlice:
		s := *(*[]byte)(p) // the header of a slice of any element type
		base := unsafe.Pointer(unsafe.SliceData(s))
		if base == nil {
			return append(dst, "null"...), nil
		}
		if depth >= maxEncodeDepth {
			return dst, errFallback
		}
		dst = append(dst, '[')
		var err error
		for i := range len(s) {
			if i > 0 {
				dst = append(dst, ',')
			}
			if len(dst) >= wire.LongValue {
				dst = wire.Reserve(dst, 4096)
				wire.YieldEvery(i)
			}
			if dst, err = e.elem.append(dst, unsafe.Add(base, uintptr(i)*e.esize), depth+1); err != nil {
				return dst, err
			}
		}
		return append(dst, ']'), nil
	}
	// encStruct
	if depth >= maxEncodeDepth {
		return dst, errFallback
	}
	dst = append(dst, '{')
	first := true
	var err error
	for i := range e.fields {
		fd := &e.fields[i]
		fp := unsafe.Add(p, fd.offset)
		if fd.omit && fd.enc.empty(fp) {
			continue
		}
		if !first {
			dst = append(dst, ',')
		}
		first = false
		dst = append(dst, fd.key...)
		if dst, err = fd.enc.append(dst, fp, depth+1); err != nil {
			return dst, err
		}
	}
	return append(dst, '}'), nil
}

// empty reports whether the value at p is empty as omitempty means it: false,
// zero, an empty string or slice, a nil pointer; never a struct.
func (e *encoder) empty(p unsafe.Pointer) bool {
	switch e.kind {
	case encPtr:
		return *(*unsafe.Pointer)(p) == nil
	case encSlice:
		return len(*(*[]byte)(p)) == 0
	case encPrim:
		switch e.class {
		case classBool, classI8, classU8:
			return *(*uint8)(p) == 0
		case classI16, classU16:
			return *(*uint16)(p) == 0
		case classI32, classU32:
			return *(*uint32)(p) == 0
		case classI64, classU64:
			return *(*uint64)(p) == 0
		case classF32:
			return *(*float32)(p) == 0 // -0 too, as encoding/json's v.Float() == 0
		case classF64:
			return *(*float64)(p) == 0
		case classString:
			return len(*(*string)(p)) == 0
		}
	}
	return false
}
