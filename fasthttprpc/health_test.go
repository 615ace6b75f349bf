package fasthttprpc_test

import (
	"testing"

	"github.com/valyala/fasthttp"

	"github.com/jsonrpc-go/jsonrpc/fasthttprpc"
	"github.com/jsonrpc-go/jsonrpc/internal/demo"
	"github.com/jsonrpc-go/jsonrpc/transport"
)

// A Handler's Health answers its probes: readiness 200, then 503 once
// drained, liveness 200 throughout; a POST to the same path is JSON-RPC.
func TestHealth(t *testing.T) {
	health := &transport.Health{}
	h := &fasthttprpc.Handler{Server: demo.NewServer(), Health: health}
	do := func(method, path, body string) (int, string) {
		var ctx fasthttp.RequestCtx
		ctx.Request.Header.SetMethod(method)
		ctx.Request.SetRequestURI(path)
		if body != "" {
			ctx.Request.Header.SetContentType("application/json")
			ctx.Request.SetBodyString(body)
		}
		h.ServeFastHTTP(&ctx)
		return ctx.Response.StatusCode(), string(ctx.Response.Body())
	}
	for _, tc := range []struct {
		drained      bool
		method, path string
		status       int
		body         string
	}{
		{false, "GET", "/healthz", 200, "ok\n"},
		{false, "GET", "/readyz", 200, "ok\n"},
		{false, "POST", "/readyz", 200, `{"jsonrpc":"2.0","result":3,"id":1}`},
		{true, "GET", "/healthz", 200, "ok\n"},
		{true, "GET", "/readyz", 503, "draining\n"},
		{true, "HEAD", "/readyz", 503, "draining\n"}, // a HEAD's body is not sent
	} {
		if tc.drained {
			health.Drain()
		}
		req := ""
		if tc.method == "POST" {
			req = `{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`
		}
		if status, body := do(tc.method, tc.path, req); status != tc.status || body != tc.body {
			t.Errorf("drained=%v %s %s: %d %q, want %d %q", tc.drained, tc.method, tc.path, status, body, tc.status, tc.body)
		}
	}
}
