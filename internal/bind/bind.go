// Package bind turns Go functions into JSON-RPC method invokers.
//
// All reflection happens in Build, once per method. Functions of up to two
// params over primitive types (see the class table in table.go) are called
// through generic adapters that decode each param straight from its JSON span
// into a typed value and call the function without reflect.Value.Call. Every
// other shape is served by a reflection-based invoker that decodes
// non-primitive values through a Codec.
package bind

import (
	"bytes"
	"context"
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"github.com/jsonrpc-go/jsonrpc/internal/wire"
)

// JSON is the codec backed by encoding/json: the methods of
// jsonrpc.JSONCodec, and the codec of a Func whose Options name none.
type JSON struct{}

// Unmarshal decodes with json.Unmarshal, or a json.Decoder that disallows
// unknown fields.
func (JSON) Unmarshal(data []byte, v any, allowUnknown bool) error {
	if allowUnknown {
		return json.Unmarshal(data, v)
	}
	d := json.NewDecoder(bytes.NewReader(data))
	d.DisallowUnknownFields()
	return d.Decode(v)
}

// Append encodes with json.Marshal, HTML characters unescaped.
func (JSON) Append(dst []byte, v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return dst, err
	}
	return wire.AppendLong(dst, wire.UnescapeHTML(b)), nil
}

// codec is the codec of a Func: the two methods of a jsonrpc.Codec.
type codec struct {
	Unmarshal func(data []byte, v any, allowUnknown bool) error
	Append    func(dst []byte, v any) ([]byte, error)
}

// Options describe how a function's params are bound.
type Options struct {
	// Names gives the params their names for calls with named params, in order
	// and excluding a leading context.
	Names []string
	// Defaults gives values for the last len(Defaults) params, which become
	// optional.
	Defaults []any
	// Borrow lets string params and pointer params alias the request and a
	// per-call buffer instead of being copied: they are valid only until the
	// function returns.
	Borrow bool
	// Unmarshal and Append are the methods of the method's codec (a
	// jsonrpc.Codec, whose documentation says what they must do), which
	// decode and encode the values the invokers do not; nil means JSON's.
	Unmarshal func(data []byte, v any, allowUnknown bool) error
	Append    func(dst []byte, v any) ([]byte, error)
	// Standard says that the codec is one of this module's (IsStandard),
	// which encode as encoding/json does, so that the invokers encode the
	// results they can themselves; with a codec of the user's own, the
	// codec encodes every result that is not a primitive.
	Standard bool
	// AllowUnknown ignores named params and object members, at every
	// depth, that name no param or field, instead of refusing them.
	AllowUnknown bool
	// Receiver, when valid, is a pointer that fn, a method expression of its
	// type, is called with as its first argument.
	Receiver reflect.Value
	// Resolve, when not nil, makes the receiver per call instead: fn is a
	// method expression of Receiver's type, and each call gets its receiver
	// from Resolve with the call's context. Such calls take the reflection
	// path.
	Resolve func(ctx context.Context) (reflect.Value, error)
	// MaxCollect bounds the bytes of a sequence result collected into one
	// array, for a call whose connection does not stream it; 0 means no
	// bound.
	MaxCollect int
}

// ParamError reports params that do not fit a method. It maps to -32602.
type ParamError struct {
	Index int    // param index, or -1 when the error concerns the params as a whole
	Name  string // param name when known
	Field string // the path of the field in the param ("address.zip"), when in a nested struct
	Msg   string
}

func (e *ParamError) Error() string {
	if e.Field != "" {
		return (&ParamError{Index: e.Index, Name: e.Name, Msg: "field " + string(wire.AppendQuote(nil, e.Field)) + ": " + e.Msg}).Error()
	}
	switch {
	case e.Index < 0:
		return e.Msg
	case e.Name != "":
		return fmt.Sprintf("param %q: %s", e.Name, e.Msg)
	}
	return fmt.Sprintf("param %d: %s", e.Index, e.Msg)
}

// ResultError reports a result that cannot be encoded. It maps to -32603.
type ResultError struct{ Err error }

func (e *ResultError) Error() string { return "cannot encode result: " + e.Err.Error() }
func (e *ResultError) Unwrap() error { return e.Err }

// NonFinite returns the Go spelling of the float ("NaN", "+Inf" or "-Inf")
// that made the result unencodable, or "" when the cause was another.
// Codecs report such a float with a *json.UnsupportedValueError, as
// json.Marshal does.
func (e *ResultError) NonFinite() string {
	var u *json.UnsupportedValueError
	if errors.As(e.Err, &u) {
		switch u.Str {
		case "NaN", "+Inf", "-Inf":
			return u.Str
		}
	}
	return ""
}

