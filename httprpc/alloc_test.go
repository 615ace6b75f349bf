//go:build !race

package httprpc_test

import (
	"bytes"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/jsonrpc-go/jsonrpc/demo"
	"github.com/jsonrpc-go/jsonrpc/httprpc"
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

// rewindBody is a request body that can be read again.
type rewindBody struct {
	b []byte
	i int
}

func (r *rewindBody) Read(p []byte) (int, error) {
	if r.i >= len(r.b) {
		return 0, io.EOF
	}
	n := copy(p, r.b[r.i:])
	r.i += n
	return n, nil
}

func (r *rewindBody) Close() error { return nil }

// TestHandlerAllocs: the handler itself allocates one value per request,
// the context that carries the *http.Request to the methods; the answer's
// headers and buffers, and the body's read deadline, allocate nothing.
func TestHandlerAllocs(t *testing.T) {
	h := &httprpc.Handler{Server: demo.NewServer()}
	body := &rewindBody{b: []byte(`{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`)}
	req, err := http.NewRequest("POST", "/", body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.ContentLength = int64(len(body.b))
	w := &allocRW{h: http.Header{}}
	serve := func() {
		body.i = 0
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
