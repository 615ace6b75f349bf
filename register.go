package jsonrpc

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/jsonrpc-go/jsonrpc/internal/bind"
)

// A MethodOption configures the registration of one method: it is passed to
// Register, or to ForMethod for one method of a service. Later options win.
type MethodOption func(*methodConfig)

// A ServiceOption configures RegisterService: which Go methods are
// registered, under which names, and with which MethodOptions. Later options
// win.
type ServiceOption func(*serviceConfig)

type methodConfig struct {
	names    []string
	defaults []any
	borrow   bool
	blocking bool
	codec    Codec
	access   access   // RequireScopes, Public
	scopes   []string // RequireScopes
}

type serviceConfig struct {
	rename map[string]string
	skip   map[string]bool
	per    map[string][]MethodOption
}

// ParamNames names a function's params, in order and excluding a leading
// context, so that it can be called with named params as well as positional
// ones. Go keeps no param names at run time; without this option a function
// takes positional params only (or, when its only param is a struct, named
// params by the struct's json field names).
func ParamNames(names ...string) MethodOption {
	return func(c *methodConfig) { c.names = names }
}

// Defaults makes the last len(values) params optional: a call that omits
// them gets these values. Each value must be assignable to its param, or be a
// number that converts to it exactly. A call that omits a param without a
// default is answered with CodeInvalidParams naming it.
func Defaults(values ...any) MethodOption {
	return func(c *methodConfig) { c.defaults = values }
}

// BorrowStrings lets string params, and params that are pointers to
// primitives, refer to the request bytes and to per-call memory instead of
// copies. It saves an allocation per such param. The values are valid only
// until the method returns: a method that keeps one must copy it
// (strings.Clone).
func BorrowStrings() MethodOption {
	return func(c *methodConfig) { c.borrow = true }
}

// MethodCodec sets the codec for the params and results of one method that
// go through a codec (see Codec), in place of the server's (see UseCodec).
// It changes nothing for the values the server decodes and encodes itself,
// such as primitives.
func MethodCodec(c Codec) MethodOption {
	return func(mc *methodConfig) { mc.codec = c }
}

// Blocking marks a method as one that may wait (on I/O, a channel, a lock
// held elsewhere). ProcessAsync runs each call of a blocking method on a
// goroutine of its own, so that the caller is not held up, as long as fewer
// than Limits.MaxRunning such calls run; Process still runs it on the
// caller's goroutine. A method must not call runtime.Goexit: on a goroutine
// of its own its call is then answered with CodeInternalError, and on the
// caller's goroutine it ends the caller's goroutine.
func Blocking() MethodOption {
	return func(c *methodConfig) { c.blocking = true }
}

// Rename gives the Go method goName of a service the method name rpcName,
// which is used as is (without the service prefix).
func Rename(goName, rpcName string) ServiceOption {
	return func(c *serviceConfig) {
		if c.rename == nil {
			c.rename = map[string]string{}
		}
		c.rename[goName] = rpcName
	}
}

// Skip leaves the named Go methods of a service unregistered.
func Skip(goNames ...string) ServiceOption {
	return func(c *serviceConfig) {
		if c.skip == nil {
			c.skip = map[string]bool{}
		}
		for _, n := range goNames {
			c.skip[n] = true
		}
	}
}

// ForMethod applies opts to the Go method goName of a service only, as
// Register applies them to a function. ForMethod options for the same method
// add up, later ones winning.
func ForMethod(goName string, opts ...MethodOption) ServiceOption {
	return func(c *serviceConfig) {
		if c.per == nil {
			c.per = map[string][]MethodOption{}
		}
		c.per[goName] = append(c.per[goName], opts...)
	}
}

// Register adds fn to the method table under name.
//
// fn must be a function. It may take a leading context.Context, then any
// number of params of types that JSON can carry, and return nothing, a
// value, an error, or a value and an error. A variadic function takes the
// rest of a positional params array. fn may also be a TypedMethod (see
// Typed), whose calls are direct. A function that cannot be served fails
// here with an error wrapping ErrInvalidMethod, never at call time. Names
// starting with "rpc." are reserved by the specification and rejected, as
// is a name already registered (ErrDuplicate).
//
// A value that is a sequence, an iter.Seq[T] or an iter.Seq2[T, error]
// (whose error, yielded, ends it and answers the call), is a stream of
// results: the method runs on a goroutine of its own, as Blocking, and
// its items are pulled one at a time as the call's connection can send
// them, in the shape the connection's protocol gives them (see package
// peer). Where nothing streams it (Process, plain HTTP), the answer is
// the items as one array, bounded by Limits.MaxResponse: past it the
// call is answered with CodeLimitExceeded and the sequence's yield
// returns false. A nil sequence is an empty array.
func (s *Server) Register(name string, fn any, opts ...MethodOption) error {
	var mc methodConfig
	for _, o := range opts {
		o(&mc)
	}
	m, err := s.bind(name, fn, &mc, reflect.Value{}, nil)
	if err != nil {
		return err
	}
	return s.add(m)
}

