package gen

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// clientFile is the body of the client's file.
func (g *generator) clientFile() string {
	var b strings.Builder
	conn, cl := g.prefix+"Conn", g.prefix+"Client"
	fmt.Fprintf(&b, `// %s is what a %s sends its calls through: a *client.Client, or the
// *peer.Conn of a method's caller (peer.FromContext), to call it back.
type %s interface {
	CallRaw(ctx context.Context, method string, params any) (json.RawMessage, error)
	Notify(ctx context.Context, method string, params any) error
}

// %s calls the methods of %s, one Go method each, with
// client.Call: its params are encoded as the document says (by position
// unless it takes them by name only), its result decoded into the method's
// type, and an error answer returned as the *jsonrpc.Error it is, which
// errors.Is matches with the errors the document declares by code.
//
// A %s is safe for concurrent use by multiple goroutines when its
// %s is.
type %s struct {
	conn %s
}

// New%s returns a %s that calls through conn.
func New%s(conn %s) *%s {
	return &%s{conn: conn}
}

`, conn, cl, conn, cl, strconv.Quote(titleOf(g.doc)), cl, conn, cl, conn, cl, cl, cl, conn, cl, cl)
	for _, p := range g.methods {
		b.WriteString(g.methodComment(p, "calls"))
		fmt.Fprintf(&b, "func (c *%s) %s(%s) %s {\n", cl, p.goName, p.sig(false), p.results())
		params := g.clientParams(&b, p)
		if p.result == nil {
			fmt.Fprintf(&b, "_, err := c.conn.CallRaw(ctx, %s, %s)\nreturn err\n}\n\n", strconv.Quote(p.m.Name), params)
		} else {
			fmt.Fprintf(&b, "return client.Call[%s](ctx, c.conn, %s, %s)\n}\n\n", p.result.expr, strconv.Quote(p.m.Name), params)
		}
		if p.notify != "" {
			fmt.Fprintf(&b, "// %s sends %s as a notification, which gets no answer.\n", p.notify, p.m.Name)
			fmt.Fprintf(&b, "func (c *%s) %s(%s) error {\n", cl, p.notify, p.sig(false))
			params := g.clientParams(&b, p)
			fmt.Fprintf(&b, "return c.conn.Notify(ctx, %s, %s)\n}\n\n", strconv.Quote(p.m.Name), params)
		}
	}
	return b.String()
}

// clientParams writes the statements that make p's params and returns the
// expression of the params: nil for none; by name, the params struct; by
// position an array, of their type when they share one, cut after the last
// optional param given.
func (g *generator) clientParams(b *strings.Builder, p *plan) string {
	if len(p.params) == 0 {
		return "nil"
	}
	if p.byName {
		fmt.Fprintf(b, "params := %s{", p.paramsT)
		for i, pp := range p.params {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(b, "%s: %s", pp.field, pp.name)
		}
		b.WriteString("}\n")
		return "params"
	}
	if v := p.variadic; v != nil {
		if len(p.params) == 1 {
			return v.name
		}
		fmt.Fprintf(b, "params := make([]any, 0, %d+len(%s))\n", len(p.params)-1, v.name)
		for _, pp := range p.params[:len(p.params)-1] {
			fmt.Fprintf(b, "params = append(params, %s)\n", pp.name)
		}
		fmt.Fprintf(b, "for _, x := range %s {\nparams = append(params, x)\n}\n", v.name)
		return "params"
	}
	elem := "any"
	same := true
	optional := false
	for _, pp := range p.params {
		same = same && pp.typ.expr == p.params[0].typ.expr
		optional = optional || pp.optional
	}
	if same && !optional {
		elem = p.params[0].typ.expr
	}
	var names []string
	for _, pp := range p.params {
		names = append(names, pp.name)
	}
	fmt.Fprintf(b, "params := [%d]%s{%s}\n", len(p.params), elem, strings.Join(names, ", "))
	if !optional {
		return "params"
	}
	required := 0
	for i, pp := range p.params {
		if !pp.optional {
			required = i + 1
		}
	}
	fmt.Fprintf(b, "n := %d\n", required)
	for i, pp := range p.params {
		if pp.optional && i >= required {
			fmt.Fprintf(b, "if %s != nil {\nn = %d\n}\n", pp.name, i+1)
		}
	}
	return "params[:n]"
}

