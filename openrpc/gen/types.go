package gen

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// A goType is the Go type of a schema.
type goType struct {
	expr    string // the type as written in Go
	nilable bool   // its zero value is JSON null: a pointer, slice, map or json.RawMessage
	object  bool   // a struct that encodes as a JSON object (its fields are its members)
}

var rawType = goType{expr: "json.RawMessage", nilable: true}

// orNull returns t, or a pointer to it when its zero value is not null.
func (t goType) orNull() goType {
	if t.nilable {
		return t
	}
	return goType{expr: "*" + t.expr, nilable: true, object: t.object}
}

// The shapes of schemas: what JSON values a schema accepts, as far as a Go
// type can say.
const (
	shapeAny    = "any"     // any value, or values no one Go type holds
	shapeNull   = "null"    // null alone
	shapeBool   = "boolean" // true or false
	shapeInt    = "integer"
	shapeNumber = "number"
	shapeString = "string"
	shapeArray  = "array"
	shapeObject = "object" // an object with named members: a struct
	shapeMap    = "map"    // an object of any members: a map
	shapeUnion  = "union"  // one of values of different JSON kinds
	maxRefHops  = 64
)

// shape returns the shape of s and whether it accepts null too.
func (g *generator) shape(s *schema) (string, bool) {
	return g.shapeDepth(s, 0)
}

func (g *generator) shapeDepth(s *schema, depth int) (string, bool) {
	if s == nil || depth > maxRefHops {
		return shapeAny, false
	}
	if s.Ref != "" {
		t, err := g.doc.resolve(s.Ref)
		if err != nil {
			return shapeAny, false
		}
		return g.shapeDepth(t, depth+1)
	}
	if len(s.Type) > 0 {
		nullable := s.Type.has("null")
		var ts []string
		for _, t := range s.Type {
			if t != "null" {
				ts = append(ts, t)
			}
		}
		switch {
		case len(ts) == 0:
			return shapeNull, false
		case len(ts) > 1:
			return shapeAny, nullable
		case ts[0] == "object" && len(s.Properties) == 0 && len(s.AllOf) == 0 && len(s.OneOf) == 0 && len(s.AnyOf) == 0:
			return shapeMap, nullable
		case ts[0] == "object":
			return shapeObject, nullable
		}
		return ts[0], nullable
	}
	switch {
	case len(s.AllOf) > 0:
		for _, m := range s.AllOf {
			if k, _ := g.shapeDepth(m, depth+1); k == shapeObject {
				return shapeObject, false
			}
		}
		return g.shapeDepth(s.AllOf[0], depth+1)
	case len(s.OneOf) > 0 || len(s.AnyOf) > 0:
		vs, nullable := g.variants(s, depth)
		if len(vs) == 0 {
			return shapeNull, false
		}
		kinds := map[string]bool{}
		for _, v := range vs {
			k, n := g.shapeDepth(v, depth+1)
			nullable = nullable || n
			if k == shapeInt {
				k = shapeNumber
			}
			kinds[k] = true
		}
		if kinds[shapeAny] || kinds[shapeUnion] {
			return shapeAny, nullable
		}
		if len(vs) == 1 {
			k, n := g.shapeDepth(vs[0], depth+1)
			return k, nullable || n
		}
		if len(kinds) == 1 && !kinds[shapeArray] && !kinds[shapeMap] {
			for k := range kinds {
				if k == shapeNumber && g.allInt(vs, depth) {
					return shapeInt, nullable
				}
				return k, nullable
			}
		}
		return shapeUnion, nullable
	case len(s.Properties) > 0:
		return shapeObject, false
	case s.AdditionalProperties != nil || len(s.PatternProperties) > 0:
		return shapeMap, false
	case s.Items != nil:
		return shapeArray, false
	case len(s.Enum) > 0:
		return valueShape(s.Enum[0]), false
	case len(s.Const) > 0:
		return valueShape(s.Const), false
	}
	return shapeAny, false
}

// allInt reports whether the variants vs are all integers.
func (g *generator) allInt(vs []*schema, depth int) bool {
	for _, v := range vs {
		if k, _ := g.shapeDepth(v, depth+1); k != shapeInt {
			return false
		}
	}
	return true
}

