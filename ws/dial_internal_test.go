//go:build !js

package ws

import (
	"testing"

	"github.com/jsonrpc-go/jsonrpc/client"
)

// TestDialLimitIsTheClients: a channel from Dial reads what a client's
// other channels read.
func TestDialLimitIsTheClients(t *testing.T) {
	if dialMaxMessage != client.DefaultMaxMessage {
		t.Fatalf("dialMaxMessage = %d, client.DefaultMaxMessage = %d", dialMaxMessage, client.DefaultMaxMessage)
	}
}
