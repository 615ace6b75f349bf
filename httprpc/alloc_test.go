//go:build !race && !jsonrpc_noadapters

// The calls of the demo's calculator allocate through reflection without the
// generated adapters (the build tag jsonrpc_noadapters): these tests count the
// transport's allocations on top of adapted calls.

package httprpc_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/jsonrpc-go/jsonrpc/httprpc"
	"github.com/jsonrpc-go/jsonrpc/internal/demo"
	"github.com/jsonrpc-go/jsonrpc/internal/testutil"
)

// allocRW is a ResponseWriter that allocates nothing once warm. It has a
// read deadline, as net/http's writers have.
type allocRW struct {
	h         http.Header
	body      bytes.Buffer
	deadlines int
}

func (w *allocRW) SetReadDeadline(time.Time) error { w.deadlines++; return nil }

func (w *allocRW) Header() http.Header         { return w.h }
func (w *allocRW) Write(b []byte) (int, error) { return w.body.Write(b) }
func (w *allocRW) WriteHeader(int)             {}

// TestHandlerAllocs: the handler itself allocates one value per request,
// the context that carries the *http.Request to the methods; the answer's
// headers and buffers, and the body's read deadline, allocate nothing.
func TestHandlerAllocs(t *testing.T) {
	h := &httprpc.Handler{Server: demo.NewServer()}
	body := &testutil.RewindBody{B: []byte(`{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`)}
	req, err := http.NewRequest("POST", "/", body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.ContentLength = int64(len(body.B))
	w := &allocRW{h: http.Header{}}
	serve := func() {
		body.I = 0
		clear(w.h)
		w.body.Reset()
		h.ServeHTTP(w, req)
	}
	serve()
	if got, want := w.body.String(), `{"jsonrpc":"2.0","result":3,"id":1}`; got != want {
		t.Fatalf("answer %s, want %s", got, want)
	}
	if got := w.h.Get("Content-Type"); got != "application/json" {
		t.Errorf("Content-Type %q", got)
	}
	if w.deadlines != 2 {
		t.Errorf("%d read deadlines set, want 2 (set and cleared)", w.deadlines)
	}
	if allocs := testing.AllocsPerRun(200, serve); allocs != 1 {
		t.Errorf("%v allocations per request, want 1", allocs)
	}
}

// TestTokenAllocs: a request whose bearer token Tokens verifies allocates
// what one of a handler without Tokens does (the context, which carries
// the Principal too, and the call's context of a method that takes one),
// when the verifier allocates nothing itself (a cached Principal).
func TestTokenAllocs(t *testing.T) {
	count := func(h *httprpc.Handler, want string) float64 {
		body := &testutil.RewindBody{B: []byte(whoamiReq)}
		req, err := http.NewRequest("POST", "/", body)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer good")
		req.ContentLength = int64(len(body.B))
		w := &allocRW{h: http.Header{}}
		serve := func() {
			body.I = 0
			clear(w.h)
			w.body.Reset()
			h.ServeHTTP(w, req)
		}
		serve()
		if got := w.body.String(); got != want {
			t.Fatalf("answer %s, want %s", got, want)
		}
		return testing.AllocsPerRun(200, serve)
	}
	srv := testutil.WhoamiServer()
	anonymous := count(&httprpc.Handler{Server: srv}, `{"jsonrpc":"2.0","result":"","id":1}`)
	withToken := count(&httprpc.Handler{Server: srv, Tokens: tokens}, `{"jsonrpc":"2.0","result":"bob","id":1}`)
	if anonymous != 2 || withToken != anonymous {
		t.Errorf("%v allocations per request with a token, %v without Tokens; want 2 each", withToken, anonymous)
	}
}

// TestGzipAllocs: a gzip request and a compressed answer allocate what an
// uncompressed one of the same size does (the context, the answer's room
// past the pooled buffer, its Content-Length) and nothing more: the gzip
// reader and writer and their buffers are pooled.
func TestGzipAllocs(t *testing.T) {
	h := &httprpc.Handler{Server: demo.NewServer()}
	req := `{"jsonrpc":"2.0","method":"StringMe","params":["` + strings.Repeat("ab", 2000) + `"],"id":1}`
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write([]byte(req))
	zw.Close()
	body := &testutil.RewindBody{B: z.Bytes()}
	r, err := http.NewRequest("POST", "/", body)
	if err != nil {
		t.Fatal(err)
	}
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Content-Encoding", "gzip")
	r.Header.Set("Accept-Encoding", "gzip")
	r.ContentLength = int64(len(body.B))
	w := &allocRW{h: http.Header{}}
	serve := func() {
		body.I = 0
		clear(w.h)
		w.body.Reset()
		h.ServeHTTP(w, r)
	}
	serve()
	if w.h.Get("Content-Encoding") != "gzip" {
		t.Fatalf("answer not compressed: %v", w.h)
	}
	zr, err := gzip.NewReader(&w.body)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := io.ReadAll(zr); !strings.Contains(string(got), `"result":"abab`) {
		t.Fatalf("answer %.60s", got)
	}
	if allocs := testing.AllocsPerRun(200, serve); allocs != 3 {
		t.Errorf("%v allocations per request, want 3", allocs)
	}
}
