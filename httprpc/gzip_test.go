package httprpc_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/jsonrpc-go/jsonrpc/httprpc"
	"github.com/jsonrpc-go/jsonrpc/internal/demo"
	"github.com/jsonrpc-go/jsonrpc/internal/testutil"
)

// countingBody counts the bytes read from it.
type countingBody struct {
	r io.Reader
	n int
}

func (c *countingBody) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

func (c *countingBody) Close() error { return nil }

// serveGzip sends body with the Content-Encoding coding to h and returns
// the recorded answer; length is the request's ContentLength (-1 for a
// chunked body).
func serveGzip(h http.Handler, body io.Reader, length int64, coding string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(http.MethodPost, "/", body)
	r.Header.Set("Content-Type", "application/json")
	if coding != "" {
		r.Header.Set("Content-Encoding", coding)
	}
	r.ContentLength = length
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// A gzip body is decompressed, whether its length is known or not, and
// over the network from Go's client.
func TestGzipRequest(t *testing.T) {
	t.Parallel()
	srv := demo.NewServer()
	h := &httprpc.Handler{Server: srv}
	req := demo.Batch
	want := srv.ProcessString(context.Background(), req)
	z := testutil.Gzip(t, req)
	for _, coding := range []string{"gzip", "x-gzip", "GZIP", "identity, gzip"} {
		for _, length := range []int64{int64(len(z)), -1} {
			w := serveGzip(h, bytes.NewReader(z), length, coding)
			if w.Code != http.StatusOK || w.Body.String() != want {
				t.Errorf("%s, length %d: %d %s, want 200 %s", coding, length, w.Code, w.Body, want)
			}
		}
	}
	ts := httptest.NewServer(h)
	defer ts.Close()
	hr := httpNewPost(t, ts.URL, "application/json", "")
	hr.Body, hr.ContentLength = io.NopCloser(bytes.NewReader(z)), int64(len(z))
	hr.Header.Set("Content-Encoding", "gzip")
	httpCheckRPC(t, "over the network", httpDo(t, httpClientOf(ts), hr), want)
}

// MaxBody applies to the decompressed body: a small body that inflates
// past it (a decompression bomb) is answered with 413 once it does, without
// inflating the rest; one that inflates to the limit exactly is served.
func TestGzipBomb(t *testing.T) {
	t.Parallel()
	srv := demo.NewServer()
	h := &httprpc.Handler{Server: srv}
	// 64 MiB of spaces after a request: a 65 KiB body.
	bomb := testutil.Gzip(t, demo.Requests[0]+strings.Repeat(" ", 64<<20))
	for _, length := range []int64{int64(len(bomb)), -1} {
		body := &countingBody{r: bytes.NewReader(bomb)}
		w := serveGzip(h, body, length, "gzip")
		if w.Code != http.StatusRequestEntityTooLarge {
			t.Errorf("length %d: %d %s, want 413", length, w.Code, w.Body)
		}
		if body.n > len(bomb)/4 {
			t.Errorf("length %d: read %d of the %d compressed bytes, want the reading to stop near the limit", length, body.n, len(bomb))
		}
	}

	// At the limit exactly and one byte past it.
	req := demo.Requests[0]
	want := srv.ProcessString(context.Background(), req)
	limit := int64(1000)
	small := &httprpc.Handler{Server: srv, MaxBody: limit}
	at := req + strings.Repeat(" ", int(limit)-len(req))
	if w := serveGzip(small, bytes.NewReader(testutil.Gzip(t, at)), -1, "gzip"); w.Code != http.StatusOK || w.Body.String() != want {
		t.Errorf("inflating to the limit: %d %s, want 200 %s", w.Code, w.Body, want)
	}
	if w := serveGzip(small, bytes.NewReader(testutil.Gzip(t, at+" ")), -1, "gzip"); w.Code != http.StatusRequestEntityTooLarge {
		t.Errorf("inflating to one byte past the limit: %d %s, want 413", w.Code, w.Body)
	}
}

// Codings the handler does not decode, gzip with RefuseGzip, and broken
// gzip are refused.
func TestGzipRefused(t *testing.T) {
	t.Parallel()
	srv := demo.NewServer()
	z := testutil.Gzip(t, demo.Requests[0])
	for _, c := range []struct {
		name   string
		h      *httprpc.Handler
		body   []byte
		coding string
		status int
		accept string
	}{
		{"br", &httprpc.Handler{Server: srv}, z, "br", http.StatusUnsupportedMediaType, "gzip, identity"},
		{"gzip twice", &httprpc.Handler{Server: srv}, z, "gzip, gzip", http.StatusUnsupportedMediaType, "gzip, identity"},
		{"RefuseGzip", &httprpc.Handler{Server: srv, RefuseGzip: true}, z, "gzip", http.StatusUnsupportedMediaType, "identity"},
		{"not gzip", &httprpc.Handler{Server: srv}, []byte(demo.Requests[0]), "gzip", http.StatusBadRequest, ""},
		{"truncated", &httprpc.Handler{Server: srv}, z[:len(z)-6], "gzip", http.StatusBadRequest, ""},
	} {
		w := serveGzip(c.h, bytes.NewReader(c.body), int64(len(c.body)), c.coding)
		if w.Code != c.status || w.Header().Get("Accept-Encoding") != c.accept {
			t.Errorf("%s: %d, Accept-Encoding %q (%s); want %d, %q", c.name, w.Code, w.Header().Get("Accept-Encoding"), w.Body, c.status, c.accept)
		}
	}
	// RefuseGzip leaves plain bodies alone.
	h := &httprpc.Handler{Server: srv, RefuseGzip: true}
	if w := serveGzip(h, strings.NewReader(demo.Requests[0]), int64(len(demo.Requests[0])), ""); w.Code != http.StatusOK {
		t.Errorf("plain body with RefuseGzip: %d %s", w.Code, w.Body)
	}
}

// Answers of CompressMin bytes and more are compressed for clients that
// accept gzip, with their compressed Content-Length; smaller ones, and
// every answer to a client that does not accept gzip, are not.
func TestGzipResponse(t *testing.T) {
	t.Parallel()
	srv := demo.NewServer()
	echo := func(n int) string {
		return `{"jsonrpc":"2.0","method":"StringMe","params":["` + strings.Repeat("ab", n/2) + `"],"id":1}`
	}
	large, small := echo(4000), echo(1000) // answers of about 4 KB and 1 KB
	for _, c := range []struct {
		name   string
		h      *httprpc.Handler
		req    string
		accept string
		gz     bool
	}{
		{"large", &httprpc.Handler{Server: srv}, large, "gzip", true},
		{"large, deflate and gzip", &httprpc.Handler{Server: srv}, large, "deflate, gzip;q=0.5", true},
		{"large, x-gzip", &httprpc.Handler{Server: srv}, large, "x-gzip", true},
		{"large, no Accept-Encoding", &httprpc.Handler{Server: srv}, large, "", false},
		{"large, gzip;q=0", &httprpc.Handler{Server: srv}, large, "gzip;q=0", false},
		{"large, gzip; q=0.000", &httprpc.Handler{Server: srv}, large, "br, gzip; q=0.000", false},
		{"large, identity", &httprpc.Handler{Server: srv}, large, "identity", false},
		{"small", &httprpc.Handler{Server: srv}, small, "gzip", false},
		{"small, CompressMin 500", &httprpc.Handler{Server: srv, CompressMin: 500}, small, "gzip", true},
		{"large, CompressMin -1", &httprpc.Handler{Server: srv, CompressMin: -1}, large, "gzip", false},
	} {
		want := srv.ProcessString(context.Background(), c.req)
		r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(c.req))
		r.Header.Set("Content-Type", "application/json")
		if c.accept != "" {
			r.Header.Set("Accept-Encoding", c.accept)
		}
		w := httptest.NewRecorder()
		c.h.ServeHTTP(w, r)
		body := w.Body.Bytes()
		gz := w.Header().Get("Content-Encoding") == "gzip"
		if gz != c.gz {
			t.Errorf("%s: compressed %v, want %v (Content-Encoding %q)", c.name, gz, c.gz, w.Header().Get("Content-Encoding"))
			continue
		}
		if gz {
			if cl := w.Header().Get("Content-Length"); cl != strconv.Itoa(len(body)) {
				t.Errorf("%s: Content-Length %q for %d compressed bytes", c.name, cl, len(body))
			}
			if v := w.Header().Get("Vary"); v != "Accept-Encoding" {
				t.Errorf("%s: Vary %q", c.name, v)
			}
			zr, err := gzip.NewReader(bytes.NewReader(body))
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			if body, err = io.ReadAll(zr); err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
		}
		if w.Code != http.StatusOK || string(body) != want {
			t.Errorf("%s: %d %.60s, want 200 %.60s", c.name, w.Code, body, want)
		}
	}

	// Over the network, Go's client asks for gzip and decompresses.
	ts := httptest.NewServer(&httprpc.Handler{Server: srv})
	defer ts.Close()
	resp, err := http.Post(ts.URL, "application/json", strings.NewReader(large))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if !resp.Uncompressed || string(b) != srv.ProcessString(context.Background(), large) {
		t.Errorf("over the network: uncompressed by the client %v, body %.60s", resp.Uncompressed, b)
	}
}