// nonFinite is the error of a primitive float result that is NaN or
// infinite, as json.Marshal reports it.
func nonFinite(x float64) error {
	return &json.UnsupportedValueError{Value: reflect.ValueOf(x), Str: strconv.FormatFloat(x, 'g', -1, 64)}
}

// Func is a function bound for calls.
type Func struct {
	// Context reports whether the function takes a leading context.Context.
	Context bool
	// Fast reports whether calls avoid reflect.Value.Call.
	Fast bool
	// Seq reports whether the function returns a sequence (iter.Seq[T],
	// or iter.Seq2[T, error]), whose items are sent as the call's
	// connection shapes them (keys.SeqSender), or as one array.
	Seq bool

	fast     fastInvoker  // nil when calls go through invokeReflect
	typed    typedInvoker // set by Typed; takes precedence
	params   []param
	names    []string // for named calls; nil when positional only
	required int      // params without default
	variadic bool
	structs  bool // a single struct param bound by field
	fields   []field
	st       reflect.Type // the struct type, when structs
	// fieldwise: an object is decoded member by member into the fields
	// of the struct param (see decodeFields), not by the codec whole.
	fieldwise bool
	rest      param // the element of a variadic param
	embedded  bool  // the struct embeds others: named params are not checked
	borrow    bool
	lenient   bool // AllowUnknown
	codec     codec
	useSlots  bool // borrowed pointer params need per-call argSlots
	res       result
	shape     shape
	fn        unsafe.Pointer // points to a variable holding the function
	rv        reflect.Value
	recv      unsafe.Pointer // the bound receiver of a method expression
	recvV     reflect.Value
	resolve   func(context.Context) (reflect.Value, error) // a per-call receiver
	seq       *seqResult                                   // a sequence result
}

// Invoke calls the function: it decodes params (a JSON array, an object, or
// nil when absent; args holds the array's elements when the scanner recorded
// them), calls the function, with ctx when it takes one, and appends the JSON
// result to dst.
func (f *Func) Invoke(ctx context.Context, dst, params []byte, args *wire.Args) ([]byte, error) {
	if f.typed != nil {
		// The spans are found here, not in the invoker, so that args,
		// which the invoker cannot be shown not to keep, stays on the
		// caller's stack.
		var one [1][]byte
		if !f.structs {
			if err := f.spans(params, args, one[:]); err != nil {
				return dst, err
			}
		}
		return f.typed(ctx, dst, params, one[0])
	}
	if f.fast == nil {
		return f.invokeReflect(ctx, dst, params)
	}
	var sp [maxFast][]byte
	if err := f.spans(params, args, sp[:len(f.params)]); err != nil {
		return dst, err
	}
	slots := f.getArgSlots()
	dst, err := f.fast(ctx, dst, sp[0], sp[1], slots)
	putArgSlots(slots)
	return dst, err
}

type shape uint8

const (
	shapeNone shape = iota // func(...)
	shapeErr               // func(...) error
	shapeR                 // func(...) R
	shapeRErr              // func(...) (R, error)
	shapeCtx  shape = 4    // added when the function takes a context
)

type param struct {
	t      reflect.Type
	class  class
	name   string
	def    any // class-typed default for the fast path
	defV   reflect.Value
	opt    bool // has a default
	elem   reflect.Type
	eclass class // class of elem for pointers
	prim   bool  // t (or, for pointers, its element) is a primitive
	raw    bool  // t is json.RawMessage: the span itself, without the codec
	strict bool  // the unknown-field policy can matter for t (see strict)
	index  int
	// The decoders of non-primitives that need no codec (see
	// decodeParamAt): sub holds the fields of a struct decoded member by
	// member, slice marks a slice of primitives (of class eclass), and
	// unm a type whose pointer has its own UnmarshalJSON.
	sub   []field
	slice bool
	esize uintptr // the size of an element, for slice
	unm   bool
}

type result struct {
	t      reflect.Type
	class  class
	eclass class // class of the element for pointers
	prim   bool
	raw    bool // json.RawMessage: sent as it is, once checked
	// For a result the codec encodes (class is classNone): its layout in
	// the adapters (see layoutOf), and the type word of an interface
	// holding it (see boxed).
	layout class
	typ    unsafe.Pointer
	// enc encodes a result without the codec, when its type has an
	// encoder (see newEncoder) and is not a primitive.
	enc *encoder
}

type field struct {
	index  int     // in the struct
	offset uintptr // of the field in the struct
	name   string
	p      param // decodes the field's value
}