// variants returns the variants of s's oneOf or anyOf that accept more
// than null, and whether a variant accepts null alone.
func (g *generator) variants(s *schema, depth int) ([]*schema, bool) {
	all := s.OneOf
	if len(all) == 0 {
		all = s.AnyOf
	}
	var vs []*schema
	nullable := false
	for _, v := range all {
		if k, _ := g.shapeDepth(v, depth+1); k == shapeNull {
			nullable = true
			continue
		}
		vs = append(vs, v)
	}
	return vs, nullable
}

func valueShape(v json.RawMessage) string {
	switch kindOf(v) {
	case 's':
		return shapeString
	case 'b':
		return shapeBool
	case '0':
		if strings.ContainsAny(string(v), ".eE") {
			return shapeNumber
		}
		return shapeInt
	case 'o':
		return shapeMap
	case 'a':
		return shapeArray
	case 'z':
		return shapeNull
	}
	return shapeAny
}

// kindOf is the kind of a JSON value by its first byte: 's' string, 'o'
// object, 'a' array, 'b' boolean, 'z' null, '0' number. The generated
// unions dispatch with the same function.
func kindOf(b []byte) byte {
	for _, c := range b {
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		case '"':
			return 's'
		case '{':
			return 'o'
		case '[':
			return 'a'
		case 't', 'f':
			return 'b'
		case 'n':
			return 'z'
		}
		return '0'
	}
	return 0
}

// typeOf returns the Go type of s, declaring the named types it needs
// under names that start with hint.
func (g *generator) typeOf(s *schema, hint string) (goType, error) {
	if s == nil {
		return rawType, nil
	}
	if s.Ref != "" {
		return g.refType(s.Ref, hint)
	}
	if alone := len(s.Type) == 0 && len(s.Properties) == 0 && s.Items == nil; alone && (len(s.OneOf) > 0 || len(s.AnyOf) > 0) {
		// One variant besides null is that variant's type, or a pointer.
		if vs, nullable := g.variants(s, 0); len(vs) == 1 {
			t, err := g.typeOf(vs[0], hint)
			if nullable {
				t = t.orNull()
			}
			return t, err
		}
	} else if alone && len(s.AllOf) == 1 && len(s.OneOf) == 0 && len(s.AnyOf) == 0 {
		return g.typeOf(s.AllOf[0], hint)
	}
	shape, nullable := g.shape(s)
	t, err := g.typeOfShape(s, shape, hint)
	if err != nil {
		return t, err
	}
	if nullable {
		t = t.orNull()
	}
	return t, nil
}

// refType returns the type of the schema ref points to: a component's
// named type, or the type of a schema inside the document.
func (g *generator) refType(ref, hint string) (goType, error) {
	if name, ok := strings.CutPrefix(ref, "#/components/schemas/"); ok && !strings.Contains(name, "/") {
		name = unescapePointer(name)
		if _, ok := g.doc.Components.Schemas[name]; !ok {
			return goType{}, fmt.Errorf("unknown schema %s", ref)
		}
		return g.component(name)
	}
	if t, ok := g.refTypes[ref]; ok {
		return t, nil
	}
	if g.refBusy[ref] {
		return rawType, nil // a schema that contains itself outside the components
	}
	g.refBusy[ref] = true
	defer delete(g.refBusy, ref)
	s, err := g.doc.resolve(ref)
	if err != nil {
		return goType{}, err
	}
	t, err := g.typeOf(s, g.refHint(ref))
	if err != nil {
		return t, err
	}
	g.refTypes[ref] = t
	return t, nil
}

// refHint names the types of a pointer into the document by its path:
// #/components/schemas/A/properties/b is AB.
func (g *generator) refHint(ref string) string {
	var b strings.Builder
	for _, tok := range strings.Split(strings.TrimPrefix(ref, "#/"), "/") {
		switch tok {
		case "components", "schemas", "properties", "items", "oneOf", "anyOf", "allOf":
			continue
		}
		b.WriteString(exported(unescapePointer(tok)))
	}
	return b.String()
}

// component returns the named type of the schema component name, declaring
// it the first time.
func (g *generator) component(name string) (goType, error) {
	goName := g.comps[name]
	s := g.doc.Components.Schemas[name]
	var t goType
	if _, mapped := g.cfg.Types[name]; mapped {
		t = goType{expr: goName}
		if _, nullable := g.shape(s); nullable {
			t = t.orNull()
		}
	} else {
		shape, nullable := g.shape(s)
		t = goType{expr: goName, object: shape == shapeObject}
		switch shape {
		case shapeAny, shapeNull, shapeArray, shapeMap:
			t.nilable = true
		case shapeString:
			if s.Ref == "" && s.Format == "" && s.ContentEncoding == "base64" {
				t.nilable = true
			}
		}
		if nullable {
			t = t.orNull()
		}
	}
	if g.declared[name] {
		return t, nil
	}
	g.declared[name] = true
	slot := g.reserve()
	code, err := g.componentDecl(name, goName, s)
	if err != nil {
		return goType{}, fmt.Errorf("schema %s: %w", name, err)
	}
	g.decls[slot] = code
	return t, nil
}

