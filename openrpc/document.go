package openrpc

import "encoding/json"

// Version is the version of the OpenRPC specification that documents
// follow.
const Version = "1.3.2"

// A Document is an OpenRPC document: what a server serves, method by method.
type Document struct {
	OpenRPC    string      `json:"openrpc"`
	Info       Info        `json:"info"`
	Methods    []Method    `json:"methods"`
	Components *Components `json:"components,omitempty"`
}

// Info is the document's info object: the service's title and version, and
// optionally more. Methods is not part of the info object: it gives the
// methods the summaries, descriptions and errors that registration does not
// know, keyed by method name.
type Info struct {
	Title          string   `json:"title"`
	Description    string   `json:"description,omitempty"`
	TermsOfService string   `json:"termsOfService,omitempty"`
	Version        string   `json:"version"`
	Contact        *Contact `json:"contact,omitempty"`
	License        *License `json:"license,omitempty"`

	Methods map[string]MethodDoc `json:"-"`
}

// Contact is the info object's contact.
type Contact struct {
	Name  string `json:"name,omitempty"`
	URL   string `json:"url,omitempty"`
	Email string `json:"email,omitempty"`
}

// License is the info object's license.
type License struct {
	Name string `json:"name"`
	URL  string `json:"url,omitempty"`
}

// MethodDoc is what a method's document says beyond its params and result.
type MethodDoc struct {
	Summary     string
	Description string
	Errors      []Error // the application errors the method may answer with
	Deprecated  bool
}

// A Method is a method object: one method, its params and its result.
type Method struct {
	Name        string `json:"name"`
	Summary     string `json:"summary,omitempty"`
	Description string `json:"description,omitempty"`
	// Params are the method's params, in order; by name, each is passed
	// under its Name.
	Params []ContentDescriptor `json:"params"`
	// Result describes the result; for a method that returns no value it
	// has the null schema.
	Result *ContentDescriptor `json:"result,omitempty"`
	Errors []Error            `json:"errors,omitempty"`
	// ParamStructure is how params may be passed: ByPosition, ByName or
	// Either.
	ParamStructure string `json:"paramStructure,omitempty"`
	Deprecated     bool   `json:"deprecated,omitempty"`
	// Auth says who may call the method (the extension x-auth):
	// AuthRequired for a method whose calls require a Principal
	// (jsonrpc.RequireScopes, or a method without a policy of its own on
	// a server that has jsonrpc.RequireAuth), AuthPublic for a method
	// declared jsonrpc.Public, "" for a method without a policy on a
	// server that requires none: anybody's.
	Auth string `json:"x-auth,omitempty"`
	// Scopes are the scopes a call of the method requires, all of them
	// (jsonrpc.RequireScopes; the extension x-scopes).
	Scopes []string `json:"x-scopes,omitempty"`
}

// The values of Method.Auth.
const (
	AuthRequired = "required"
	AuthPublic   = "public"
)

// The values of Method.ParamStructure.
const (
	ByPosition = "by-position"
	ByName     = "by-name"
	Either     = "either"
)

// A ContentDescriptor describes a param or a result.
type ContentDescriptor struct {
	Name        string  `json:"name"`
	Summary     string  `json:"summary,omitempty"`
	Description string  `json:"description,omitempty"`
	Required    bool    `json:"required,omitempty"`
	Schema      *Schema `json:"schema"`
	Deprecated  bool    `json:"deprecated,omitempty"`
	// Variadic marks a variadic last param (the extension x-variadic):
	// its Schema is an array, passed as such by name, while by position
	// the params after the others are its elements.
	Variadic bool `json:"x-variadic,omitempty"`
}

// An Error is an error object: an error a method may answer with.
type Error struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

// Components holds the schemas that the document's schemas refer to by
// "$ref": "#/components/schemas/<name>": the named struct types.
type Components struct {
	Schemas map[string]*Schema `json:"schemas,omitempty"`
}

// A Schema is a JSON Schema (draft 7, which OpenRPC 1.3 uses, and 2020-12,
// where SchemaOf puts the schemas it refers to in Defs), with the keywords
// that describe Go values. The zero Schema, {}, accepts any value.
type Schema struct {
	Ref                  string             `json:"$ref,omitempty"`
	Type                 Types              `json:"type,omitempty"`
	Format               string             `json:"format,omitempty"`
	ContentEncoding      string             `json:"contentEncoding,omitempty"`
	Description          string             `json:"description,omitempty"`
	Properties           map[string]*Schema `json:"properties,omitempty"`
	Required             []string           `json:"required,omitempty"`
	AdditionalProperties *Schema            `json:"additionalProperties,omitempty"`
	Items                *Schema            `json:"items,omitempty"`
	MinItems             *int               `json:"minItems,omitempty"`
	MaxItems             *int               `json:"maxItems,omitempty"`
	Minimum              *int64             `json:"minimum,omitempty"`
	OneOf                []*Schema          `json:"oneOf,omitempty"`
	// Default is the JSON of the value an omitted param gets.
	Default json.RawMessage `json:"default,omitempty"`
	// Defs holds the schemas that "$ref": "#/$defs/<name>" refers to, at
	// the top of a schema SchemaOf made; nil in a document, whose schemas
	// refer to its Components.
	Defs map[string]*Schema `json:"$defs,omitempty"`
}

// Types is the value of a schema's type keyword: one JSON type ("string"),
// written as a string, or several (["number","null"]), written as an array.
type Types []string

// MarshalJSON writes one type as a string and several as an array.
func (t Types) MarshalJSON() ([]byte, error) {
	if len(t) == 1 {
		return json.Marshal(t[0])
	}
	return json.Marshal([]string(t))
}

// UnmarshalJSON reads a type as a string or an array of strings.
func (t *Types) UnmarshalJSON(b []byte) error {
	var one string
	if err := json.Unmarshal(b, &one); err == nil {
		*t = Types{one}
		return nil
	}
	return json.Unmarshal(b, (*[]string)(t))
}
