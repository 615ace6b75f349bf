//go:generate go run ../../../../cmd/openrpc-gen -pkg demorpc -out . ../../testdata/demo.json

package demorpc
