package jsonv2_test

import (
	"testing"

	"github.com/jsonrpc-go/jsonrpc/codec/codectest"
	"github.com/jsonrpc-go/jsonrpc/codec/jsonv2"
)

func TestConformance(t *testing.T) {
	codectest.Run(t, jsonv2.Codec{})
	codectest.Escapes(t, jsonv2.Codec{})
}
