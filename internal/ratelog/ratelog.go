// Package ratelog bounds what a log/slog handler writes, whatever a peer
// sends: a Handler lets through at most Burst records of one kind (a level
// and a message) in each Interval, drops the rest, and at the end of the
// interval writes one record of how many it dropped. The root package and
// the hosts wrap the loggers they are given with it (Wrap), so that input
// that each time makes the server log a warning cannot make the log grow
// faster than a bound; package ratelog of the module exports it to
// programs.
package ratelog

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// Defaults of Options.
const (
	DefaultBurst    = 10
	DefaultInterval = 10 * time.Second
	DefaultMaxKeys  = 100
)

// Options are the bounds of a Handler. The zero value of each field gives
// its default.
type Options struct {
	// Burst is the number of records of one key (a level and a message)
	// let through in each Interval; DefaultBurst (10) when <= 0.
	Burst int
	// Interval is the length of the windows in which Burst records of a
	// key are let through; DefaultInterval (10 s) when <= 0.
	Interval time.Duration
	// MaxKeys bounds the keys followed at once; DefaultMaxKeys (100) when
	// <= 0. Past it, the records of a new key share one key of their
	// level, so that messages that vary (a text that names an address)
	// are bounded together. A key is forgotten once its window has ended
	// with nothing dropped.
	MaxKeys int
}

// DroppedMessage is the message of the record that counts what a Handler
// dropped, with the attributes "message" (the records' message; "" for
// records of keys past MaxKeys), "dropped" (how many) and "interval".
const DroppedMessage = "log records dropped"

// A Handler is a slog.Handler that bounds the records it passes to the
// handler it wraps (see the package doc). The handlers that WithAttrs and
// WithGroup return share its bounds. The records of the dropped counts are
// written by the wrapped handler as New got it, without the attributes and
// groups added since, at the level of the records they count, by a timer
// at the end of the interval; counts still waiting when the program exits
// are lost. It is safe for concurrent use by multiple goroutines.
type Handler struct {
	h slog.Handler // the wrapped handler, with this one's attributes and groups
	s *state
}

var _ slog.Handler = (*Handler)(nil)

// New returns a Handler that bounds what h writes.
func New(h slog.Handler, o Options) *Handler {
	if o.Burst <= 0 {
		o.Burst = DefaultBurst
	}
	if o.Interval <= 0 {
		o.Interval = DefaultInterval
	}
	if o.MaxKeys <= 0 {
		o.MaxKeys = DefaultMaxKeys
	}
	return &Handler{h: h, s: &state{base: h, opt: o, keys: map[key]*window{}}}
}

// Wrap returns l with its handler wrapped by New with the default
// Options, or l itself when it is nil or its handler is a Handler already
// (so that loggers derived from one share its bounds, and a program's own
// Options are kept).
func Wrap(l *slog.Logger) *slog.Logger {
	if l == nil {
		return nil
	}
	if _, ok := l.Handler().(*Handler); ok {
		return l
	}
	return slog.New(New(l.Handler(), Options{}))
}

// Enabled reports whether the wrapped handler handles records of level.
func (h *Handler) Enabled(ctx context.Context, level slog.Level) bool {
	return h.h.Enabled(ctx, level)
}

// Handle passes r to the wrapped handler, unless its key has had Burst
// records in this interval; then it counts r as dropped.
func (h *Handler) Handle(ctx context.Context, r slog.Record) error {
	if !h.s.allow(r.Level, r.Message) {
		return nil
	}
	return h.h.Handle(ctx, r)
}

// WithAttrs returns a Handler, of the same bounds, whose wrapped handler
// has the attributes.
func (h *Handler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &Handler{h: h.h.WithAttrs(attrs), s: h.s}
}

// WithGroup returns a Handler, of the same bounds, whose wrapped handler
// has the group.
func (h *Handler) WithGroup(name string) slog.Handler {
	return &Handler{h: h.h.WithGroup(name), s: h.s}
}

// state is what the handlers of one New share.
type state struct {
	base slog.Handler // New's handler: the dropped counts are written there
	opt  Options

	mu   sync.Mutex // protects keys and the windows in it
	keys map[key]*window
}

// A key is a kind of record: the records let through are counted by it.
type key struct {
	level slog.Level
	msg   string
	other bool // the key of the records of keys past MaxKeys, by level
}

// A window counts a key's records in its current interval.
type window struct {
	start   time.Time
	n       int         // records let through since start
	dropped int         // records dropped since start
	flush   *time.Timer // set while dropped records wait to be counted
}

// allow reports whether a record of the level and message may be written,
// counting it.
func (s *state) allow(level slog.Level, msg string) bool {
	now := time.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	k := key{level: level, msg: msg}
	w := s.keys[k]
	if w == nil {
		if len(s.keys) >= s.opt.MaxKeys {
			s.forget(now)
		}
		if len(s.keys) >= s.opt.MaxKeys {
			k = key{level: level, other: true}
			w = s.keys[k]
		}
		if w == nil {
			w = &window{start: now}
			s.keys[k] = w
		}
	}
	if w.flush == nil && now.Sub(w.start) >= s.opt.Interval {
		w.start, w.n = now, 0 // a new window
	}
	if w.n < s.opt.Burst {
		w.n++
		return true
	}
	w.dropped++
	if w.flush == nil {
		w.flush = time.AfterFunc(w.start.Add(s.opt.Interval).Sub(now), func() { s.count(k) })
	}
	return false
}

// forget removes the keys whose window has ended with nothing to count:
// the next record of such a key starts a window anyway.
func (s *state) forget(now time.Time) {
	for k, w := range s.keys {
		if w.flush == nil && now.Sub(w.start) >= s.opt.Interval {
			delete(s.keys, k)
		}
	}
}

// count writes the record of what k's window dropped, at the window's end,
// and starts k's next window.
func (s *state) count(k key) {
	now := time.Now()
	s.mu.Lock()
	w := s.keys[k]
	n := w.dropped
	w.dropped, w.flush = 0, nil
	w.start, w.n = now, 0
	s.mu.Unlock()
	ctx := context.Background()
	if !s.base.Enabled(ctx, k.level) {
		return
	}
	r := slog.NewRecord(now, k.level, DroppedMessage, 0)
	r.AddAttrs(slog.String("message", k.msg), slog.Int("dropped", n), slog.Duration("interval", s.opt.Interval))
	s.base.Handle(ctx, r)
}
