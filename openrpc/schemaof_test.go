package openrpc_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/jsonrpc-go/jsonrpc/openrpc"
)

type schemaAddress struct {
	Street string `json:"street" description:"The street and number."`
	City   string `json:"city,omitempty"`
}

type schemaPerson struct {
	Name    string         `json:"name" description:"The full name."`
	Home    schemaAddress  `json:"home"`
	Work    *schemaAddress `json:"work,omitempty"`
	Friends []schemaPerson `json:"friends,omitempty"`
}

// TestSchemaOf: a schema that stands alone, for JSON Schema 2020-12's own
// uses: the struct at the top in place (a pointer to it too, without
// null), the named structs it refers to under $defs, itself included when
// it refers to itself, and the descriptions of the fields' tags.
func TestSchemaOf(t *testing.T) {
	for _, tc := range []struct {
		name string
		t    reflect.Type
		want string
	}{
		{"struct", reflect.TypeFor[schemaPerson](), `{"type":"object","properties":{"friends":{"type":["array","null"],"items":{"$ref":"#/$defs/schemaPerson"}},"home":{"$ref":"#/$defs/schemaAddress"},"name":{"type":"string","description":"The full name."},"work":{"oneOf":[{"$ref":"#/$defs/schemaAddress"},{"type":"null"}]}},"required":["name","home"],"$defs":{"schemaAddress":{"type":"object","properties":{"city":{"type":"string"},"street":{"type":"string","description":"The street and number."}},"required":["street"]},"schemaPerson":{"type":"object","properties":{"friends":{"type":["array","null"],"items":{"$ref":"#/$defs/schemaPerson"}},"home":{"$ref":"#/$defs/schemaAddress"},"name":{"type":"string","description":"The full name."},"work":{"oneOf":[{"$ref":"#/$defs/schemaAddress"},{"type":"null"}]}},"required":["name","home"]}}}`},
		{"pointer", reflect.TypeFor[*schemaAddress](), `{"type":"object","properties":{"city":{"type":"string"},"street":{"type":"string","description":"The street and number."}},"required":["street"]}`},
		{"anonymous", reflect.TypeFor[struct {
			N int `json:"n"`
		}](), `{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`},
		{"not a struct", reflect.TypeFor[[]string](), `{"type":["array","null"],"items":{"type":"string"}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := json.Marshal(openrpc.SchemaOf(tc.t))
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tc.want {
				t.Errorf("got  %s\nwant %s", b, tc.want)
			}
		})
	}
}