var (
	ctxType  = reflect.TypeFor[context.Context]()
	errType  = reflect.TypeFor[error]()
	jsonUnm  = reflect.TypeFor[json.Unmarshaler]()
	jsonMar  = reflect.TypeFor[json.Marshaler]()
	textUnm  = reflect.TypeFor[encoding.TextUnmarshaler]()
	textMar  = reflect.TypeFor[encoding.TextMarshaler]()
	errNotFn = errors.New("not a function")
	errNilFn = errors.New("nil function")
)

// Build binds fn. It fails, naming the problem, when fn cannot be served.
func Build(fn any, opts Options) (*Func, error) {
	if fn == nil {
		return nil, errNilFn
	}
	v := reflect.ValueOf(fn)
	t := v.Type()
	if t.Kind() != reflect.Func {
		return nil, fmt.Errorf("%w: %s", errNotFn, t)
	}
	if v.IsNil() {
		return nil, errNilFn
	}
	f := &Func{rv: v, borrow: opts.Borrow, lenient: opts.AllowUnknown, codec: codec{opts.Unmarshal, opts.Append}, variadic: t.IsVariadic()}
	standard := opts.Standard
	if f.codec.Unmarshal == nil || f.codec.Append == nil {
		f.codec, standard = codec{JSON{}.Unmarshal, JSON{}.Append}, true
	}
	first := 0
	if opts.Receiver.IsValid() {
		rt := opts.Receiver.Type()
		if rt.Kind() != reflect.Pointer || t.NumIn() == 0 || t.In(0) != rt {
			return nil, fmt.Errorf("receiver %s does not match %s", rt, t)
		}
		f.recvV, f.recv = opts.Receiver, opts.Receiver.UnsafePointer()
		f.resolve = opts.Resolve
		first = 1
	}
	if t.NumIn() > first && t.In(first) == ctxType {
		f.Context = true
		first++
	}
	for i := first; i < t.NumIn(); i++ {
		pt := t.In(i)
		if pt == ctxType {
			return nil, fmt.Errorf("context.Context must be the first param (param %d)", i)
		}
		if err := servable(pt); err != nil {
			return nil, fmt.Errorf("param %d: %w", len(f.params), err)
		}
		f.params = append(f.params, newParam(pt, len(f.params)))
	}
	switch t.NumOut() {
	case 0:
		f.shape = shapeNone
	case 1:
		if t.Out(0) == errType {
			f.shape = shapeErr
		} else {
			f.shape = shapeR
			f.res = newResult(t.Out(0))
		}
	case 2:
		if t.Out(1) != errType {
			if t.Out(0) == errType {
				return nil, fmt.Errorf("results (error, %s): the error must come last, as in (%[1]s, error)", t.Out(1))
			}
			return nil, fmt.Errorf("second result must be error, not %s", t.Out(1))
		}
		if t.Out(0) == errType {
			return nil, errors.New("first of two results must not be error")
		}
		f.shape = shapeRErr
		f.res = newResult(t.Out(0))
	default:
		return nil, fmt.Errorf("%d results: want none, T, error or (T, error)", t.NumOut())
	}
	if (f.shape == shapeR || f.shape == shapeRErr) && f.res.t != nil {
		if _, _, ok := seqOf(f.res.t); ok {
			if err := f.setSeq(f.res.t, opts.MaxCollect); err != nil {
				return nil, fmt.Errorf("result: sequence item: %w", err)
			}
		}
	}
	if (f.shape == shapeR || f.shape == shapeRErr) && f.seq == nil {
		if err := servable(f.res.t); err != nil {
			return nil, fmt.Errorf("result: %w", err)
		}
		if !standard {
			f.res.enc = nil // a codec of the user's own encodes every result it can
		}
	}
	if f.Context {
		f.shape |= shapeCtx
	}

	// Named params.
	if opts.Names != nil {
		if len(opts.Names) != len(f.params) {
			return nil, fmt.Errorf("%d param names for %d params", len(opts.Names), len(f.params))
		}
		seen := map[string]bool{}
		for i, n := range opts.Names {
			if n == "" || seen[n] {
				return nil, fmt.Errorf("param name %q is empty or repeated", n)
			}
			seen[n] = true
			f.params[i].name = n
		}
		f.names = opts.Names
	} else if len(f.params) == 1 && !f.variadic && isStruct(f.params[0].t) {
		f.structs = true
		f.fields, f.embedded = structFields(f.params[0].t)
		f.st = f.params[0].t
		if f.st.Kind() == reflect.Pointer {
			f.st = f.st.Elem()
		}
		f.fieldwise = fieldwise(f.st, f.fields, f.embedded)
	}

	// Defaults.
	if len(opts.Defaults) > len(f.params) {
		return nil, fmt.Errorf("%d defaults for %d params", len(opts.Defaults), len(f.params))
	}
	f.required = len(f.params) - len(opts.Defaults)
	for i, d := range opts.Defaults {
		p := &f.params[f.required+i]
		if f.variadic && p.index == len(f.params)-1 {
			return nil, errors.New("a variadic param cannot have a default")
		}
		dv, err := convertDefault(d, p.t)
		if err != nil {
			return nil, fmt.Errorf("default for param %d: %w", p.index, err)
		}
		p.opt, p.defV = true, dv
	}
	if f.variadic {
		// The variadic param may always be omitted.
		f.required = min(f.required, len(f.params)-1)
		last := f.params[len(f.params)-1]
		f.rest = newParam(last.t.Elem(), last.index)
		f.rest.name = last.name
	}

	if f.resolve != nil {
		return f, nil // each call resolves its receiver: the reflection path
	}
	if f.seq != nil {
		return f, nil // sequences take the reflection path
	}
	if err := f.buildFast(); err != nil {
		return nil, err
	}
	return f, nil
}