// serverFile is the body of the server's file.
func (g *generator) serverFile() string {
	var b strings.Builder
	srv, unimpl, reg, info := g.prefix+"Server", "Unimplemented"+g.prefix+"Server", "Register"+g.prefix, g.prefix+"Info"
	if g.prefix == "" {
		reg = "Register"
	}
	fmt.Fprintf(&b, `// %s serves the methods of %s: %s registers an
// implementation on a *jsonrpc.Server, a method of the interface for each
// method of the document. A method returns a *jsonrpc.Error (one of the
// declared errors, say, with data) to answer with it; any other error is
// answered as the server's error handling says. Embed %s
// to implement some of the methods only.
//
// Its methods are called concurrently by the server's connections: an
// implementation must be safe for concurrent use by multiple goroutines.
type %s interface {
`, srv, strconv.Quote(titleOf(g.doc)), reg, unimpl, srv)
	for i, p := range g.methods {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString(g.methodComment(p, "serves"))
		fmt.Fprintf(&b, "%s(%s) %s\n", p.goName, p.sig(true), p.results())
	}
	b.WriteString("}\n\n")
	fmt.Fprintf(&b, "// %s answers every method of %s with\n// jsonrpc.ErrMethodNotFound; embed it in a type to implement some of them.\ntype %s struct{}\n\n", unimpl, srv, unimpl)
	fmt.Fprintf(&b, "var _ %s = %s{}\n\n", srv, unimpl)
	for _, p := range g.methods {
		fmt.Fprintf(&b, "// %s answers jsonrpc.ErrMethodNotFound.\nfunc (%s) %s(%s) %s {\n", p.goName, unimpl, p.goName, p.sig(true), p.results())
		if p.result == nil {
			b.WriteString("return jsonrpc.ErrMethodNotFound\n}\n\n")
		} else {
			zero := "*new(" + p.result.expr + ")"
			if p.result.nilable {
				zero = "nil"
			}
			fmt.Fprintf(&b, "return %s, jsonrpc.ErrMethodNotFound\n}\n\n", zero)
		}
	}
	fmt.Fprintf(&b, `// %s registers the methods of impl on srv, each under its name in the
// document, with its params as the document names them. opts adds options
// to the methods it names (jsonrpc.Blocking for a method that waits, say);
// nil adds none, and a name that is no method of the document is an error.
// It registers all of the methods or, when one fails (a name srv has
// already, say), none.
func %s(srv *jsonrpc.Server, impl %s, opts map[string][]jsonrpc.MethodOption) error {
	known := map[string]bool{%s}
	for name := range opts {
		if !known[name] {
			return fmt.Errorf("%s: no method %%q to give options to", name)
		}
	}
	var done []string
	register := func(name string, fn any, own ...jsonrpc.MethodOption) error {
		if err := srv.Register(name, fn, append(own, opts[name]...)...); err != nil {
			for _, n := range done {
				srv.Unregister(n)
			}
			return err
		}
		done = append(done, name)
		return nil
	}
`, reg, reg, srv, g.knownMethods(), g.cfg.Package)
	for _, p := range g.methods {
		var opts []string
		if p.names {
			var ns []string
			for _, pp := range p.params {
				ns = append(ns, strconv.Quote(pp.cd.Name))
			}
			opts = append(opts, "jsonrpc.ParamNames("+strings.Join(ns, ", ")+")")
		}
		if len(p.defaults) > 0 {
			var ds []string
			for i, pp := range p.defaults {
				v := fmt.Sprintf("default%s%d", p.goName, i)
				fmt.Fprintf(&b, "var %s %s\nif err := json.Unmarshal([]byte(%s), &%s); err != nil {\nreturn fmt.Errorf(\"default of %s param %s: %%w\", err)\n}\n",
					v, pp.typ.expr, goString(compactJSON(pp.cd.Schema.Default)), v, p.m.Name, pp.cd.Name)
				ds = append(ds, v)
			}
			opts = append(opts, "jsonrpc.Defaults("+strings.Join(ds, ", ")+")")
		}
		args := ""
		if len(opts) > 0 {
			args = ", " + strings.Join(opts, ", ")
		}
		fmt.Fprintf(&b, "if err := register(%s, impl.%s%s); err != nil {\nreturn err\n}\n", strconv.Quote(p.m.Name), p.goName, args)
	}
	b.WriteString("return nil\n}\n\n")
	g.infoFunc(&b, info)
	return b.String()
}

