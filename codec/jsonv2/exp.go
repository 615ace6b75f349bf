//go:build !goexperiment.jsonv2 || !go1.27

package jsonv2

import (
	json "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	jsonv1 "github.com/go-json-experiment/json/v1"
)

// Before Go 1.27, or without GOEXPERIMENT=jsonv2, the codec is
// github.com/go-json-experiment/json, the module encoding/json/v2 came from.

type semanticError = json.SemanticError

var (
	marshalOpts = json.JoinOptions(
		json.Deterministic(true),
		json.FormatNilSliceAsNull(true),
		json.FormatNilMapAsNull(true),
		jsontext.AllowInvalidUTF8(true),
		jsontext.EscapeForJS(true), // U+2028 and U+2029 escaped, as the server's own encoder does
		jsonv1.OmitEmptyWithLegacySemantics(true),
		jsonv1.FormatDurationAsNano(true),
	)
	unmarshalOpts = json.JoinOptions(
		json.MatchCaseInsensitiveNames(true),
		jsonv1.MatchCaseSensitiveDelimiter(true),
		jsonv1.FormatDurationAsNano(true),
	)
	strictOpts  = json.JoinOptions(unmarshalOpts, json.RejectUnknownMembers(true))
	lenientOpts = json.JoinOptions(unmarshalOpts, json.RejectUnknownMembers(false))
)

func marshal(v any) ([]byte, error) { return json.Marshal(v, marshalOpts) }

func unmarshal(data []byte, v any, allowUnknown bool) error {
	if allowUnknown {
		return json.Unmarshal(data, v, lenientOpts)
	}
	return json.Unmarshal(data, v, strictOpts)
}
