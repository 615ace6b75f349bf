//go:build !race

// The race detector makes sync.Pool drop items at random, so allocation
// counts hold only without it.

package fasthttprpc_test

import (
	"strings"
	"testing"

	"github.com/valyala/fasthttp"

	"github.com/jsonrpc-go/jsonrpc/demo"
	"github.com/jsonrpc-go/jsonrpc/fasthttprpc"
)

// The common path allocates nothing per request in the handler itself
// (fasthttp reuses its RequestCtx; the answer is copied into its buffer).
func TestHandlerAllocs(t *testing.T) {
	h := &fasthttprpc.Handler{Server: demo.NewServer()}
	var ctx fasthttp.RequestCtx
	ctx.Request.Header.SetMethod("POST")
	ctx.Request.Header.SetContentType("application/json")
	ctx.Request.SetBodyString(`{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`)
	h.ServeFastHTTP(&ctx) // warm the pools
	if got := string(ctx.Response.Body()); got != `{"jsonrpc":"2.0","result":3,"id":1}` {
		t.Fatalf("answer %s", got)
	}
	allocs := testing.AllocsPerRun(200, func() {
		ctx.Response.Reset()
		h.ServeFastHTTP(&ctx)
	})
	// One: the context that carries the RequestCtx as the transport's
	// context value (jsonrpc.WithContextValue).
	if allocs > 1 {
		t.Errorf("%v allocations per request, want at most 1", allocs)
	}

	// A streamed body (StreamRequestBody) is read into the pooled buffer.
	const req = `{"jsonrpc":"2.0","method":"add","params":[2,3],"id":2}`
	body := strings.NewReader(req)
	stream := func() {
		body.Reset(req)
		ctx.Request.SetBodyStream(body, len(req))
		ctx.Response.Reset()
		h.ServeFastHTTP(&ctx)
	}
	stream()
	if got := string(ctx.Response.Body()); got != `{"jsonrpc":"2.0","result":5,"id":2}` {
		t.Fatalf("streamed: answer %s", got)
	}
	if allocs := testing.AllocsPerRun(200, stream); allocs > 1 {
		t.Errorf("streamed: %v allocations per request, want at most 1", allocs)
	}
}
