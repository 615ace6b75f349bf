package codectest_test

import (
	"testing"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/codec/codectest"
)

// The default codec, encoding/json, passes the suite.
func TestJSONCodec(t *testing.T) {
	codectest.Run(t, jsonrpc.JSONCodec{})
	codectest.Escapes(t, jsonrpc.JSONCodec{})
}
