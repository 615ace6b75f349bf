package fast_test

import (
	"testing"

	"github.com/jsonrpc-go/jsonrpc/codec/codectest"
	"github.com/jsonrpc-go/jsonrpc/codec/fast"
)

func TestConformance(t *testing.T) {
	t.Logf("library: %s", fast.Codec{}.Library())
	codectest.Run(t, fast.Codec{})
	codectest.Escapes(t, fast.Codec{})
}