func isStruct(t reflect.Type) bool {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.Kind() == reflect.Struct && !hasCustomJSON(t)
}

func structFields(t reflect.Type) (fs []field, embedded bool) {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	for i := range t.NumField() {
		sf := t.Field(i)
		embedded = embedded || sf.Anonymous
		if !sf.IsExported() {
			continue
		}
		name := sf.Name
		if tag, ok := sf.Tag.Lookup("json"); ok {
			if tag == "-" {
				continue
			}
			// "-," names the field "-", as in encoding/json.
			if n, _, _ := strings.Cut(tag, ","); n != "" {
				name = n
			}
		}
		p := newParam(sf.Type, len(fs))
		p.name = name
		fs = append(fs, field{index: i, offset: sf.Offset, name: name, p: p})
	}
	return fs, embedded
}

// servable rejects types that no JSON value can carry.
func servable(t reflect.Type) error {
	switch t.Kind() {
	case reflect.Chan, reflect.Func, reflect.UnsafePointer, reflect.Complex64, reflect.Complex128, reflect.Invalid:
		return fmt.Errorf("type %s cannot be carried in JSON", t)
	case reflect.Pointer:
		if t.Elem().Kind() == reflect.Pointer {
			return fmt.Errorf("type %s: pointer to pointer", t)
		}
		return servable(t.Elem())
	}
	return nil
}

func convertDefault(d any, t reflect.Type) (reflect.Value, error) {
	if d == nil {
		switch t.Kind() {
		case reflect.Pointer, reflect.Interface, reflect.Slice, reflect.Map:
			return reflect.Zero(t), nil
		}
		return reflect.Value{}, fmt.Errorf("nil is not a %s", t)
	}
	v := reflect.ValueOf(d)
	switch {
	case v.Type().AssignableTo(t):
		out := reflect.New(t).Elem()
		out.Set(v)
		return out, nil
	case isNumber(v.Kind()) && isNumber(t.Kind()) && v.CanConvert(t):
		c := v.Convert(t)
		if !c.Convert(v.Type()).Equal(v) {
			return reflect.Value{}, fmt.Errorf("%v does not fit %s", d, t)
		}
		return c, nil
	}
	return reflect.Value{}, fmt.Errorf("%T is not assignable to %s", d, t)
}

func isNumber(k reflect.Kind) bool {
	return k >= reflect.Int && k <= reflect.Float64
}

// hasCustomJSON reports whether t or *t controls its own JSON form.
func hasCustomJSON(t reflect.Type) bool {
	pt := reflect.PointerTo(t)
	for _, i := range [...]reflect.Type{jsonUnm, jsonMar, textUnm, textMar} {
		if t.Implements(i) || pt.Implements(i) {
			return true
		}
	}
	return false
}

func newParam(t reflect.Type, index int) param {
	p := param{t: t, index: index, class: classOf(t), raw: t == rawType, strict: strict(t, nil)}
	p.prim = p.class != classNone
	if !p.prim && !p.raw {
		switch {
		case reflect.PointerTo(t).Implements(jsonUnm):
			p.unm = t.Kind() != reflect.Pointer && t.Kind() != reflect.Interface
		case hasCustomJSON(t):
		case t.Kind() == reflect.Struct:
			if fs, embedded := structFields(t); fieldwise(t, fs, embedded) {
				p.sub = fs
			}
		case t.Kind() == reflect.Slice && t.Elem().Kind() != reflect.Uint8:
			if ec := classOf(t.Elem()); ec != classNone && ec != classPtr {
				p.slice, p.eclass, p.esize = true, ec, t.Elem().Size()
			}
		}
	}
	if t.Kind() == reflect.Pointer {
		p.elem = t.Elem()
		p.eclass = classOf(p.elem)
		p.prim = p.eclass != classNone && p.eclass != classPtr
	}
	return p
}

