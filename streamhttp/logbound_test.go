package streamhttp_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/jsonrpc-go/jsonrpc/internal/demo"
	"github.com/jsonrpc-go/jsonrpc/internal/ratelog"
	"github.com/jsonrpc-go/jsonrpc/internal/testutil"
	"github.com/jsonrpc-go/jsonrpc/streamhttp"
	"github.com/jsonrpc-go/jsonrpc/transport"
)

// A client that makes the handler refuse a thousand requests of each of
// two kinds (a method other than POST, a body over MaxMessage) makes it
// log ratelog's burst of them and, at the interval's end, the count of the
// rest; every request is still answered. Before, each refusal was a
// record.
func TestLogBounded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		logger, log := testutil.NewLog()
		h := &streamhttp.Handler{Server: demo.NewServer(), Logger: logger, Limits: transport.Limits{MaxMessage: 64}}
		defer h.Close()
		const n = 1000
		big := `{"jsonrpc":"2.0","method":"echo","params":["` + strings.Repeat("x", 100) + `"],"id":1}`
		for range n {
			w := httptest.NewRecorder()
			h.ServeHTTP(w, httptest.NewRequest(http.MethodPut, "/mcp", nil))
			if w.Code != http.StatusMethodNotAllowed {
				t.Fatalf("PUT: %d, want 405", w.Code)
			}
			r := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(big))
			r.Header.Set("Content-Type", "application/json")
			w = httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if w.Code != http.StatusRequestEntityTooLarge {
				t.Fatalf("a body over MaxMessage: %d, want 413", w.Code)
			}
		}
		if got := len(log.Find(t, "request refused")); got != ratelog.DefaultBurst {
			t.Errorf("%d records for %d refusals, want %d", got, 2*n, ratelog.DefaultBurst)
		}
		time.Sleep(ratelog.DefaultInterval)
		synctest.Wait()
		counts := log.Find(t, ratelog.DroppedMessage)
		if len(counts) != 1 {
			t.Fatalf("%d counts, want 1; the log:\n%s", len(counts), log)
		}
		testutil.Want(t, counts[0], "WARN", map[string]any{"message": "request refused", "dropped": 2*n - ratelog.DefaultBurst})
	})
}
