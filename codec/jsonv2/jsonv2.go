// Package jsonv2 is a jsonrpc.Codec of encoding/json/v2: the standard
// library's from Go 1.27, where GOEXPERIMENT=jsonv2 (the build tag
// goexperiment.jsonv2) is on by default, and github.com/go-json-experiment/json,
// the module it came from, on Go 1.26 and on a Go 1.27 built with
// GOEXPERIMENT=nojsonv2.
//
//	srv := jsonrpc.NewServer(jsonrpc.UseCodec(jsonv2.Codec{}))
//
// It answers as the server's default, encoding/json, does where the
// contract of jsonrpc.Codec fixes the answer, and passes the suite of
// package codec/codectest: unknown members are refused at every depth
// unless the server allows them (RejectUnknownMembers), names match fields
// case-insensitively (MatchCaseInsensitiveNames, with underscores and
// dashes significant, as in encoding/json), nil slices and maps encode as
// null (FormatNilSliceAsNull, FormatNilMapAsNull), map keys are sorted
// (Deterministic), invalid UTF-8 in a string encodes as U+FFFD
// (AllowInvalidUTF8), omitempty omits the zero values encoding/json omits
// and a time.Duration is its nanoseconds (the v1 options
// OmitEmptyWithLegacySemantics and FormatDurationAsNano), and NaN and the
// infinities are reported as encoding/json reports them.
//
// Everything else is encoding/json/v2's own, and differs from
// encoding/json:
//
//   - An array with more elements than a Go array param holds is an error
//     (encoding/json drops the rest).
//   - '<', '>', '&', U+2028 and U+2029 are not escaped in strings.
//   - A [N]byte is base64, as []byte is (encoding/json makes an array of
//     numbers).
//   - The errors of params that do not fit name the value by its JSON
//     Pointer ("/address/zip"), in the v2 package's wording, which changes
//     on purpose from one process to the next ("cannot unmarshal" or
//     "unable to unmarshal"): match on the error code, not the text.
//   - The `json:",string"` option and the format, inline, unknown and case
//     options of v2 struct tags apply as encoding/json/v2 documents them.
package jsonv2

import (
	"errors"
	"reflect"
	"strings"

	"encoding/json"

	"github.com/jsonrpc-go/jsonrpc/internal/bind"
	"github.com/jsonrpc-go/jsonrpc/internal/wire"
)

// The server encodes the results it can itself for a method with this
// codec, as encoding/json would (see jsonrpc.Codec).
func init() { bind.MarkStandard(Codec{}) }

// Codec is the jsonrpc.Codec of encoding/json/v2. Its zero value is ready
// to use; it is safe for concurrent use.
type Codec struct{}

// Unmarshal implements jsonrpc.Codec: it decodes data into v, refusing
// object members that name no field unless allowUnknown.
func (Codec) Unmarshal(data []byte, v any, allowUnknown bool) error {
	return unmarshal(data, v, allowUnknown)
}

// Append implements jsonrpc.Codec: it appends the encoding of v to dst. A
// float that is NaN or infinite fails with a *json.UnsupportedValueError
// (of encoding/json), as the contract of jsonrpc.Codec asks.
func (Codec) Append(dst []byte, v any) ([]byte, error) {
	b, err := marshal(v)
	if err != nil {
		return dst, nonFinite(err)
	}
	return wire.AppendLong(dst, b), nil
}

// nonFinite returns err as a *json.UnsupportedValueError when it reports a
// float that is NaN or infinite, and err otherwise.
func nonFinite(err error) error {
	var se *semanticError
	if !errors.As(err, &se) || se.GoType == nil || se.Err == nil {
		return err
	}
	if k := se.GoType.Kind(); k != reflect.Float32 && k != reflect.Float64 {
		return err
	}
	f, ok := strings.CutPrefix(se.Err.Error(), "unsupported value: ")
	if !ok {
		return err
	}
	switch f {
	case "NaN", "+Inf", "-Inf":
		return &json.UnsupportedValueError{Str: f}
	}
	return err
}
