//go:build !go1.26 || go1.28 || jsonrpc_nogoccy

package fast

import "github.com/jsonrpc-go/jsonrpc"

const library = "encoding/json"

func unmarshal(data []byte, v any, allowUnknown bool) error {
	return jsonrpc.JSONCodec{}.Unmarshal(data, v, allowUnknown)
}

func appendJSON(dst []byte, v any) ([]byte, error) { return jsonrpc.JSONCodec{}.Append(dst, v) }