// reserve returns the index of a declaration to come, so that a type is
// declared before the types its declaration makes.
func (g *generator) reserve() int {
	g.decls = append(g.decls, "")
	return len(g.decls) - 1
}

func (g *generator) componentDecl(name, goName string, s *schema) (string, error) {
	doc := comment(goName+" is the schema "+strconv.Quote(name)+" of the document", s.Title, s.Description)
	if target, mapped := g.cfg.Types[name]; mapped {
		expr, err := g.importType(target)
		if err != nil {
			return "", err
		}
		return doc + "//\n// It is mapped to " + expr + ".\ntype " + goName + " = " + expr + "\n", nil
	}
	if s.Ref != "" {
		t, err := g.refType(s.Ref, goName)
		if err != nil {
			return "", err
		}
		return doc + "type " + goName + " = " + strings.TrimPrefix(t.expr, "*") + "\n", nil
	}
	shape, _ := g.shape(s)
	switch shape {
	case shapeObject:
		return g.structDecl(goName, doc, s)
	case shapeUnion:
		return g.unionDecl(goName, doc, s)
	case shapeString:
		if len(s.Enum) > 0 && s.Format == "" {
			return g.enumDecl(goName, doc, s)
		}
	}
	t, err := g.typeOfShape(s, shape, goName)
	if err != nil {
		return "", err
	}
	if strings.Contains(t.expr, ".") && !strings.ContainsAny(t.expr[:1], "[*m") {
		// A type of another package keeps its methods only as an alias.
		return doc + "type " + goName + " = " + t.expr + "\n", nil
	}
	return doc + "type " + goName + " " + t.expr + "\n", nil
}

// typeOfShape returns the Go type of s, of shape shape, leaving null
// aside.
func (g *generator) typeOfShape(s *schema, shape, hint string) (goType, error) {
	switch shape {
	case shapeBool:
		return goType{expr: "bool"}, nil
	case shapeInt:
		return goType{expr: intType(s)}, nil
	case shapeNumber:
		if s.Format == "float" || s.Format == "float32" {
			return goType{expr: "float32"}, nil
		}
		return goType{expr: "float64"}, nil
	case shapeString:
		switch {
		case s.Format == "date-time":
			return goType{expr: "time.Time"}, nil
		case s.ContentEncoding == "base64":
			return goType{expr: "[]byte", nilable: true}, nil
		case len(s.Enum) > 0 && hint != "":
			name := g.newName(hint)
			slot := g.reserve()
			code, err := g.enumDecl(name, comment(name+" is a string of the values below", s.Title, s.Description), s)
			if err != nil {
				return goType{}, err
			}
			g.decls[slot] = code
			return goType{expr: name}, nil
		}
		return goType{expr: "string"}, nil
	case shapeArray:
		items := s.Items
		if items == nil {
			items = g.arrayItems(s)
		}
		et, err := g.typeOf(items, hint+"Item")
		if err != nil {
			return goType{}, err
		}
		return goType{expr: "[]" + et.expr, nilable: true}, nil
	case shapeMap:
		v := s.AdditionalProperties
		if v == nil && len(s.PatternProperties) == 1 {
			for _, pv := range s.PatternProperties {
				v = pv
			}
		}
		vt, err := g.typeOf(v, hint+"Value")
		if err != nil {
			return goType{}, err
		}
		return goType{expr: "map[string]" + vt.expr, nilable: true}, nil
	case shapeObject:
		name := g.newName(hint)
		slot := g.reserve()
		code, err := g.structDecl(name, comment(name+" is an object the document describes in place", s.Title, s.Description), s)
		if err != nil {
			return goType{}, err
		}
		g.decls[slot] = code
		return goType{expr: name, object: true}, nil
	case shapeUnion:
		name := g.newName(hint)
		slot := g.reserve()
		code, err := g.unionDecl(name, comment(name+" is one of several kinds of value", s.Title, s.Description), s)
		if err != nil {
			return goType{}, err
		}
		g.decls[slot] = code
		return goType{expr: name}, nil
	}
	return rawType, nil
}

