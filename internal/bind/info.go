package bind

import "reflect"

// Info describes a bound function as registration knows it: what a server
// can tell about a method without calling it.
type Info struct {
	// Params are the function's params, excluding a receiver and a leading
	// context, in order.
	Params []ParamInfo
	// Result is the type of the result, or nil when the function returns
	// none (its calls answer null). A sequence of T is described as []T,
	// what a caller that does not stream it gets.
	Result reflect.Type
	// Named reports whether the params were given names, so that calls may
	// pass them by name as well as by position.
	Named bool
	// Struct reports whether the only param is a struct bound by field:
	// named params are its fields, positional params its fields in order.
	Struct bool
	// Variadic reports whether the last param is variadic: by position it
	// takes the rest of the params array, by name an array.
	Variadic bool
	// Context reports whether the function takes a leading context.
	Context bool
}

// ParamInfo describes one param of a bound function.
type ParamInfo struct {
	Name     string       // empty when the params have no names
	Type     reflect.Type // for a variadic param, the slice type
	Optional bool         // a call may omit it
	Default  any          // the value an omitted param gets, when Optional and not variadic
}

// Info returns what f knows of its function's params and result. It is
// meant for introspection at registration time, never for calls.
func (f *Func) Info() Info {
	in := Info{
		Named:    f.names != nil,
		Struct:   f.structs,
		Variadic: f.variadic,
		Context:  f.Context,
		Params:   make([]ParamInfo, len(f.params)),
	}
	if f.shape&^shapeCtx == shapeR || f.shape&^shapeCtx == shapeRErr {
		in.Result = f.res.t
		if f.seq != nil {
			in.Result = reflect.SliceOf(f.seq.item.res.t)
		}
	}
	for i := range f.params {
		p := &f.params[i]
		pi := ParamInfo{Name: p.name, Type: p.t, Optional: i >= f.required}
		if p.opt && p.defV.IsValid() {
			pi.Default = p.defV.Interface()
		}
		in.Params[i] = pi
	}
	return in
}
