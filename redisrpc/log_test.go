package redisrpc_test

import (
	"context"
	"log/slog"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jsonrpc-go/jsonrpc/redisrpc"
	"github.com/redis/go-redis/v9"
)

// countHandler counts the records it is given.
type countHandler struct{ n *atomic.Int64 }

func (h countHandler) Enabled(context.Context, slog.Level) bool  { return true }
func (h countHandler) Handle(context.Context, slog.Record) error { h.n.Add(1); return nil }
func (h countHandler) WithAttrs([]slog.Attr) slog.Handler        { return h }
func (h countHandler) WithGroup(string) slog.Handler             { return h }

// TestClientLogBounded: with SetLogger, what the Redis client logs of a
// Redis that is down (each failed dial) goes to the logger given, within
// ratelog's bounds: 30 calls that each fail to dial log at most 10
// records. Before, each went to the standard error, past the bounded log.
func TestClientLogBounded(t *testing.T) {
	var n atomic.Int64
	redisrpc.SetLogger(slog.New(countHandler{&n}))
	t.Cleanup(func() { redisrpc.SetLogger(nil) })
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens: every dial fails
	c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, DialTimeout: 100 * time.Millisecond, DialerRetries: 1, DialerRetryTimeout: time.Millisecond})
	defer c.Close()
	for range 30 {
		if c.Ping(context.Background()).Err() == nil {
			t.Fatal("a Ping with nothing listening succeeded")
		}
	}
	if got := n.Load(); got == 0 || got > 10 {
		// Without the bounds, one record a failed dial.
		t.Errorf("30 failed dials logged %d records, want 1 to 10", got)
	}
}
