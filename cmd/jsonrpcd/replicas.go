package main

import (
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/jsonrpc-go/jsonrpc/redisrpc"
	"github.com/jsonrpc-go/jsonrpc/streamhttp"
	"github.com/redis/go-redis/v9"
)

// checkReplicas checks -replica and -session-store.
func checkReplicas(cfg config) error {
	if (cfg.replica != "" || cfg.sessionStore != "") && cfg.sessionMethod == "" {
		return errors.New("-replica and -session-store need -sessions")
	}
	for _, c := range cfg.replica {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_') || len(cfg.replica) > 64 {
			return fmt.Errorf("-replica %q: want 1 to 64 letters, digits, '-' or '_'", cfg.replica)
		}
	}
	if cfg.sessionStore != "" {
		if _, err := redis.ParseURL(cfg.sessionStore); err != nil {
			return fmt.Errorf("-session-store: %w", err)
		}
	}
	return nil
}

// logRedis sends the Redis client's own log (its failed dials, say) to
// logger, within the bounds of the rest, when jsonrpcd uses Redis (a
// -session-store, a -broker).
func logRedis(cfg config, logger *slog.Logger) {
	if cfg.sessionStore != "" || strings.HasPrefix(cfg.brokerURL, "redis") {
		redisrpc.SetLogger(logger)
	}
}

// replicate gives sh the -replica and -session-store of cfg (checked by
// checkReplicas): one redisrpc.Store as its SessionStore and EventStore.
func replicate(sh *streamhttp.Handler, cfg config) {
	sh.Replica = cfg.replica
	if cfg.sessionStore == "" {
		return
	}
	opt, _ := redis.ParseURL(cfg.sessionStore)
	st := &redisrpc.Store{Client: redis.NewClient(opt)}
	sh.SessionStore, sh.EventStore = st, st
}
