package jsonrpc

import (
	"errors"
	"fmt"
	"maps"
	"reflect"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/jsonrpc-go/jsonrpc/internal/bind"
)

// A MethodOption configures the registration of a method or service. Later
// options win.
type MethodOption func(*methodConfig)

type methodConfig struct {
	names    []string
	defaults []any
	borrow   bool
	blocking bool
	// Service options.
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

// Rename gives the Go method goName of a service the method name rpcName,
// which is used as is (without the service prefix).
func Rename(goName, rpcName string) MethodOption {
	return func(c *methodConfig) {
		if c.rename == nil {
			c.rename = map[string]string{}
		}
		c.rename[goName] = rpcName
	}
}

// Skip leaves the named Go methods of a service unregistered.
func Skip(goNames ...string) MethodOption {
	return func(c *methodConfig) {
		if c.skip == nil {
			c.skip = map[string]bool{}
		}
		for _, n := range goNames {
			c.skip[n] = true
		}
	}
}

// ForMethod applies opts (ParamNames, Defaults, BorrowStrings, Blocking) to the Go
// method goName of a service only.
func ForMethod(goName string, opts ...MethodOption) MethodOption {
	return func(c *methodConfig) {
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
// rest of a positional params array. A function that cannot be served fails
// here with an error wrapping ErrInvalidMethod, never at call time. Names
// starting with "rpc." are reserved by the specification and rejected, as
// is a name already registered (ErrDuplicate).
func (s *Server) Register(name string, fn any, opts ...MethodOption) error {
	var mc methodConfig
	for _, o := range opts {
		o(&mc)
	}
	m, err := s.bind(name, fn, &mc, reflect.Value{})
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
// expression called with recv as its receiver.
func (s *Server) bind(name string, fn any, mc *methodConfig, recv reflect.Value) (*method, error) {
	if err := checkName(name); err != nil {
		return nil, err
	}
	f, err := bind.Build(fn, bind.Options{
		Names:    mc.names,
		Defaults: mc.defaults,
		Borrow:   mc.borrow,
		Codec:    s.cfg.codec,
		Receiver: recv,
	})
	if err != nil {
		return nil, fmt.Errorf("%w %q: %v", ErrInvalidMethod, name, err)
	}
	return &method{name: name, fn: f, blocking: mc.blocking}, nil
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

// RegisterService registers every exported method of svc (its method set:
// pass a pointer to include pointer-receiver methods). Methods are called
// through the same typed adapters as functions; a service passed by value is
// copied once.
//
// Each method is named by the service naming rule: the Go name with its
// leading run of upper-case letters lowered, keeping the last of the run
// upper-case when a lower-case letter follows ("Add" is "add", "AddInt" is
// "addInt", "HTTPGet" is "httpGet", "ID" is "id"), preceded by prefix and a
// dot when prefix is not empty ("calc.add"). Rename overrides a method's
// whole name, Skip leaves methods out, and ForMethod passes ParamNames,
// Defaults or BorrowStrings to one method.
//
// All methods are registered, or none: a method that cannot be served, or a
// name already taken, fails the whole call with an error naming the method.
func (s *Server) RegisterService(prefix string, svc any, opts ...MethodOption) error {
	var mc methodConfig
	for _, o := range opts {
		o(&mc)
	}
	if svc == nil {
		return fmt.Errorf("%w: nil service", ErrInvalidMethod)
	}
	v := reflect.ValueOf(svc)
	t := v.Type()
	// Methods are called as method expressions of a pointer to the service,
	// so that the adapters can bind the receiver; a service given by value
	// is copied once, as a method value would copy it.
	pv := v
	if v.Kind() != reflect.Pointer {
		pv = reflect.New(t)
		pv.Elem().Set(v)
	}
	for goName := range mc.rename {
		if _, ok := t.MethodByName(goName); !ok {
			return fmt.Errorf("%w: %s has no exported method %s to rename", ErrInvalidMethod, t, goName)
		}
	}
	for goName := range mc.skip {
		if _, ok := t.MethodByName(goName); !ok {
			return fmt.Errorf("%w: %s has no exported method %s to skip", ErrInvalidMethod, t, goName)
		}
	}
	for goName := range mc.per {
		if _, ok := t.MethodByName(goName); !ok {
			return fmt.Errorf("%w: %s has no exported method %s", ErrInvalidMethod, t, goName)
		}
	}
	var (
		ms   []*method
		errs []error
	)
	for i := range t.NumMethod() {
		tm := t.Method(i)
		if mc.skip[tm.Name] {
			continue
		}
		name := ServiceMethodName(prefix, tm.Name)
		if r, ok := mc.rename[tm.Name]; ok {
			name = r
		}
		var one methodConfig
		for _, o := range mc.per[tm.Name] {
			o(&one)
		}
		pm, _ := pv.Type().MethodByName(tm.Name)
		m, err := s.bind(name, pm.Func.Interface(), &one, pv)
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
		return fmt.Errorf("%w: %s has no exported methods to register", ErrInvalidMethod, t)
	}
	return s.add(ms...)
}

// ServiceMethodName returns the name RegisterService gives the Go method
// goName under prefix.
func ServiceMethodName(prefix, goName string) string {
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
