package fasthttprpc_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"net/http"
	"runtime"
	"strings"
	"testing"

	"github.com/valyala/fasthttp"

	"github.com/jsonrpc-go/jsonrpc/fasthttprpc"
	"github.com/jsonrpc-go/jsonrpc/internal/demo"
	"github.com/jsonrpc-go/jsonrpc/internal/leaktest"
	"github.com/jsonrpc-go/jsonrpc/internal/testutil"
)

func gunzip(tb testing.TB, b []byte) string {
	tb.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		tb.Fatal(err)
	}
	s, err := io.ReadAll(zr)
	if err != nil {
		tb.Fatal(err)
	}
	return string(s)
}

// countingReader counts the bytes read from it.
type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

// How a body reaches the handler: read by fasthttp, or streamed to it with
// its length or chunked.
type bodyMode int

const (
	inMemory bodyMode = iota
	streamedLength
	streamedChunked
)

var bodyModes = []bodyMode{inMemory, streamedLength, streamedChunked}

func (m bodyMode) String() string {
	return [...]string{"in memory", "streamed with its length", "streamed chunked"}[m]
}

// serveCtx sends body, with the Content-Encoding coding and the
// Accept-Encoding accept (when not empty), to h and returns the RequestCtx
// with the answer. A streamed body is read through counter, when not nil.
func serveCtx(h *fasthttprpc.Handler, mode bodyMode, body []byte, coding, accept string, counter *countingReader) *fasthttp.RequestCtx {
	ctx := new(fasthttp.RequestCtx)
	ctx.Request.Header.SetMethod("POST")
	ctx.Request.Header.SetContentType("application/json")
	if coding != "" {
		ctx.Request.Header.Set("Content-Encoding", coding)
	}
	if accept != "" {
		ctx.Request.Header.Set("Accept-Encoding", accept)
	}
	if mode == inMemory {
		ctx.Request.SetBody(body)
	} else {
		if counter == nil {
			counter = new(countingReader)
		}
		counter.r = bytes.NewReader(body)
		n := len(body)
		if mode == streamedChunked {
			n = -1
		}
		ctx.Request.SetBodyStream(counter, n)
	}
	h.ServeFastHTTP(ctx)
	return ctx
}

// A gzip body is decompressed, in memory or streamed, and over the network
// from Go's client.
func TestGzipRequest(t *testing.T) {
	leaktest.CheckIgnoring(t, fasthttpBackground...)
	srv := demo.NewServer()
	h := &fasthttprpc.Handler{Server: srv}
	req := demo.Batch
	want := srv.ProcessString(context.Background(), req)
	z := testutil.Gzip(t, req)
	for _, coding := range []string{"gzip", "x-gzip", "GZIP", "identity, gzip"} {
		for _, mode := range bodyModes {
			ctx := serveCtx(h, mode, z, coding, "", nil)
			if code, body := ctx.Response.StatusCode(), ctx.Response.Body(); code != 200 || string(body) != want {
				t.Errorf("%s, %s: %d %s, want 200 %s", coding, mode, code, body, want)
			}
		}
	}

	// Over the network, to a server that streams bodies and to one that
	// reads them.
	for name, url := range map[string]string{
		"NewServer":       "http://" + serveServer(t, fasthttprpc.NewServer(srv), nil),
		"fasthttp.Server": serve(t, h.ServeFastHTTP),
	} {
		hr, err := http.NewRequest("POST", url, bytes.NewReader(z))
		if err != nil {
			t.Fatal(err)
		}
		hr.Header.Set("Content-Type", "application/json")
		hr.Header.Set("Content-Encoding", "gzip")
		resp, err := http.DefaultClient.Do(hr)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || string(b) != want {
			t.Errorf("%s: %d %s, want 200 %s", name, resp.StatusCode, b, want)
		}
	}
}

