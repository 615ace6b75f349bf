//go:build js

package ws_test

import (
	"testing"

	"github.com/jsonrpc-go/jsonrpc/internal/testutil"
)

// The package's other tests do not build under js: they serve WebSocket
// connections and dial them through an http.Client, and coder/websocket on
// js is the browser's WebSocket client alone. This test says why they are
// left out.
func TestJS(t *testing.T) {
	testutil.SkipOnJS(t, "coder/websocket on js has no server (Accept is a stub) and dials with the host's WebSocket, which cannot reach the program's in-memory network; the other tests of this package are built with !js")
}
