package gen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// document is an OpenRPC document as the generator reads it: the parts of
// it that say something about Go types and calls. It is read with its own
// types rather than package openrpc's, which hold only what Describe
// writes: a document written by hand uses more of JSON Schema (enum,
// anyOf, allOf, titles, patterns) and refers to its components by "$ref".
type document struct {
	OpenRPC    string          `json:"openrpc"`
	Info       info            `json:"info"`
	Methods    []*method       `json:"methods"`
	Components components      `json:"components"`
	raw        json.RawMessage // the whole document, for $ref pointers outside the components' schemas
	tree       any             // raw decoded, once a pointer needs it
}

type info struct {
	Title          string          `json:"title"`
	Description    string          `json:"description"`
	TermsOfService string          `json:"termsOfService"`
	Version        string          `json:"version"`
	Contact        json.RawMessage `json:"contact"`
	License        json.RawMessage `json:"license"`
}

type components struct {
	Schemas            map[string]*schema            `json:"schemas"`
	ContentDescriptors map[string]*contentDescriptor `json:"contentDescriptors"`
	Errors             map[string]*errorObject       `json:"errors"`
}

type method struct {
	Ref            string               `json:"$ref"`
	Name           string               `json:"name"`
	Summary        string               `json:"summary"`
	Description    string               `json:"description"`
	Params         []*contentDescriptor `json:"params"`
	Result         *contentDescriptor   `json:"result"`
	Errors         []*errorObject       `json:"errors"`
	ParamStructure string               `json:"paramStructure"`
	Deprecated     bool                 `json:"deprecated"`
}

type contentDescriptor struct {
	Ref         string  `json:"$ref"`
	Name        string  `json:"name"`
	Summary     string  `json:"summary"`
	Description string  `json:"description"`
	Required    bool    `json:"required"`
	Schema      *schema `json:"schema"`
	Deprecated  bool    `json:"deprecated"`
	Variadic    bool    `json:"x-variadic"`
}

type errorObject struct {
	Ref     string          `json:"$ref"`
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data"`
}

// schema is a JSON Schema (draft 7, as OpenRPC 1.3 and 1.4 use it), with
// the keywords that say something about Go types. The boolean schemas
// true and false read as {} (false never matches a value, which no Go type
// can say either).
type schema struct {
	Ref                  string             `json:"$ref"`
	Type                 types              `json:"type"`
	Format               string             `json:"format"`
	ContentEncoding      string             `json:"contentEncoding"`
	Title                string             `json:"title"`
	Description          string             `json:"description"`
	Enum                 []json.RawMessage  `json:"enum"`
	Const                json.RawMessage    `json:"const"`
	Properties           map[string]*schema `json:"properties"`
	Required             []string           `json:"required"`
	AdditionalProperties *schema            `json:"-"`
	PatternProperties    map[string]*schema `json:"patternProperties"`
	Items                *schema            `json:"-"`
	OneOf                []*schema          `json:"oneOf"`
	AnyOf                []*schema          `json:"anyOf"`
	AllOf                []*schema          `json:"allOf"`
	Minimum              *float64           `json:"minimum"`
	Default              json.RawMessage    `json:"default"`
}

