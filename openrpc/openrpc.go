// Package openrpc describes a Server as an OpenRPC 1.3 document
// (https://spec.open-rpc.org), from what registration knows of its methods,
// and serves the document as the method rpc.discover.
//
// Describe builds the document: one method object per registered method,
// sorted by name, with its params, its result and how its params may be
// passed. Go keeps no param names at run time, so a method registered
// without ParamNames takes its params by position and they are named by
// position: "param0", "param1", and so on. A method whose only param is a
// struct takes its fields as params. Params with Defaults are optional and
// carry their default in their schema; a variadic last param is optional,
// an array, and marked with the extension "x-variadic": by position the
// params after the others are its elements. A method that returns no value
// has a result with the null schema. Who may call a method shows as the
// extensions "x-auth", "required" for a method whose calls need a
// Principal (jsonrpc.RequireScopes, and jsonrpc.RequireAuth for a method
// without a policy of its own) or "public" for one declared
// jsonrpc.Public, and "x-scopes", the scopes its calls need.
//
// The schemas are JSON Schemas of what encoding/json makes of the Go types:
// booleans, integers (unsigned ones with a minimum of 0), numbers, strings,
// pointers, slices and maps as nullable, arrays, structs by their json tags
// (a field with omitempty or omitzero is not required, embedded structs'
// fields are promoted, a field's tag description:"..." is its schema's
// description), time.Time as a date-time string, and types with their own
// JSON methods and interfaces as any value. Named struct types are
// components of the document, referred to with "$ref". SchemaOf makes the
// same schemas outside a document, for JSON Schema's own uses.
//
// Register serves the document as rpc.discover, the method that the
// OpenRPC specification's service discovery names: discovery is off until
// it is called. Summaries, descriptions and declared errors, which
// registration does not know, come from Info.Methods.
package openrpc

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/internal/bind"
	"github.com/jsonrpc-go/jsonrpc/internal/registry"
)

// DiscoverMethod is the name of the method Register registers.
const DiscoverMethod = "rpc.discover"

var errNilServer = errors.New("openrpc: nil server")

// Describe returns the document of the methods registered on srv, as they
// are now. The protocol's own methods (names starting with "rpc.", such as
// rpc.discover) are not listed.
func Describe(srv *jsonrpc.Server, info Info) (*Document, error) {
	if srv == nil {
		return nil, errNilServer
	}
	ms := registry.Methods(srv)
	slices.SortFunc(ms, func(a, b registry.Method) int { return cmp.Compare(a.Name, b.Name) })
	g := newGenerator("#/components/schemas/")
	doc := &Document{OpenRPC: Version, Info: info, Methods: make([]Method, 0, len(ms))}
	for _, m := range ms {
		if strings.HasPrefix(m.Name, "rpc.") {
			continue
		}
		om, err := g.method(m, info.Methods[m.Name])
		if err != nil {
			return nil, fmt.Errorf("openrpc: method %q: %w", m.Name, err)
		}
		doc.Methods = append(doc.Methods, om)
	}
	if len(g.schemas) > 0 {
		doc.Components = &Components{Schemas: g.schemas}
	}
	return doc, nil
}

