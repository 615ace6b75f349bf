package openrpc

import (
	"encoding"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"time"
)

var (
	timeType = reflect.TypeFor[time.Time]()
	jsonMar  = reflect.TypeFor[json.Marshaler]()
	jsonUnm  = reflect.TypeFor[json.Unmarshaler]()
	textMar  = reflect.TypeFor[encoding.TextMarshaler]()
	textUnm  = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// generator turns Go types into schemas as encoding/json encodes them. Named
// struct types become components, referred to by $ref.
type generator struct {
	names   map[reflect.Type]string
	taken   map[string]bool
	schemas map[string]*Schema
	refs    string // what a reference to a component begins with
}

func newGenerator(refs string) *generator {
	return &generator{names: map[reflect.Type]string{}, taken: map[string]bool{}, schemas: map[string]*Schema{}, refs: refs}
}

// SchemaOf returns the JSON Schema of the JSON that encoding/json makes of
// values of t, as Describe makes the schemas of params and results (see
// the package documentation), for use outside an OpenRPC document: a
// struct type, named or not, is described in place, and the named struct
// types it refers to are in the schema's Defs ("$defs"), referred to as
// "#/$defs/<name>", so that the schema stands alone (JSON Schema 2020-12).
// A pointer at the top is described as what it points to, without null.
// Fields may carry a description in their tag (description:"...").
func SchemaOf(t reflect.Type) *Schema {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	g := newGenerator("#/$defs/")
	var s *Schema
	if t.Kind() == reflect.Struct && t != timeType && !implements(t, jsonMar) && !implements(t, jsonUnm) && !implements(t, textMar) && !implements(t, textUnm) {
		s = g.structSchema(t)
	} else {
		s = g.schema(t)
	}
	if len(g.schemas) > 0 {
		s.Defs = g.schemas
	}
	return s
}

func implements(t, iface reflect.Type) bool {
	return t.Implements(iface) || reflect.PointerTo(t).Implements(iface)
}

func typ(ts ...string) Types { return Types(ts) }

// isAny reports whether s accepts every value.
func isAny(s *Schema) bool {
	return s.Ref == "" && len(s.Type) == 0 && len(s.OneOf) == 0
}

// nullable returns s that also accepts null.
func nullable(s *Schema) *Schema {
	switch {
	case isAny(s):
		return s
	case len(s.Type) > 0:
		for _, t := range s.Type {
			if t == "null" {
				return s
			}
		}
		c := *s
		c.Type = append(append(Types{}, s.Type...), "null")
		return &c
	}
	return &Schema{OneOf: []*Schema{s, {Type: typ("null")}}}
}

// schema returns the schema of the JSON that values of t encode to.
func (g *generator) schema(t reflect.Type) *Schema {
	switch {
	case t.Kind() == reflect.Pointer:
		return nullable(g.schema(t.Elem()))
	case t == timeType:
		return &Schema{Type: typ("string"), Format: "date-time"}
	case implements(t, jsonMar) || implements(t, jsonUnm):
		return &Schema{} // its own JSON: any value
	case implements(t, textMar) && implements(t, textUnm):
		return &Schema{Type: typ("string")}
	case implements(t, textMar) || implements(t, textUnm):
		return &Schema{}
	}
	switch t.Kind() {
	case reflect.Bool:
		return &Schema{Type: typ("boolean")}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return &Schema{Type: typ("integer")}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		zero := int64(0)
		return &Schema{Type: typ("integer"), Minimum: &zero}
	case reflect.Float32, reflect.Float64:
		return &Schema{Type: typ("number")}
	case reflect.String:
		return &Schema{Type: typ("string")}
	case reflect.Slice:
		if e := t.Elem(); e.Kind() == reflect.Uint8 && !implements(e, jsonMar) && !implements(e, textMar) {
			return &Schema{Type: typ("string", "null"), ContentEncoding: "base64"}
		}
		return nullable(&Schema{Type: typ("array"), Items: g.schema(t.Elem())})
	case reflect.Array:
		n := t.Len()
		return &Schema{Type: typ("array"), Items: g.schema(t.Elem()), MinItems: &n, MaxItems: &n}
	case reflect.Map:
		return nullable(&Schema{Type: typ("object"), AdditionalProperties: g.schema(t.Elem())})
	case reflect.Struct:
		if t.Name() == "" {
			return g.structSchema(t)
		}
		return &Schema{Ref: g.refs + g.component(t)}
	}
	return &Schema{}
}

// component returns the name of t's schema in the components, adding it
// the first time.
func (g *generator) component(t reflect.Type) string {
	if n, ok := g.names[t]; ok {
		return n
	}
	base := componentName(t.Name())
	n := base
	for i := 2; g.taken[n]; i++ {
		n = base + strconv.Itoa(i)
	}
	g.names[t], g.taken[n] = n, true
	g.schemas[n] = nil // reserved, for types that refer to themselves
	g.schemas[n] = g.structSchema(t)
	return n
}

// componentName keeps the letters, digits and underscores of a type name
// (a generic type's name has brackets, dots and commas).
func componentName(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

func (g *generator) structSchema(t reflect.Type) *Schema {
	s := &Schema{Type: typ("object"), Properties: map[string]*Schema{}}
	for _, f := range structFields(t) {
		fs := g.fieldSchema(f)
		if f.description != "" {
			c := *fs
			c.Description = f.description
			fs = &c
		}
		s.Properties[f.name] = fs
		if !f.omit {
			s.Required = append(s.Required, f.name)
		}
	}
	return s
}

// fieldSchema is the schema of a field, which the ",string" option quotes.
func (g *generator) fieldSchema(f structField) *Schema {
	if f.quoted {
		switch k := f.typ.Kind(); {
		case k == reflect.Bool || k >= reflect.Int && k <= reflect.Float64 || k == reflect.String:
			return &Schema{Type: typ("string")}
		case k == reflect.Pointer:
			if e := f.typ.Elem().Kind(); e == reflect.Bool || e >= reflect.Int && e <= reflect.Float64 || e == reflect.String {
				return &Schema{Type: typ("string", "null")}
			}
		}
	}
	return g.schema(f.typ)
}

// A structField is a field of a struct's JSON object.
type structField struct {
	name   string
	typ    reflect.Type
	omit   bool // omitempty or omitzero: the member may be absent
	quoted bool // the ",string" option
	tagged bool // named by its json tag
	depth  int
	// description is the field's tag description:"...", for its schema.
	description string
}

// hasEmbedded reports whether t embeds other types.
func hasEmbedded(t reflect.Type) bool {
	for i := range t.NumField() {
		if t.Field(i).Anonymous {
			return true
		}
	}
	return false
}

// structFields returns the members of t's JSON object, by encoding/json's
// rules: json tags name fields, "-" skips them, omitempty and omitzero make
// them optional, and the fields of embedded structs without a tag name are
// promoted, the shallowest (or, among equals, the only tagged) field of a
// name winning and a tie leaving the name out.
func structFields(t reflect.Type) []structField {
	type queued struct {
		t     reflect.Type
		depth int
	}
	var (
		all     []structField
		order   []string
		byName  = map[string][]structField{}
		visited = map[reflect.Type]bool{}
	)
	next := []queued{{t, 0}}
	for len(next) > 0 {
		cur := next
		next = nil
		for _, q := range cur {
			if visited[q.t] {
				continue
			}
			visited[q.t] = true
			for i := range q.t.NumField() {
				sf := q.t.Field(i)
				ft := sf.Type
				if sf.Anonymous {
					if ft.Kind() == reflect.Pointer {
						ft = ft.Elem()
					}
					if !sf.IsExported() && ft.Kind() != reflect.Struct {
						continue
					}
				} else if !sf.IsExported() {
					continue
				}
				tag := sf.Tag.Get("json")
				if tag == "-" {
					continue
				}
				name, opts, _ := strings.Cut(tag, ",")
				if name == "" && sf.Anonymous && ft.Kind() == reflect.Struct {
					next = append(next, queued{ft, q.depth + 1})
					continue
				}
				f := structField{name: name, typ: sf.Type, tagged: name != "", depth: q.depth, description: sf.Tag.Get("description")}
				if name == "" {
					f.name = sf.Name
				}
				for o := range strings.SplitSeq(opts, ",") {
					switch o {
					case "omitempty", "omitzero":
						f.omit = true
					case "string":
						f.quoted = true
					}
				}
				if _, ok := byName[f.name]; !ok {
					order = append(order, f.name)
				}
				byName[f.name] = append(byName[f.name], f)
			}
		}
	}
	for _, name := range order {
		fs := byName[name]
		best := fs[0].depth
		var top []structField
		for _, f := range fs {
			if f.depth < best {
				best, top = f.depth, nil
			}
			if f.depth == best {
				top = append(top, f)
			}
		}
		if len(top) > 1 {
			var tagged []structField
			for _, f := range top {
				if f.tagged {
					tagged = append(tagged, f)
				}
			}
			if len(tagged) != 1 {
				continue // ambiguous: encoding/json leaves it out
			}
			top = tagged
		}
		all = append(all, top[0])
	}
	return all
}