// arrayItems returns the items of an array schema that says them through a
// reference, allOf or a single variant.
func (g *generator) arrayItems(s *schema) *schema {
	for range maxRefHops {
		switch {
		case s.Items != nil:
			return s.Items
		case s.Ref != "":
			t, err := g.doc.resolve(s.Ref)
			if err != nil {
				return nil
			}
			s = t
		case len(s.AllOf) > 0:
			s = s.AllOf[0]
		case len(s.OneOf) > 0 || len(s.AnyOf) > 0:
			vs, _ := g.variants(s, 0)
			if len(vs) == 0 {
				return nil
			}
			s = vs[0]
		default:
			return nil
		}
	}
	return nil
}

// intType is the Go integer type of an integer schema: its format's, else
// uint64 when it has a minimum of 0 or more, else int64.
func intType(s *schema) string {
	switch s.Format {
	case "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64":
		return s.Format
	}
	if s.Minimum != nil && *s.Minimum >= 0 {
		return "uint64"
	}
	return "int64"
}

// A property is a member of an object schema.
type property struct {
	name     string
	schema   *schema
	required bool
}

// properties returns the members of the object schema s, sorted by name:
// its own properties, those of the members of allOf (all of them) and of
// the variants of oneOf and anyOf (required only when every variant
// requires them), through references.
func (g *generator) properties(s *schema) []property {
	props := map[string]*schema{}
	req := g.collect(s, props, 0)
	names := make([]string, 0, len(props))
	for n := range props {
		names = append(names, n)
	}
	slices.Sort(names)
	out := make([]property, 0, len(names))
	for _, n := range names {
		out = append(out, property{name: n, schema: props[n], required: req[n]})
	}
	return out
}

// collect adds the members of s to props (the first schema of a name wins)
// and returns the names s requires.
func (g *generator) collect(s *schema, props map[string]*schema, depth int) map[string]bool {
	req := map[string]bool{}
	if s == nil || depth > maxRefHops {
		return req
	}
	if s.Ref != "" {
		t, err := g.doc.resolve(s.Ref)
		if err != nil {
			return req
		}
		return g.collect(t, props, depth+1)
	}
	for n, p := range s.Properties {
		if _, ok := props[n]; !ok {
			props[n] = p
		}
	}
	for _, n := range s.Required {
		req[n] = true
	}
	for _, m := range s.AllOf {
		for n := range g.collect(m, props, depth+1) {
			req[n] = true
		}
	}
	if len(s.OneOf) > 0 || len(s.AnyOf) > 0 {
		vs, _ := g.variants(s, depth)
		var common map[string]bool
		for _, v := range vs {
			r := g.collect(v, props, depth+1)
			if common == nil {
				common = r
				continue
			}
			for n := range common {
				if !r[n] {
					delete(common, n)
				}
			}
		}
		for n := range common {
			req[n] = true
		}
	}
	for n := range req {
		if _, ok := props[n]; !ok {
			delete(req, n)
		}
	}
	return req
}

// structDecl declares the struct name of the object schema s: a field per
// member, a pointer (or a slice, map or json.RawMessage) with omitempty
// when the member is not required.
func (g *generator) structDecl(name, doc string, s *schema) (string, error) {
	var b strings.Builder
	b.WriteString(doc)
	b.WriteString("type " + name + " struct {\n")
	taken := map[string]bool{}
	for _, p := range g.properties(s) {
		field := unique(exported(p.name), taken)
		t, err := g.typeOf(p.schema, name+field)
		if err != nil {
			return "", fmt.Errorf("property %s: %w", p.name, err)
		}
		tag := p.name
		if !p.required {
			t = t.orNull()
			tag += ",omitempty"
		}
		if c := fieldComment(p.name, p.schema); c != "" {
			b.WriteString(c)
		}
		fmt.Fprintf(&b, "%s %s `json:%s`\n", field, t.expr, strconv.Quote(tag))
	}
	b.WriteString("}\n")
	return b.String(), nil
}

