package demo

import (
	"encoding/json"
	"fmt"
	"iter"
	"strings"

	"github.com/jsonrpc-go/jsonrpc"
)

// ItemsParams are the params of Items: how many items, and the bytes of
// each; PartialResultToken is LSP's, which a caller sends to get the items
// as partial results (package protocol/progress) and Items ignores.
type ItemsParams struct {
	N                  int             `json:"n"`
	Size               int             `json:"size"`
	PartialResultToken json.RawMessage `json:"partialResultToken,omitempty"`
}

// MaxItems is the most items Items yields.
const MaxItems = 1_000_000

// Items returns a sequence of p.N items, each a string of p.Size bytes
// (at most MaxItems of them, each at most MaxPublish bytes), made as they
// are pulled: a sequence result, which each connection sends as its
// protocol shapes it (StreamJsonRpc's $/enumerator pulls over TCP and
// WebSocket, LSP's partial results when the call asks for them, one
// array over plain HTTP). jsonrpcd serves it as items with -items, for the
// soak's attacks on result streams (bench/soak).
func Items(p ItemsParams) (iter.Seq[string], error) {
	if p.N < 0 || p.N > MaxItems || p.Size < 2 || p.Size > MaxPublish {
		return nil, jsonrpc.ErrInvalidParams.WithData(fmt.Sprintf("n must be from 0 to %d, size from 2 to %d", MaxItems, MaxPublish))
	}
	return func(yield func(string) bool) {
		item := strings.Repeat("x", p.Size-2) // the JSON string is p.Size bytes
		for range p.N {
			if !yield(item) {
				return
			}
		}
	}, nil
}

// RegisterItems adds items (Items) to s.
func RegisterItems(s *jsonrpc.Server) error {
	return s.Register("items", Items)
}
