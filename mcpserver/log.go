package mcpserver

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/jsonrpc-go/jsonrpc/peer"
)

// A Level is the severity of a log message (notifications/message), as
// MCP names them after syslog.
type Level string

// The levels, least severe first.
const (
	LevelDebug     Level = "debug"
	LevelInfo      Level = "info"
	LevelNotice    Level = "notice"
	LevelWarning   Level = "warning"
	LevelError     Level = "error"
	LevelCritical  Level = "critical"
	LevelAlert     Level = "alert"
	LevelEmergency Level = "emergency"
)

var levels = []Level{LevelDebug, LevelInfo, LevelNotice, LevelWarning, LevelError, LevelCritical, LevelAlert, LevelEmergency}

// severity returns the rank of l, -1 for no level.
func (l Level) severity() int { return slices.Index(levels, l) }

// errNoCall is Log's error outside a call of a Server's.
var errNoCall = errors.New("mcpserver: Log outside a call of a Server's")

type logParams struct {
	Level  Level  `json:"level"`
	Logger string `json:"logger,omitempty"`
	Data   any    `json:"data"`
}

// Log sends the client of the call of ctx a log message
// (notifications/message) at level, with data (any value that encodes to
// JSON: a string, an object), from the logger named after the server,
// unless the client asked for more severe messages alone: a session with
// logging/setLevel (every message goes by default), a stateless request
// of 2026-07-28 with its _meta io.modelcontextprotocol/logLevel (without
// which it gets none). Over Streamable HTTP the message goes on the
// call's stream, before its answer. It returns the error of the sending.
func Log(ctx context.Context, level Level, data any) error {
	r := RequestOf(ctx)
	c := peer.FromContext(ctx)
	if r == nil || c == nil {
		return errNoCall
	}
	if r.Stateless && (r.logLevel < 0 || level.severity() < r.logLevel) {
		return nil
	}
	if !r.Stateless {
		if ss := r.srv.sessionOf(ctx, false); ss != nil {
			ss.mu.Lock()
			least := ss.logLevel
			ss.mu.Unlock()
			if level.severity() < least {
				return nil
			}
		}
	}
	return c.Notify(ctx, "notifications/message", logParams{Level: level, Logger: r.srv.info.Name, Data: data})
}

// setLevel is logging/setLevel (before 2026-07-28).
func (s *Server) setLevel(ctx context.Context, p struct {
	Level *Level `json:"level"`
}) (emptyResult, error) {
	if p.Level == nil || p.Level.severity() < 0 {
		names := make([]string, len(levels))
		for i, l := range levels {
			names[i] = string(l)
		}
		return emptyResult{}, invalidParams("logging/setLevel: level must be one of %s", strings.Join(names, ", "))
	}
	ss := s.sessionOf(ctx, true)
	ss.mu.Lock()
	ss.logLevel = p.Level.severity()
	ss.mu.Unlock()
	return emptyResult{}, nil
}
