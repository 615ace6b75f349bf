// Package codecbench compares the JSON libraries behind the codecs of
// package jsonrpc on the workloads of a JSON-RPC server (a typical record,
// a list of 20, a free-form map), each configured as the jsonrpc.Codec
// contract asks: sorted map keys, invalid UTF-8 replaced, unknown fields
// refused. Its figures chose the library of the module codec/fast:
//
//	cd bench && go test -run '^$' -bench Compare ./codecbench
package codecbench