// MaxBody applies to the decompressed body: a small body that inflates
// past it (a decompression bomb) is answered with 413 once it does, without
// inflating the rest; one that inflates to the limit exactly is served.
func TestGzipBomb(t *testing.T) {
	srv := demo.NewServer()
	h := &fasthttprpc.Handler{Server: srv}
	// 64 MiB of spaces after a request: a 65 KiB body, 16 times MaxBody
	// once inflated.
	const inflated = 64 << 20
	bomb := testutil.Gzip(t, demo.Requests[0]+strings.Repeat(" ", inflated))
	for _, mode := range bodyModes {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		before := ms.TotalAlloc
		counter := new(countingReader)
		ctx := serveCtx(h, mode, bomb, "gzip", "", counter)
		runtime.ReadMemStats(&ms)
		if code := ctx.Response.StatusCode(); code != fasthttp.StatusRequestEntityTooLarge {
			t.Errorf("%s: %d %s, want 413", mode, code, ctx.Response.Body())
		}
		// The body inflated up to the limit: its buffer, grown by append
		// to 4 MiB, is about 20 MiB in all; inflating it whole would take
		// 64 MiB at least.
		if n := ms.TotalAlloc - before; n > inflated/2 {
			t.Errorf("%s: %d bytes allocated, want the inflating to stop near the limit", mode, n)
		}
		if mode != inMemory {
			if counter.n > len(bomb)/4 {
				t.Errorf("%s: read %d of the %d compressed bytes, want the reading to stop near the limit", mode, counter.n, len(bomb))
			}
			if !ctx.Response.ConnectionClose() {
				t.Errorf("%s: connection kept after a 413 with the body unread", mode)
			}
		}
	}

	// At the limit exactly and one byte past it.
	req := demo.Requests[0]
	want := srv.ProcessString(context.Background(), req)
	const limit = 1000
	small := &fasthttprpc.Handler{Server: srv, MaxBody: limit}
	at := req + strings.Repeat(" ", limit-len(req))
	for _, mode := range bodyModes {
		if ctx := serveCtx(small, mode, testutil.Gzip(t, at), "gzip", "", nil); ctx.Response.StatusCode() != 200 || string(ctx.Response.Body()) != want {
			t.Errorf("%s, inflating to the limit: %d %s, want 200 %s", mode, ctx.Response.StatusCode(), ctx.Response.Body(), want)
		}
		if ctx := serveCtx(small, mode, testutil.Gzip(t, at+" "), "gzip", "", nil); ctx.Response.StatusCode() != fasthttp.StatusRequestEntityTooLarge {
			t.Errorf("%s, inflating to one byte past the limit: %d %s, want 413", mode, ctx.Response.StatusCode(), ctx.Response.Body())
		}
	}

	// A streamed body is bounded as sent too: empty gzip members, which
	// inflate to nothing, before the request.
	var padded []byte
	for len(padded) <= limit {
		padded = append(padded, testutil.Gzip(t, "")...)
	}
	padded = append(padded, testutil.Gzip(t, req)...)
	for _, mode := range bodyModes {
		want, wantCode := "", fasthttp.StatusRequestEntityTooLarge
		if mode == inMemory { // fasthttp's MaxRequestBodySize bounds it
			want, wantCode = srv.ProcessString(context.Background(), req), 200
		}
		ctx := serveCtx(small, mode, padded, "gzip", "", nil)
		if code := ctx.Response.StatusCode(); code != wantCode || code == 200 && string(ctx.Response.Body()) != want {
			t.Errorf("%s, %d bytes sent that inflate to %d: %d %s, want %d", mode, len(padded), len(req), code, ctx.Response.Body(), wantCode)
		}
	}
}

// Codings the handler does not decode, gzip with RefuseGzip, and broken
// gzip are refused.
func TestGzipRefused(t *testing.T) {
	srv := demo.NewServer()
	z := testutil.Gzip(t, demo.Requests[0])
	for _, c := range []struct {
		name   string
		h      *fasthttprpc.Handler
		body   []byte
		coding string
		status int
		accept string
	}{
		{"br", &fasthttprpc.Handler{Server: srv}, z, "br", fasthttp.StatusUnsupportedMediaType, "gzip, identity"},
		{"gzip twice", &fasthttprpc.Handler{Server: srv}, z, "gzip, gzip", fasthttp.StatusUnsupportedMediaType, "gzip, identity"},
		{"RefuseGzip", &fasthttprpc.Handler{Server: srv, RefuseGzip: true}, z, "gzip", fasthttp.StatusUnsupportedMediaType, "identity"},
		{"not gzip", &fasthttprpc.Handler{Server: srv}, []byte(demo.Requests[0]), "gzip", fasthttp.StatusBadRequest, ""},
		{"truncated", &fasthttprpc.Handler{Server: srv}, z[:len(z)-6], "gzip", fasthttp.StatusBadRequest, ""},
		{"empty", &fasthttprpc.Handler{Server: srv}, nil, "gzip", fasthttp.StatusBadRequest, ""},
	} {
		for _, mode := range bodyModes {
			ctx := serveCtx(c.h, mode, c.body, c.coding, "", nil)
			code, accept := ctx.Response.StatusCode(), string(ctx.Response.Header.Peek("Accept-Encoding"))
			if code != c.status || accept != c.accept {
				t.Errorf("%s, %s: %d, Accept-Encoding %q (%s); want %d, %q", c.name, mode, code, accept, ctx.Response.Body(), c.status, c.accept)
			}
			if mode != inMemory && len(c.body) > 0 && !ctx.Response.ConnectionClose() {
				t.Errorf("%s, %s: connection kept with the body unread", c.name, mode)
			}
		}
	}
	// RefuseGzip leaves plain bodies alone.
	h := &fasthttprpc.Handler{Server: srv, RefuseGzip: true}
	for _, mode := range bodyModes {
		if ctx := serveCtx(h, mode, []byte(demo.Requests[0]), "", "", nil); ctx.Response.StatusCode() != 200 {
			t.Errorf("%s, plain body with RefuseGzip: %d %s", mode, ctx.Response.StatusCode(), ctx.Response.Body())
		}
	}
}

