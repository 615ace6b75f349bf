//go:generate go run ../../../../cmd/openrpc-gen -pkg ethrpc -out . -type uint=github.com/jsonrpc-go/jsonrpc/openrpc/gen/internal/hexutil.Big -type uint256=github.com/jsonrpc-go/jsonrpc/openrpc/gen/internal/hexutil.Big -type uint64=github.com/jsonrpc-go/jsonrpc/openrpc/gen/internal/hexutil.Uint64 ../../testdata/execution-apis/refs-openrpc.json

package ethrpc