// MustRegister is like Register but panics on error. It is meant for
// initialization code.
func (s *Server) MustRegister(name string, fn any, opts ...MethodOption) {
	if err := s.Register(name, fn, opts...); err != nil {
		panic(err)
	}
}

// bind builds the method name for fn; with a valid recv, fn is a method
// expression called with recv as its receiver, or with the receiver resolve
// makes for each call.
func (s *Server) bind(name string, fn any, mc *methodConfig, recv reflect.Value, resolve func(context.Context) (reflect.Value, error)) (*method, error) {
	if err := checkName(name); err != nil {
		return nil, err
	}
	return s.build(name, fn, mc, recv, resolve)
}

// build binds fn as the method name, whose name has been checked.
func (s *Server) build(name string, fn any, mc *methodConfig, recv reflect.Value, resolve func(context.Context) (reflect.Value, error)) (*method, error) {
	codec := s.cfg.codec
	if mc.codec != nil {
		codec = mc.codec
	}
	opts := bind.Options{
		Names:        mc.names,
		Defaults:     mc.defaults,
		Borrow:       mc.borrow,
		Unmarshal:    codec.Unmarshal,
		Append:       codec.Append,
		Standard:     bind.IsStandard(codec),
		AllowUnknown: s.cfg.allowUnknown,
		Receiver:     recv,
		Resolve:      resolve,
		MaxCollect:   s.cfg.maxResponse,
	}
	var (
		f   *bind.Func
		err error
	)
	if tm, ok := fn.(TypedMethod); ok {
		if tm.build == nil {
			err = errNilTyped
		} else {
			f, err = tm.build(opts)
		}
	} else {
		f, err = bind.Build(fn, opts)
	}
	if err != nil {
		return nil, fmt.Errorf("%w %q: %v", ErrInvalidMethod, name, err)
	}
	// A method that returns a sequence runs on a goroutine of its own, as
	// Blocking: its items are pulled as its connection can send them.
	return &method{name: name, fn: f, blocking: mc.blocking || f.Seq, call: f.Context || resolve != nil || f.Seq, guard: newGuard(mc, s.cfg), public: mc.access == accessPublic}, nil
}

func checkName(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("%w: empty name", ErrInvalidMethod)
	case strings.HasPrefix(name, "rpc."):
		return fmt.Errorf("%w %q: names starting with \"rpc.\" are reserved", ErrInvalidMethod, name)
	case !utf8.ValidString(name):
		return fmt.Errorf("%w %q: name is not valid UTF-8", ErrInvalidMethod, name)
	}
	return nil
}

// add publishes the methods atomically: all are added, or none.
func (s *Server) add(ms ...*method) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	next := make(map[string]*method, len(ms))
	if old := s.methods.Load(); old != nil {
		next = maps.Clone(old.byName)
	}
	for _, m := range ms {
		if _, dup := next[m.name]; dup {
			return fmt.Errorf("%w: %q", ErrDuplicate, m.name)
		}
		next[m.name] = m
	}
	s.methods.Store(newMethodTable(next))
	return nil
}

// Unregister removes the named method and reports whether it was registered.
// Calls already running finish; later calls get CodeMethodNotFound.
func (s *Server) Unregister(name string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	old := s.methods.Load()
	if old == nil {
		return false
	}
	if _, ok := old.byName[name]; !ok {
		return false
	}
	next := maps.Clone(old.byName)
	delete(next, name)
	s.methods.Store(newMethodTable(next))
	return true
}

// Methods returns the registered method names, in no particular order.
func (s *Server) Methods() []string {
	t := s.methods.Load()
	if t == nil {
		return nil
	}
	names := make([]string, 0, len(t.byName))
	for n := range t.byName {
		names = append(names, n)
	}
	return names
}

