package fast

import "github.com/jsonrpc-go/jsonrpc/internal/bind"

// The server encodes the results it can itself for a method with this
// codec, as encoding/json would (see jsonrpc.Codec).
func init() { bind.MarkStandard(Codec{}) }

// Codec is the jsonrpc.Codec of this package. Its zero value is ready to
// use; it is safe for concurrent use.
type Codec struct{}

// Unmarshal implements jsonrpc.Codec: it decodes data into v, refusing
// object members that name no field unless allowUnknown.
func (Codec) Unmarshal(data []byte, v any, allowUnknown bool) error {
	return unmarshal(data, v, allowUnknown)
}

// Append implements jsonrpc.Codec: it appends the encoding of v to dst. A
// float that is NaN or infinite fails with a *json.UnsupportedValueError
// of encoding/json, as the contract of jsonrpc.Codec asks.
func (Codec) Append(dst []byte, v any) ([]byte, error) { return appendJSON(dst, v) }

// Library returns the import path of the JSON library the program was built
// with: "github.com/goccy/go-json", or "encoding/json" on a Go release this
// package was not tested on or with the build tag jsonrpc_nogoccy.
func (Codec) Library() string { return library }