// UnmarshalJSON reads a schema, or a boolean schema as {}. items in its
// array form (a tuple) and additionalProperties: false read as absent.
func (s *schema) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if string(b) == "true" || string(b) == "false" {
		*s = schema{}
		return nil
	}
	type plain schema
	var v struct {
		plain
		Items                json.RawMessage `json:"items"`
		AdditionalProperties json.RawMessage `json:"additionalProperties"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*s = schema(v.plain)
	if len(v.Items) > 0 && v.Items[0] == '{' {
		s.Items = new(schema)
		if err := json.Unmarshal(v.Items, s.Items); err != nil {
			return err
		}
	} else if len(v.Items) > 0 && v.Items[0] == '[' {
		s.Items = new(schema) // a tuple: any elements
	}
	if len(v.AdditionalProperties) > 0 && v.AdditionalProperties[0] == '{' {
		s.AdditionalProperties = new(schema)
		if err := json.Unmarshal(v.AdditionalProperties, s.AdditionalProperties); err != nil {
			return err
		}
	}
	return nil
}

// types is the type keyword: one type or several.
type types []string

func (t *types) UnmarshalJSON(b []byte) error {
	var one string
	if err := json.Unmarshal(b, &one); err == nil {
		*t = types{one}
		return nil
	}
	return json.Unmarshal(b, (*[]string)(t))
}

// has reports whether t lists typ.
func (t types) has(typ string) bool {
	for _, x := range t {
		if x == typ {
			return true
		}
	}
	return false
}

// parseDocument reads an OpenRPC document and resolves the $refs of its
// methods, content descriptors and errors (schemas keep theirs: a schema
// component is a Go type).
func parseDocument(b []byte) (*document, error) {
	d := &document{raw: b}
	if err := json.Unmarshal(b, d); err != nil {
		return nil, fmt.Errorf("gen: reading the document: %w", err)
	}
	if !strings.HasPrefix(d.OpenRPC, "1.") {
		return nil, fmt.Errorf("gen: the document is OpenRPC %q, want 1.x", d.OpenRPC)
	}
	for i, m := range d.Methods {
		if m.Ref != "" {
			return nil, fmt.Errorf("gen: method %d is a reference (%s), which the generator does not follow", i, m.Ref)
		}
		if m.Name == "" {
			return nil, fmt.Errorf("gen: method %d has no name", i)
		}
		for j, p := range m.Params {
			r, err := d.descriptor(p)
			if err != nil {
				return nil, fmt.Errorf("gen: method %s, param %d: %w", m.Name, j, err)
			}
			m.Params[j] = r
		}
		if m.Result != nil {
			r, err := d.descriptor(m.Result)
			if err != nil {
				return nil, fmt.Errorf("gen: method %s, result: %w", m.Name, err)
			}
			m.Result = r
		}
		for j, e := range m.Errors {
			if e.Ref == "" {
				continue
			}
			name, ok := strings.CutPrefix(e.Ref, "#/components/errors/")
			if !ok || d.Components.Errors[name] == nil {
				return nil, fmt.Errorf("gen: method %s: unknown error %s", m.Name, e.Ref)
			}
			m.Errors[j] = d.Components.Errors[name]
		}
	}
	return d, nil
}

// descriptor resolves a content descriptor that is a $ref.
func (d *document) descriptor(c *contentDescriptor) (*contentDescriptor, error) {
	if c.Ref == "" {
		if c.Schema == nil {
			c.Schema = &schema{}
		}
		return c, nil
	}
	name, ok := strings.CutPrefix(c.Ref, "#/components/contentDescriptors/")
	r := d.Components.ContentDescriptors[name]
	if !ok || r == nil {
		return nil, fmt.Errorf("unknown content descriptor %s", c.Ref)
	}
	if r.Schema == nil {
		r.Schema = &schema{}
	}
	return r, nil
}

// resolve returns the schema a $ref points to: a component's schema, or
// any schema inside the document by JSON pointer.
func (d *document) resolve(ref string) (*schema, error) {
	if name, ok := strings.CutPrefix(ref, "#/components/schemas/"); ok && !strings.Contains(name, "/") {
		if s := d.Components.Schemas[unescapePointer(name)]; s != nil {
			return s, nil
		}
		return nil, fmt.Errorf("gen: unknown schema %s", ref)
	}
	p, ok := strings.CutPrefix(ref, "#/")
	if !ok {
		return nil, fmt.Errorf("gen: %s: only references inside the document are followed", ref)
	}
	if d.tree == nil {
		if err := json.Unmarshal(d.raw, &d.tree); err != nil {
			return nil, err
		}
	}
	cur := d.tree
	for _, tok := range strings.Split(p, "/") {
		tok = unescapePointer(tok)
		switch c := cur.(type) {
		case map[string]any:
			cur, ok = c[tok]
		case []any:
			i, err := strconv.Atoi(tok)
			ok = err == nil && i >= 0 && i < len(c)
			if ok {
				cur = c[i]
			}
		default:
			ok = false
		}
		if !ok {
			return nil, fmt.Errorf("gen: %s points to nothing", ref)
		}
	}
	b, err := json.Marshal(cur)
	if err != nil {
		return nil, err
	}
	s := new(schema)
	if err := json.Unmarshal(b, s); err != nil {
		return nil, fmt.Errorf("gen: %s: %w", ref, err)
	}
	return s, nil
}

func unescapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
}