// RegisterService registers every exported method of a service.
//
// svc is the service: a value whose method set is registered (pass a
// pointer to include pointer-receiver methods; a value is copied once), or a
// factory that makes the receiver for each call,
//
//	func(ctx context.Context) (T, error)
//
// which registers the method set of T and is called with the call's context
// (CallOf(ctx) is its Call) before each call: the seam for per-request
// dependencies such as a database transaction or the caller's identity. A
// factory's error is the call's error, as if the method had returned it.
// Calls of a factory's methods go through reflection.
//
// Each method is named by the service naming rule: the Go name with its
// leading run of upper-case letters lowered, keeping the last of the run
// upper-case when a lower-case letter follows ("Add" is "add", "AddInt" is
// "addInt", "HTTPGet" is "httpGet", "ID" is "id"), preceded by prefix and a
// dot when prefix is not empty ("calc.add"). Rename overrides a method's
// whole name, Skip leaves methods out, and ForMethod gives one method the
// MethodOptions Register takes. An option that names a Go method the service
// does not have is an error.
//
// All methods are registered, or none: a method that cannot be served, or a
// name already taken, fails the whole call with an error naming the method.
func (s *Server) RegisterService(prefix string, svc any, opts ...ServiceOption) error {
	var sc serviceConfig
	for _, o := range opts {
		o(&sc)
	}
	if svc == nil {
		return fmt.Errorf("%w: nil service", ErrInvalidMethod)
	}
	t, pv, resolve, err := serviceReceiver(svc)
	if err != nil {
		return err
	}
	for _, names := range []map[string]bool{keySet(sc.rename), sc.skip, keySet(sc.per)} {
		for goName := range names {
			if _, ok := t.MethodByName(goName); !ok {
				return fmt.Errorf("%w: %s has no exported method %s", ErrInvalidMethod, t, goName)
			}
		}
	}
	for goName := range sc.skip {
		if _, ok := sc.rename[goName]; ok {
			return fmt.Errorf("%w: %s.%s is both skipped and renamed", ErrInvalidMethod, t, goName)
		}
		if _, ok := sc.per[goName]; ok {
			return fmt.Errorf("%w: %s.%s is skipped but given options with ForMethod", ErrInvalidMethod, t, goName)
		}
	}
	var (
		ms   []*method
		errs []error
	)
	for i := range t.NumMethod() {
		tm := t.Method(i)
		if sc.skip[tm.Name] {
			continue
		}
		name := serviceMethodName(prefix, tm.Name)
		if r, ok := sc.rename[tm.Name]; ok {
			name = r
		}
		var one methodConfig
		for _, o := range sc.per[tm.Name] {
			o(&one)
		}
		pm, _ := pv.Type().MethodByName(tm.Name)
		m, err := s.bind(name, pm.Func.Interface(), &one, pv, resolve)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s.%s: %w", t, tm.Name, err))
			continue
		}
		ms = append(ms, m)
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	if len(ms) == 0 {
		if t.Kind() != reflect.Pointer && reflect.PointerTo(t).NumMethod() > 0 {
			return fmt.Errorf("%w: %s has no exported methods with value receivers; its methods have pointer receivers: pass a pointer (*%[2]s)", ErrInvalidMethod, t)
		}
		return fmt.Errorf("%w: %s has no exported methods to register", ErrInvalidMethod, t)
	}
	return s.add(ms...)
}

// serviceReceiver returns the type whose method set a service registers,
// the receiver its method expressions are taken on (always a pointer, so
// that the adapters bind one), and, for a factory, the function that makes
// the receiver of each call.
func serviceReceiver(svc any) (reflect.Type, reflect.Value, func(context.Context) (reflect.Value, error), error) {
	v := reflect.ValueOf(svc)
	ft := v.Type()
	ctxType, errType := reflect.TypeFor[context.Context](), reflect.TypeFor[error]()
	if ft.Kind() == reflect.Func && ft.NumIn() == 1 && ft.In(0) == ctxType && ft.NumOut() == 2 && ft.Out(1) == errType {
		if v.IsNil() {
			return nil, reflect.Value{}, nil, fmt.Errorf("%w: nil service factory", ErrInvalidMethod)
		}
		t := ft.Out(0)
		if t.Kind() == reflect.Interface {
			return nil, reflect.Value{}, nil, fmt.Errorf("%w: service factory %s returns an interface; return the concrete type", ErrInvalidMethod, ft)
		}
		byValue := t.Kind() != reflect.Pointer
		pt := t
		if byValue {
			pt = reflect.PointerTo(t)
		}
		resolve := func(ctx context.Context) (reflect.Value, error) {
			out := v.Call([]reflect.Value{reflect.ValueOf(&ctx).Elem()})
			if err, _ := out[1].Interface().(error); err != nil {
				return reflect.Value{}, err
			}
			if byValue {
				p := reflect.New(t)
				p.Elem().Set(out[0])
				return p, nil
			}
			if out[0].IsNil() {
				// A bug in the factory: the client sees an internal error,
				// an interceptor the detail.
				return reflect.Value{}, fmt.Errorf("%w: service factory %s returned a nil %s", ErrInternal, ft, t)
			}
			return out[0], nil
		}
		return t, reflect.Zero(pt), resolve, nil
	}
	if ft.Kind() == reflect.Pointer {
		return ft, v, nil, nil
	}
	pv := reflect.New(ft)
	pv.Elem().Set(v)
	return ft, pv, nil, nil
}

func keySet[V any](m map[string]V) map[string]bool {
	ks := make(map[string]bool, len(m))
	for k := range m {
		ks[k] = true
	}
	return ks
}

// serviceMethodName returns the name RegisterService gives the Go method
// goName under prefix.
func serviceMethodName(prefix, goName string) string {
	name := lowerLead(goName)
	if prefix != "" {
		return prefix + "." + name
	}
	return name
}

// lowerLead lowers the leading run of upper-case letters of s, keeping the
// last one upper-case when a lower-case letter follows it.
func lowerLead(s string) string {
	rs := []rune(s)
	n := 0
	for n < len(rs) && unicode.IsUpper(rs[n]) {
		n++
	}
	if n > 1 && n < len(rs) && unicode.IsLower(rs[n]) {
		n--
	}
	for i := range n {
		rs[i] = unicode.ToLower(rs[i])
	}
	return string(rs)
}