// enumDecl declares the string type name with a constant per value of s's
// enum.
func (g *generator) enumDecl(name, doc string, s *schema) (string, error) {
	var b strings.Builder
	b.WriteString(doc)
	b.WriteString("type " + name + " string\n\n")
	b.WriteString("// The values of " + name + ".\nconst (\n")
	for i, v := range s.Enum {
		var str string
		if err := json.Unmarshal(v, &str); err != nil {
			return "", fmt.Errorf("enum value %s is not a string", v)
		}
		c := exported(str)
		if c == "X" && str == "" {
			c = "Value" + strconv.Itoa(i)
		}
		fmt.Fprintf(&b, "%s %s = %s\n", g.newName(name+c), name, strconv.Quote(str))
	}
	b.WriteString(")\n")
	return b.String(), nil
}

// A variant is a field of a union: the values of one JSON kind.
type variant struct {
	field string
	typ   goType
	kind  byte // the kind of JSON value, as kindOf
	elem  byte // for an array, the kind of its elements (0 for any)
}

// unionDecl declares the union name of s's variants: a struct with a field
// per kind of JSON value, of which one is set, and the JSON methods that
// choose the field by the kind of the value (and, for arrays, of their
// first element). Variants of one kind share a field: objects are merged
// into one struct, of other kinds the first variant is kept.
func (g *generator) unionDecl(name, doc string, s *schema) (string, error) {
	vs, _ := g.variants(s, 0)
	var fields []variant
	var objects []*schema
	taken := map[string]bool{}
	seen := map[[2]byte]bool{}
	for _, v := range vs {
		shape, _ := g.shape(v)
		var k, e byte
		switch shape {
		case shapeString:
			k = 's'
		case shapeBool:
			k = 'b'
		case shapeInt, shapeNumber:
			k = '0'
		case shapeObject, shapeMap:
			k = 'o'
		case shapeArray:
			k = 'a'
			if items := g.arrayItems(v); items != nil {
				switch is, _ := g.shape(items); is {
				case shapeString:
					e = 's'
				case shapeBool:
					e = 'b'
				case shapeInt, shapeNumber:
					e = '0'
				case shapeObject, shapeMap:
					e = 'o'
				case shapeArray:
					e = 'a'
				}
			}
		default:
			return "", fmt.Errorf("a variant of %s has no one kind of value", name)
		}
		if k == 'o' {
			objects = append(objects, v)
			if len(objects) > 1 {
				continue
			}
		}
		if seen[[2]byte{k, e}] {
			continue
		}
		seen[[2]byte{k, e}] = true
		fields = append(fields, variant{field: unique(variantName(v, shape), taken), kind: k, elem: e})
	}
	for i := range fields {
		f := &fields[i]
		var t goType
		var err error
		if f.kind == 'o' && len(objects) > 1 {
			t, err = g.typeOfShape(&schema{OneOf: objects}, shapeObject, name+f.field)
		} else {
			t, err = g.typeOf(g.variantOf(vs, *f, objects), name+f.field)
		}
		if err != nil {
			return "", err
		}
		f.typ = t.orNull()
	}
	g.unions = true
	var b strings.Builder
	b.WriteString(doc)
	b.WriteString("//\n// One field is set, or none for null.\n")
	b.WriteString("type " + name + " struct {\n")
	for _, f := range fields {
		fmt.Fprintf(&b, "%s %s\n", f.field, f.typ.expr)
	}
	b.WriteString("}\n\n")
	fmt.Fprintf(&b, "// MarshalJSON encodes the field that is set, or null.\nfunc (u %s) MarshalJSON() ([]byte, error) {\nswitch {\n", name)
	for _, f := range fields {
		fmt.Fprintf(&b, "case u.%s != nil:\nreturn json.Marshal(u.%s)\n", f.field, f.field)
	}
	b.WriteString("}\nreturn []byte(\"null\"), nil\n}\n\n")
	fmt.Fprintf(&b, "// UnmarshalJSON decodes b into the field of its kind of value.\nfunc (u *%s) UnmarshalJSON(b []byte) error {\n*u = %s{}\nswitch k := %s(b); k {\ncase 'z':\nreturn nil\n", name, name, g.helper("kindOf"))
	var arrays []variant
	for _, f := range fields {
		if f.kind == 'a' {
			arrays = append(arrays, f)
			continue
		}
		fmt.Fprintf(&b, "case '%c':\nreturn json.Unmarshal(b, &u.%s)\n", f.kind, f.field)
	}
	if len(arrays) == 1 {
		fmt.Fprintf(&b, "case 'a':\nreturn json.Unmarshal(b, &u.%s)\n", arrays[0].field)
	} else if len(arrays) > 1 {
		fmt.Fprintf(&b, "case 'a':\nswitch %s(b) {\n", g.helper("elemKindOf"))
		for _, f := range arrays[1:] {
			if f.elem != 0 {
				fmt.Fprintf(&b, "case '%c':\nreturn json.Unmarshal(b, &u.%s)\n", f.elem, f.field)
			}
		}
		fmt.Fprintf(&b, "}\nreturn json.Unmarshal(b, &u.%s)\n", arrays[0].field)
	}
	fmt.Fprintf(&b, "default:\nreturn fmt.Errorf(\"%s: a JSON value of kind %%q is none of its variants\", k)\n}\n}\n", name)
	return b.String(), nil
}

