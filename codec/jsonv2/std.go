//go:build goexperiment.jsonv2 && go1.27

package jsonv2

import (
	jsonv1 "encoding/json"
	"encoding/json/jsontext"
	json "encoding/json/v2"
)

// From Go 1.27, where GOEXPERIMENT=jsonv2 is on by default, the codec is
// the standard library's encoding/json/v2.

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
