//go:build !race

// The race detector makes sync.Pool drop items at random, so allocation
// counts hold only without it.

package fasthttprpc_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"strings"
	"testing"

	"github.com/valyala/fasthttp"

	"github.com/jsonrpc-go/jsonrpc/fasthttprpc"
	"github.com/jsonrpc-go/jsonrpc/internal/demo"
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

// A gzip request and a compressed answer allocate what an uncompressed
// request does, the context and nothing more: the gzip reader and writer
// and their buffers are pooled, and the answer is compressed straight into
// fasthttp's body buffer. (Request and answer fit the pooled buffer here, as
// in TestHandlerAllocs; past it, the answer's room costs one allocation,
// compressed or not.)
func TestGzipAllocs(t *testing.T) {
	h := &fasthttprpc.Handler{Server: demo.NewServer(), CompressMin: 256}
	req := `{"jsonrpc":"2.0","method":"StringMe","params":["` + strings.Repeat("ab", 150) + `"],"id":1}`
	var zb bytes.Buffer
	zw := gzip.NewWriter(&zb)
	zw.Write([]byte(req))
	zw.Close()
	z := zb.Bytes()
	body := bytes.NewReader(nil)
	for _, c := range []struct {
		name     string
		coding   string
		body     []byte
		streamed bool
		want     float64
	}{
		{"plain request", "", []byte(req), false, 1},
		{"plain request, streamed", "", []byte(req), true, 1},
		{"gzip request", "gzip", z, false, 1},
		{"gzip request, streamed", "gzip", z, true, 1},
	} {
		var ctx fasthttp.RequestCtx
		ctx.Request.Header.SetMethod("POST")
		ctx.Request.Header.SetContentType("application/json")
		if c.coding != "" {
			ctx.Request.Header.Set("Content-Encoding", c.coding)
		}
		ctx.Request.Header.Set("Accept-Encoding", "gzip")
		serve := func() {
			if c.streamed {
				body.Reset(c.body)
				ctx.Request.SetBodyStream(body, len(c.body))
			} else {
				ctx.Request.SetBody(c.body)
			}
			ctx.Response.Reset()
			h.ServeFastHTTP(&ctx)
		}
		serve()
		if ce := string(ctx.Response.Header.ContentEncoding()); ce != "gzip" {
			t.Fatalf("%s: answer not compressed (Content-Encoding %q)", c.name, ce)
		}
		zr, err := gzip.NewReader(bytes.NewReader(ctx.Response.Body()))
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := io.ReadAll(zr); !strings.Contains(string(got), `"result":"abab`) {
			t.Fatalf("%s: answer %.60s", c.name, got)
		}
		if allocs := testing.AllocsPerRun(200, serve); allocs != c.want {
			t.Errorf("%s, compressed answer: %v allocations per request, want %v", c.name, allocs, c.want)
		}
	}
}

// A Handler with a nil Server answers every call "Method not found", as
// every host of the library does.
func TestNilServer(t *testing.T) {
	var h fasthttprpc.Handler
	var ctx fasthttp.RequestCtx
	ctx.Request.Header.SetMethod("POST")
	ctx.Request.Header.SetContentType("application/json")
	ctx.Request.SetBodyString(`{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`)
	h.ServeFastHTTP(&ctx)
	if got, want := string(ctx.Response.Body()), `{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found","data":"add"},"id":1}`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}