func (g *generator) method(m registry.Method, md MethodDoc) (Method, error) {
	fi := m.Func
	om := Method{
		Name:        m.Name,
		Summary:     md.Summary,
		Description: md.Description,
		Errors:      md.Errors,
		Deprecated:  md.Deprecated,
		Params:      []ContentDescriptor{},
		Scopes:      m.Scopes,
	}
	switch {
	case m.Guarded:
		om.Auth = AuthRequired
	case m.Public:
		om.Auth = AuthPublic
	}
	switch {
	case fi.Struct:
		st := fi.Params[0].Type
		if st.Kind() == reflect.Pointer {
			st = st.Elem()
		}
		for _, f := range structFields(st) {
			om.Params = append(om.Params, ContentDescriptor{Name: f.name, Required: !f.omit, Schema: g.fieldSchema(f)})
		}
		// By position the params are the struct's own fields in order,
		// which are the named ones unless it embeds others.
		om.ParamStructure = Either
		if hasEmbedded(st) {
			om.ParamStructure = ByName
		}
	default:
		for i, p := range fi.Params {
			cd, err := g.param(i, p, fi.Variadic && i == len(fi.Params)-1)
			if err != nil {
				return Method{}, err
			}
			om.Params = append(om.Params, cd)
		}
		om.ParamStructure = Either
		if !fi.Named && len(fi.Params) > 0 {
			om.ParamStructure = ByPosition
		}
	}
	if fi.Result == nil {
		om.Result = &ContentDescriptor{
			Name:        "result",
			Description: "The method returns no value: its result is null.",
			Schema:      &Schema{Type: typ("null")},
		}
	} else {
		om.Result = &ContentDescriptor{Name: "result", Schema: g.schema(fi.Result)}
	}
	return om, nil
}

func (g *generator) param(i int, p bind.ParamInfo, variadic bool) (ContentDescriptor, error) {
	cd := ContentDescriptor{Name: p.Name, Required: !p.Optional}
	if cd.Name == "" {
		cd.Name = fmt.Sprintf("param%d", i)
	}
	switch {
	case variadic:
		cd.Schema = &Schema{Type: typ("array"), Items: g.schema(p.Type.Elem())}
		cd.Variadic = true
	default:
		cd.Schema = g.schema(p.Type)
	}
	if p.Optional && !variadic {
		def, err := json.Marshal(p.Default)
		if err != nil {
			return cd, fmt.Errorf("default of param %s: %w", cd.Name, err)
		}
		s := *cd.Schema
		s.Default = def
		cd.Schema = &s
	}
	return cd, nil
}

// Register registers the method rpc.discover on srv, with opts: it takes
// no params and answers the document Describe makes of srv, with info.
// On a server that requires authentication (jsonrpc.RequireAuth) it is
// refused to anonymous callers, as any method without a policy, unless
// opts declare it jsonrpc.Public. The document
// is made once and kept until the methods of srv change, so that methods
// registered later are listed and a call costs no rebuild of it (with
// thousands of methods it is megabytes). Calls that find no document of
// the current methods wait for one of them to make it, so that it is made
// once however many arrive together. It fails when srv already has
// rpc.discover, or when the document of srv cannot be made.
func Register(srv *jsonrpc.Server, info Info, opts ...jsonrpc.MethodOption) error {
	if srv == nil {
		return errNilServer
	}
	info.Methods = maps.Clone(info.Methods)
	if _, err := Describe(srv, info); err != nil {
		return err
	}
	var (
		cache atomic.Pointer[cachedDoc] // read without the lock
		build sync.Mutex                // held while the document is made
	)
	ropts := make([]any, len(opts))
	for i, o := range opts {
		ropts[i] = o
	}
	return registry.RegisterReserved(srv, DiscoverMethod, func() (json.RawMessage, error) {
		gen := registry.Generation(srv)
		if c := cache.Load(); c != nil && c.gen == gen {
			return c.doc, nil
		}
		// One call makes the document; those that come meanwhile wait
		// for it rather than each making its own (with 10,000 methods,
		// 180 MiB apiece while it is made).
		build.Lock()
		defer build.Unlock()
		gen = registry.Generation(srv)
		if c := cache.Load(); c != nil && c.gen == gen {
			return c.doc, nil
		}
		doc, err := Describe(srv, info)
		if err != nil {
			return nil, err
		}
		b, err := json.Marshal(doc)
		if err != nil {
			return nil, err
		}
		cache.Store(&cachedDoc{gen: gen, doc: b})
		return b, nil
	}, ropts)
}

// cachedDoc is the encoded document of rpc.discover, for the methods of
// generation gen (registry.Generation).
type cachedDoc struct {
	gen any
	doc json.RawMessage
}
