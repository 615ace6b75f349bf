//go:build go1.26 && !go1.28 && !jsonrpc_nogoccy

package fast

import (
	"bytes"
	"reflect"
	"sync/atomic"

	json "github.com/goccy/go-json"

	"github.com/jsonrpc-go/jsonrpc"
)

const library = "github.com/goccy/go-json"

// fallbacks counts the values encoding/json decoded or encoded after
// go-json failed, for the tests.
var fallbacks atomic.Int64

// unmarshal decodes with go-json; when go-json fails, encoding/json decodes
// the value again from its zero value and has the last word, so that what
// go-json refuses wrongly is decoded, and errors are encoding/json's.
func unmarshal(data []byte, v any, allowUnknown bool) error {
	var err error
	if allowUnknown {
		err = json.Unmarshal(data, v)
	} else {
		d := json.NewDecoder(bytes.NewReader(data))
		d.DisallowUnknownFields()
		err = d.Decode(v)
	}
	if err == nil {
		return nil
	}
	fallbacks.Add(1)
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.Pointer && !rv.IsNil() {
		rv.Elem().SetZero()
	}
	return jsonrpc.JSONCodec{}.Unmarshal(data, v, allowUnknown)
}

// appendJSON encodes with go-json; when go-json fails, encoding/json
// encodes the value, and its error, if any, is the answer.
func appendJSON(dst []byte, v any) ([]byte, error) {
	b, err := json.MarshalWithOption(v, json.DisableHTMLEscape())
	if err != nil {
		fallbacks.Add(1)
		return jsonrpc.JSONCodec{}.Append(dst, v)
	}
	return append(dst, b...), nil
}
