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
	"sync/atomic"
	"testing"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/framing"
	"github.com/jsonrpc-go/jsonrpc/internal/demo"
	"github.com/jsonrpc-go/jsonrpc/internal/wire"
	"github.com/jsonrpc-go/jsonrpc/protocol/lsp"
	"github.com/jsonrpc-go/jsonrpc/transport"
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

// passOn is middleware between the host and the server that keeps the
// host's scan (a transport.RequestHandler), as a program's own would.
type passOn struct{ next transport.Handler }

func (p passOn) ProcessAsync(ctx context.Context, dst, req []byte, reply func([]byte)) {
	p.next.ProcessAsync(ctx, dst, req, reply)
}

func (p passOn) ProcessRequest(ctx context.Context, dst []byte, r *jsonrpc.Request, reply func([]byte)) {
	transport.ProcessRequestOf(ctx, p.next, dst, r, reply)
}

// TestWrappedServeAllocs: a two-way connection (LSP's profile: it
// classifies every message it reads) whose server is wrapped in
// middleware and a session router serves as one whose server is bare:
// each request scanned once, by the connection (wire.CountScans), and no
// allocation for it: a connection of 10,000 requests allocates what one
// of 1,000 does, its own buffers.
func TestWrappedServeAllocs(t *testing.T) {
	srv := demo.NewServer()
	input := func(n int) []byte {
		var in bytes.Buffer
		w := framing.Header.NewWriter(&in)
		for i := range n {
			w.Write([]byte(demo.Requests[i%len(demo.Requests)]))
		}
		w.Flush()
		return in.Bytes()
	}
	short, long := input(1000), input(10000)
	for _, tc := range []struct {
		name string
		h    transport.Handler
	}{
		{"bare", srv},
		{"middleware", passOn{srv}},
		{"router and middleware", transport.SessionRouter(passOn{srv}, &jsonrpc.Sessions{}, "")},
	} {
		s := &Server{Server: tc.h, Framing: framing.Header, Protocol: lsp.Protocol()}
		serve := func(in []byte) func() {
			return func() {
				rwc := ReadWriteCloser(bytes.NewReader(in), io.Discard)
				if err := s.ServeConn(context.Background(), rwc); err != nil {
					t.Fatal(err)
				}
			}
		}
		var scans atomic.Int64
		wire.CountScans(&scans)
		serve(long)()
		wire.CountScans(nil)
		if got := scans.Load(); got != 10000 {
			t.Errorf("%s: %d scans of 10000 requests, want one each", tc.name, got)
		}
		perRequest := (testing.AllocsPerRun(5, serve(long)) - testing.AllocsPerRun(5, serve(short))) / 9000
		if perRequest >= 0.05 { // pools refilled after a collection: a few per connection
			t.Errorf("%s: %.3f allocations per request, want none", tc.name, perRequest)
		}
	}
}