// Answers of CompressMin bytes and more are compressed for clients that
// accept gzip; smaller ones, ones that compression would make larger, and
// every answer to a client that does not accept gzip, are not.
func TestGzipResponse(t *testing.T) {
	leaktest.CheckIgnoring(t, fasthttpBackground...)
	srv := demo.NewServer()
	echo := func(n int) string {
		return `{"jsonrpc":"2.0","method":"StringMe","params":["` + strings.Repeat("ab", n/2) + `"],"id":1}`
	}
	large, small := echo(4000), echo(1000) // answers of about 4 KB and 1 KB
	tiny := `{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`
	for _, c := range []struct {
		name   string
		h      *fasthttprpc.Handler
		req    string
		accept string
		gz     bool
	}{
		{"large", &fasthttprpc.Handler{Server: srv}, large, "gzip", true},
		{"large, deflate and gzip", &fasthttprpc.Handler{Server: srv}, large, "deflate, gzip;q=0.5", true},
		{"large, x-gzip", &fasthttprpc.Handler{Server: srv}, large, "x-gzip", true},
		{"large, no Accept-Encoding", &fasthttprpc.Handler{Server: srv}, large, "", false},
		{"large, gzip;q=0", &fasthttprpc.Handler{Server: srv}, large, "gzip;q=0", false},
		{"large, gzip; q=0.000", &fasthttprpc.Handler{Server: srv}, large, "br, gzip; q=0.000", false},
		{"large, identity", &fasthttprpc.Handler{Server: srv}, large, "identity", false},
		{"small", &fasthttprpc.Handler{Server: srv}, small, "gzip", false},
		{"small, CompressMin 500", &fasthttprpc.Handler{Server: srv, CompressMin: 500}, small, "gzip", true},
		{"large, CompressMin -1", &fasthttprpc.Handler{Server: srv, CompressMin: -1}, large, "gzip", false},
		{"tiny, CompressMin 1", &fasthttprpc.Handler{Server: srv, CompressMin: 1}, tiny, "gzip", false}, // gzip would make it larger
	} {
		want := srv.ProcessString(context.Background(), c.req)
		ctx := serveCtx(c.h, inMemory, []byte(c.req), "", c.accept, nil)
		body := ctx.Response.Body()
		ce := string(ctx.Response.Header.ContentEncoding())
		if gz := ce == "gzip"; gz != c.gz {
			t.Errorf("%s: compressed %v, want %v (Content-Encoding %q)", c.name, gz, c.gz, ce)
			continue
		}
		if c.gz {
			if v := string(ctx.Response.Header.Peek("Vary")); v != "Accept-Encoding" {
				t.Errorf("%s: Vary %q", c.name, v)
			}
			body = []byte(gunzip(t, body))
		}
		if code := ctx.Response.StatusCode(); code != 200 || string(body) != want {
			t.Errorf("%s: %d %.60s, want 200 %.60s", c.name, code, body, want)
		}
	}

	// Over the network, Go's client asks for gzip and decompresses.
	url := serve(t, (&fasthttprpc.Handler{Server: srv}).ServeFastHTTP)
	resp, err := http.Post(url, "application/json", strings.NewReader(large))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !resp.Uncompressed || string(b) != srv.ProcessString(context.Background(), large) {
		t.Errorf("over the network: uncompressed by the client %v, body %.60s", resp.Uncompressed, b)
	}
	// And a small answer comes as it is.
	resp, err = http.Post(url, "application/json", strings.NewReader(small))
	if err != nil {
		t.Fatal(err)
	}
	b, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.Uncompressed || string(b) != srv.ProcessString(context.Background(), small) {
		t.Errorf("over the network, small: uncompressed by the client %v, body %.60s", resp.Uncompressed, b)
	}
}
