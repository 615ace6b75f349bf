//go:build !race && !jsonrpc_noadapters

// The calls of the demo's calculator allocate through reflection without the
// generated adapters (the build tag jsonrpc_noadapters): these tests count the
// transport's allocations on top of adapted calls.

// The race detector makes sync.Pool drop items at random, so allocation
// counts are only meaningful without it.

package stream

import (
	"bytes"
	"context"
	"io"
	"testing"

	"github.com/jsonrpc-go/jsonrpc/internal/demo"
)

// TestServeAllocs: serving a connection allocates per connection, not per
// request: 10,000 calculator requests (methods over primitives) on one
// connection cost the connection's buffers and nothing for each, on every
// framing and ordering.
func TestServeAllocs(t *testing.T) {
	const n = 10000
	h := demo.NewServer()
	for _, fr := range framings {
		var in bytes.Buffer
		w := fr.f.NewWriter(&in)
		for i := range n {
			w.Write([]byte(demo.Requests[i%len(demo.Requests)]))
		}
		w.Flush()
		for _, order := range []Ordering{Ordered, Sequential, Concurrent} {
			s := &Server{Server: h, Framing: fr.f, Order: order}
			allocs := testing.AllocsPerRun(3, func() {
				rwc := ReadWriteCloser(bytes.NewReader(in.Bytes()), io.Discard)
				if err := s.ServeConn(context.Background(), rwc); err != nil {
					t.Fatal(err)
				}
			})
			if allocs > 100 {
				t.Errorf("%s/%v: %.0f allocations for %d requests on one connection", fr.name, order, allocs, n)
			}
		}
	}
}