func newResult(t reflect.Type) result {
	r := result{t: t, class: classOf(t), raw: t == rawType}
	r.prim = r.class != classNone
	if t.Kind() == reflect.Pointer {
		r.eclass = classOf(t.Elem())
	}
	if r.class == classNone {
		if r.layout = layoutOf(t); r.layout != classNone && t.Kind() != reflect.Interface {
			r.typ = typeWord(t)
		}
	}
	if !r.raw && (r.class == classNone || r.class == classPtr && (r.eclass == classNone || r.eclass == classPtr)) {
		r.enc = newEncoder(t)
	}
	return r
}

// spans fills out with the JSON span of each param from params (an array, an
// object, or nil), leaving nil for an omitted optional param.
func (f *Func) spans(params []byte, args *wire.Args, out [][]byte) error {
	n := len(f.params)
	switch {
	case params == nil:
	case args != nil && args.Known && args.N <= wire.MaxArgs:
		if args.N > n {
			return f.tooMany()
		}
		for i := range args.N {
			out[i] = args.Elems[i]
		}
	case params[0] == '[':
		var (
			elem []byte
			pos  int
			ok   bool
			i    int
		)
		for i = 0; ; i++ {
			elem, pos, ok = wire.NextElement(params, pos)
			if !ok {
				break
			}
			if i >= n {
				return f.tooMany()
			}
			out[i] = elem
		}
	default:
		if f.names == nil {
			if n == 0 && (f.lenient || wire.SkipSpace(params, 1) == len(params)-1) {
				break // {} names no params; AllowUnknown ignores those it names
			}
			if n == 0 {
				return &ParamError{Index: -1, Msg: "named params are not accepted: the method takes none (send no params, [] or {})"}
			}
			return &ParamError{Index: -1, Msg: "named params are not accepted: pass an array, or register the method with jsonrpc.ParamNames to name its params"}
		}
		var (
			name, value []byte
			esc, ok     bool
			pos         int
		)
		for {
			name, value, esc, pos, ok = wire.NextMember(params, pos)
			if !ok {
				break
			}
			i := f.lookupName(name, esc)
			if i < 0 && f.lenient {
				continue
			}
			if i < 0 {
				return &ParamError{Index: -1, Msg: "unknown param " + string(wire.AppendQuote(nil, unescapeName(name, esc)))}
			}
			if out[i] != nil {
				return &ParamError{Index: i, Name: f.names[i], Msg: "given twice"}
			}
			out[i] = value
		}
	}
	for i := 0; i < f.required; i++ {
		if out[i] == nil {
			return f.missing(i)
		}
	}
	return nil
}

func (f *Func) tooMany() error {
	return &ParamError{Index: -1, Msg: fmt.Sprintf("too many params: want at most %d", len(f.params))}
}

func (f *Func) missing(i int) error {
	return &ParamError{Index: i, Name: f.params[i].name, Msg: "missing required param"}
}

func unescapeName(name []byte, esc bool) []byte {
	if !esc {
		return name
	}
	return wire.AppendUnquoted(nil, name)
}

func (f *Func) lookupName(name []byte, esc bool) int {
	if esc {
		name = wire.AppendUnquoted(nil, name)
	}
	for i, n := range f.names {
		if n == string(name) {
			return i
		}
	}
	return -1
}

// argSlots is the storage that the borrowed pointer params of one call point
// into: slot i holds the value of param i (in s for strings, in w for the
// other primitives).
type argSlots struct {
	w [maxFast]uint64
	s [maxFast]string
}

// argSlotsPool caches the argSlots of calls with borrowed pointer params;
// sync.Pool keeps a per-P cache in front of its shared lists.
var argSlotsPool = sync.Pool{New: func() any { return new(argSlots) }}

// getArgSlots returns argSlots for one call of f, or nil when f has no
// borrowed pointer params.
func (f *Func) getArgSlots() *argSlots {
	if !f.useSlots {
		return nil
	}
	return argSlotsPool.Get().(*argSlots)
}

func putArgSlots(s *argSlots) {
	if s != nil {
		*s = argSlots{}
		argSlotsPool.Put(s)
	}
}
