package redisrpc

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	"github.com/jsonrpc-go/jsonrpc/ratelog"
	"github.com/redis/go-redis/v9"
)

// SetLogger sends what the Redis client logs of its own (go-redis's log:
// dials that failed, the troubles of its connection pool) to l, each line
// a record "redis client" at slog.LevelWarn with the line as "detail",
// within the bounds with which the library's hosts log (package ratelog:
// at most 10 records in 10 seconds, then one of how many it dropped), so
// that a Redis that is down cannot fill a log; a nil l discards them.
// Without it go-redis writes every line to the standard error. go-redis
// has one log for the whole process (redis.SetLogger): SetLogger sets it
// for every client of the process.
func SetLogger(l *slog.Logger) {
	if l == nil {
		redis.SetLogger(clientLog{})
		return
	}
	redis.SetLogger(clientLog{slog.New(ratelog.New(l.Handler(), ratelog.Options{}))})
}

// clientLog is a slog.Logger as go-redis's log.
type clientLog struct{ l *slog.Logger }

func (c clientLog) Printf(ctx context.Context, format string, v ...any) {
	if c.l == nil || !c.l.Enabled(ctx, slog.LevelWarn) {
		return
	}
	line := strings.TrimPrefix(fmt.Sprintf(format, v...), "redis: ")
	c.l.LogAttrs(ctx, slog.LevelWarn, "redis client", slog.String("detail", line))
}