// variantOf returns the schema of the variant f of vs.
func (g *generator) variantOf(vs []*schema, f variant, objects []*schema) *schema {
	if f.kind == 'o' {
		return objects[0]
	}
	for _, v := range vs {
		shape, _ := g.shape(v)
		switch {
		case f.kind == 's' && shape == shapeString, f.kind == 'b' && shape == shapeBool,
			f.kind == '0' && (shape == shapeInt || shape == shapeNumber):
			return v
		case f.kind == 'a' && shape == shapeArray:
			var e byte
			if items := g.arrayItems(v); items != nil {
				switch is, _ := g.shape(items); is {
				case shapeString:
					e = 's'
				case shapeBool:
					e = 'b'
				case shapeInt, shapeNumber:
					e = '0'
				case shapeObject, shapeMap:
					e = 'o'
				case shapeArray:
					e = 'a'
				}
			}
			if e == f.elem {
				return v
			}
		}
	}
	return nil
}

// variantName names a union's field: by the variant's title, else its
// reference, else its kind.
func variantName(v *schema, shape string) string {
	if v.Title != "" && len(strings.Fields(v.Title)) <= 5 {
		return exported(v.Title)
	}
	if v.Ref != "" {
		return exported(v.Ref[strings.LastIndex(v.Ref, "/")+1:])
	}
	if shape == shapeArray && v.Items != nil && v.Items.Ref != "" {
		return exported(v.Items.Ref[strings.LastIndex(v.Items.Ref, "/")+1:]) + "List"
	}
	return exported(shape)
}

// helper returns the name of the generated package's helper fn (kindOf or
// elemKindOf), which the package declares once.
func (g *generator) helper(fn string) string {
	if g.prefix == "" {
		return fn
	}
	return lowerFirst(g.prefix) + exported(fn)
}

// helpersDecl declares the helpers of the unions.
func (g *generator) helpersDecl() string {
	return fmt.Sprintf(`// %s returns the kind of the JSON value b by its first byte: 's' string,
// 'o' object, 'a' array, 'b' boolean, 'z' null, '0' number.
func %s(b []byte) byte {
	for _, c := range b {
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		case '"':
			return 's'
		case '{':
			return 'o'
		case '[':
			return 'a'
		case 't', 'f':
			return 'b'
		case 'n':
			return 'z'
		}
		return '0'
	}
	return 0
}

// %s returns the kind of the first element of the JSON array b, or 0
// for an empty array.
func %s(b []byte) byte {
	for i, c := range b {
		if c != '[' {
			continue
		}
		for _, d := range b[i+1:] {
			switch d {
			case ' ', '\t', '\n', '\r':
				continue
			case ']':
				return 0
			}
			return %s(b[i+1:])
		}
		return 0
	}
	return 0
}
`, g.helper("kindOf"), g.helper("kindOf"), g.helper("elemKindOf"), g.helper("elemKindOf"), g.helper("kindOf"))
}

// importType returns the Go expression of the type target
// ("path/to/pkg.Name", or a name of the generated package), importing its
// package.
func (g *generator) importType(target string) (string, error) {
	dot := strings.LastIndex(target, ".")
	slash := strings.LastIndex(target, "/")
	if dot < 0 || dot < slash {
		return target, nil
	}
	path, name := target[:dot], target[dot+1:]
	pkg := path[strings.LastIndex(path, "/")+1:]
	if !isIdent(pkg) || !isIdent(name) {
		return "", fmt.Errorf("cannot map to %q: want import/path.Name", target)
	}
	if p, ok := g.imports[pkg]; ok && p != path {
		return "", fmt.Errorf("cannot map to %q: package name %s is %s's too", target, pkg, p)
	}
	g.imports[pkg] = path
	return pkg + "." + name, nil
}
