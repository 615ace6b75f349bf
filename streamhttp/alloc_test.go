//go:build !race && !jsonrpc_noadapters

package streamhttp_test

import (
	"bytes"
	"net/http"
	"testing"
	"time"

	"github.com/jsonrpc-go/jsonrpc/internal/demo"
	"github.com/jsonrpc-go/jsonrpc/internal/testutil"
	"github.com/jsonrpc-go/jsonrpc/streamhttp"
)

// allocRW is a ResponseWriter that allocates nothing once warm, with the
// deadlines and Flush of net/http's writers.
type allocRW struct {
	h    http.Header
	body bytes.Buffer
}

func (w *allocRW) SetReadDeadline(time.Time) error  { return nil }
func (w *allocRW) SetWriteDeadline(time.Time) error { return nil }
func (w *allocRW) Flush()                           {}
func (w *allocRW) Header() http.Header              { return w.h }
func (w *allocRW) Write(b []byte) (int, error)      { return w.body.Write(b) }
func (w *allocRW) WriteHeader(int)                  {}

// TestPlainCallAllocs counts what the handler allocates for a call
// answered with JSON, beside net/http: the request's connection (the
// Conn, its context, its first record and answer buffer, the channel of
// its end, its reply function), the exchange and its channel, the
// request's cancellable context and the context carrying the
// *http.Request, and the body's buffer. The answer is written by the
// goroutine that ran the call: no writer goroutine, no ticker.
func TestPlainCallAllocs(t *testing.T) {
	h := &streamhttp.Handler{Server: demo.NewServer()}
	body := &testutil.RewindBody{B: []byte(`{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`)}
	req, err := http.NewRequest("POST", "/", body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
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
	const want = 14
	if allocs := testing.AllocsPerRun(200, serve); allocs > want {
		t.Errorf("%v allocations per request, want at most %d", allocs, want)
	}
}