// infoFunc writes the function that returns the document's info and its
// methods' docs, which Describe does not learn from registration.
func (g *generator) infoFunc(b *strings.Builder, name string) {
	in := g.doc.Info
	fmt.Fprintf(b, `// %s returns the info object of the document and what it says of each
// method beyond params and result (summary, description, errors), so that
// openrpc.Register serves a document of the methods %s registers that
// says the same.
func %s() openrpc.Info {
	return openrpc.Info{
`, name, "Register"+g.prefix, name)
	fmt.Fprintf(b, "Title: %s,\n", goString(in.Title))
	if in.Description != "" {
		fmt.Fprintf(b, "Description: %s,\n", goString(in.Description))
	}
	if in.TermsOfService != "" {
		fmt.Fprintf(b, "TermsOfService: %s,\n", goString(in.TermsOfService))
	}
	fmt.Fprintf(b, "Version: %s,\n", goString(in.Version))
	var contact struct{ Name, URL, Email string }
	if len(in.Contact) > 0 && json.Unmarshal(in.Contact, &contact) == nil {
		fmt.Fprintf(b, "Contact: &openrpc.Contact{Name: %s, URL: %s, Email: %s},\n", goString(contact.Name), goString(contact.URL), goString(contact.Email))
	}
	var license struct{ Name, URL string }
	if len(in.License) > 0 && json.Unmarshal(in.License, &license) == nil {
		fmt.Fprintf(b, "License: &openrpc.License{Name: %s, URL: %s},\n", goString(license.Name), goString(license.URL))
	}
	var docs []string
	for _, p := range g.methods {
		m := p.m
		if m.Summary == "" && m.Description == "" && len(m.Errors) == 0 && !m.Deprecated {
			continue
		}
		var d strings.Builder
		fmt.Fprintf(&d, "%s: {", strconv.Quote(m.Name))
		if m.Summary != "" {
			fmt.Fprintf(&d, "Summary: %s, ", goString(m.Summary))
		}
		if m.Description != "" {
			fmt.Fprintf(&d, "Description: %s, ", goString(m.Description))
		}
		if len(m.Errors) > 0 {
			d.WriteString("Errors: []openrpc.Error{")
			for _, e := range m.Errors {
				fmt.Fprintf(&d, "{Code: %d, Message: %s", e.Code, goString(e.Message))
				if len(e.Data) > 0 {
					fmt.Fprintf(&d, ", Data: json.RawMessage(%s)", goString(compactJSON(e.Data)))
				}
				d.WriteString("}, ")
			}
			d.WriteString("}, ")
		}
		if m.Deprecated {
			d.WriteString("Deprecated: true")
		}
		d.WriteString("},\n")
		docs = append(docs, d.String())
	}
	if len(docs) > 0 {
		b.WriteString("Methods: map[string]openrpc.MethodDoc{\n")
		for _, d := range docs {
			b.WriteString(d)
		}
		b.WriteString("},\n")
	}
	b.WriteString("}\n}\n")
}

// knownMethods lists the methods' names as the keys of a map literal.
func (g *generator) knownMethods() string {
	var b strings.Builder
	for i, p := range g.methods {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Quote(p.m.Name) + ": true")
	}
	return b.String()
}
