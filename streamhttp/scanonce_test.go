package streamhttp_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/internal/wire"
	"github.com/jsonrpc-go/jsonrpc/streamhttp"
	"github.com/jsonrpc-go/jsonrpc/transport"
)

// counting is middleware between the host and the server that counts the
// requests it passes on, and keeps the host's scan (a RequestHandler).
type counting struct {
	next  transport.Handler
	calls atomic.Int64
}

func (c *counting) ProcessAsync(ctx context.Context, dst, req []byte, reply func([]byte)) {
	c.calls.Add(1)
	c.next.ProcessAsync(ctx, dst, req, reply)
}

func (c *counting) ProcessRequest(ctx context.Context, dst []byte, r *jsonrpc.Request, reply func([]byte)) {
	c.calls.Add(1)
	transport.ProcessRequestOf(ctx, c.next, dst, r, reply)
}

// TestPostScannedOnce: a request POSTed to the Streamable HTTP host is
// scanned once, by the host that routes it: the Conn that runs it and the
// server behind, bare or wrapped in middleware and a session router, take
// that scan as it is. The scanner counts its calls (wire.CountScans).
func TestPostScannedOnce(t *testing.T) {
	srv := jsonrpc.NewServer()
	srv.MustRegister("add", func(a, b int) int { return a + b })
	mw := &counting{next: srv}
	for _, tc := range []struct {
		name string
		h    transport.Handler
	}{
		{"server", srv},
		{"middleware", mw},
		{"router and middleware", transport.SessionRouter(mw, &jsonrpc.Sessions{}, "")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts := httptest.NewServer(&streamhttp.Handler{Server: tc.h})
			defer ts.Close()
			post := func() string {
				req, _ := http.NewRequest("POST", ts.URL, strings.NewReader(`{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				resp, err := ts.Client().Do(req)
				if err != nil {
					t.Fatal(err)
				}
				defer resp.Body.Close()
				var b strings.Builder
				buf := make([]byte, 512)
				for {
					n, err := resp.Body.Read(buf)
					b.Write(buf[:n])
					if err != nil {
						break
					}
				}
				return b.String()
			}
			post() // the first request of the handler makes what it keeps
			var scans atomic.Int64
			wire.CountScans(&scans)
			defer wire.CountScans(nil)
			before := mw.calls.Load()
			if got, want := post(), `{"jsonrpc":"2.0","result":3,"id":1}`; got != want {
				t.Fatalf("answered %s, want %s", got, want)
			}
			if n := scans.Load(); n != 1 {
				t.Errorf("the request was scanned %d times, want once", n)
			}
			if tc.h != srv && mw.calls.Load() != before+1 {
				t.Errorf("the middleware saw %d requests, want 1", mw.calls.Load()-before)
			}
		})
	}
}
