package httprpc_test

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"testing/synctest"
	"time"

	"github.com/jsonrpc-go/jsonrpc/httprpc"
	"github.com/jsonrpc-go/jsonrpc/internal/demo"
	"github.com/jsonrpc-go/jsonrpc/internal/ratelog"
	"github.com/jsonrpc-go/jsonrpc/internal/testutil"
)

// A client that makes the handler refuse a thousand requests makes it log
// ratelog's burst of them and, at the interval's end, the count of the
// rest; every request is still answered. Before, each refusal was a
// record.
func TestLogBounded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		logger, log := testutil.NewLog()
		h := &httprpc.Handler{Server: demo.NewServer(), Logger: logger}
		const n = 1000
		for range n {
			w := httptest.NewRecorder()
			h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/", nil))
			if w.Code != http.StatusMethodNotAllowed {
				t.Fatalf("GET: %d, want 405", w.Code)
			}
		}
		if got := len(log.Find(t, "request refused")); got != ratelog.DefaultBurst {
			t.Errorf("%d records for %d refusals, want %d", got, n, ratelog.DefaultBurst)
		}
		time.Sleep(ratelog.DefaultInterval)
		synctest.Wait()
		counts := log.Find(t, ratelog.DroppedMessage)
		if len(counts) != 1 {
			t.Fatalf("%d counts, want 1; the log:\n%s", len(counts), log)
		}
		testutil.Want(t, counts[0], "WARN", map[string]any{"message": "request refused", "dropped": n - ratelog.DefaultBurst})
	})
}
