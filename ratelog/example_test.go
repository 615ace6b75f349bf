package ratelog_test

import (
	"log/slog"
	"os"
	"time"

	"github.com/jsonrpc-go/jsonrpc/ratelog"
)

// Two records of a kind in each minute; the third is dropped, and counted
// when the minute ends.
func ExampleNew() {
	text := slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.Attr{} // for the output below
			}
			return a
		},
	})
	logger := slog.New(ratelog.New(text, ratelog.Options{Burst: 2, Interval: time.Minute}))
	for i := range 3 {
		logger.Warn("parse error", "line", i)
	}
	logger.Info("other records have bounds of their own")
	// Output:
	// level=WARN msg="parse error" line=0
	// level=WARN msg="parse error" line=1
	// level=INFO msg="other records have bounds of their own"
}
