package ws

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"testing/synctest"
	"time"

	"github.com/jsonrpc-go/jsonrpc/internal/demo"
	"github.com/jsonrpc-go/jsonrpc/internal/ratelog"
	"github.com/jsonrpc-go/jsonrpc/internal/testutil"
)

// Clients that make the handler refuse a thousand upgrades make it log
// ratelog's burst of them and, at the interval's end, the count of the
// rest; every refusal is still answered. Before, each was a record.
func TestLogBounded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		logger, log := testutil.NewLog()
		h := &Handler{Server: demo.NewServer(), Logger: logger}
		if err := h.Shutdown(context.Background()); err != nil {
			t.Fatal(err)
		}
		const n = 1000
		for range n {
			w := httptest.NewRecorder()
			h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/ws", nil))
			if w.Code != http.StatusServiceUnavailable {
				t.Fatalf("an upgrade after Shutdown: %d, want 503", w.Code)
			}
		}
		if got := len(log.Find(t, "upgrade refused")); got != ratelog.DefaultBurst {
			t.Errorf("%d records for %d refusals, want %d", got, n, ratelog.DefaultBurst)
		}
		time.Sleep(ratelog.DefaultInterval)
		synctest.Wait()
		var counted bool
		for _, rec := range log.Find(t, ratelog.DroppedMessage) {
			if rec["message"] == "upgrade refused" {
				counted = true
				testutil.Want(t, rec, "WARN", map[string]any{"dropped": n - ratelog.DefaultBurst})
			}
		}
		if !counted {
			t.Errorf("no count of the refusals; the log:\n%s", log)
		}
	})
}
