// Package ratelog bounds what a log/slog handler writes, so that no input
// can make a log larger than a bound. A Handler made by New lets through at
// most Burst records of one kind, a level and a message, in each Interval,
// drops the rest, and at the end of the interval writes one record of how
// many it dropped:
//
//	level=WARN msg="log records dropped" message="parse error" dropped=41203 interval=10s
//
// The servers and hosts of this module log through such a handler: a
// *slog.Logger given to jsonrpc.UseLogger or to the Logger field of
// stream.Server, ws.Handler, httprpc.Handler or fasthttprpc.Handler is
// wrapped with the default Options, unless its handler was made by New,
// which they use as it is (with its Options, and its bounds shared by all
// who use it):
//
//	logger := slog.New(ratelog.New(slog.NewTextHandler(os.Stderr, nil), ratelog.Options{Burst: 100, Interval: time.Minute}))
//	srv := jsonrpc.NewServer(jsonrpc.UseLogger(logger))
//	s := &stream.Server{Server: srv, Logger: logger.With("transport", "tcp")}
//
// Without it, 2 MB of lines that are not JSON, sent over TCP, made a
// server with a logger write a million warnings, 100 MB; with it, a kind
// of record costs at most Burst+1 records each Interval, and a log grows
// by at most (MaxKeys+1) × (Burst+1) records each Interval, whatever the
// peers send.
package ratelog

import (
	"log/slog"
	"time"

	"github.com/jsonrpc-go/jsonrpc/internal/ratelog"
)

// Defaults of Options.
const (
	DefaultBurst    = ratelog.DefaultBurst    // 10 records
	DefaultInterval = ratelog.DefaultInterval // 10 seconds
	DefaultMaxKeys  = ratelog.DefaultMaxKeys  // 100 kinds of record
)

// DroppedMessage is the message of the record that counts what a Handler
// dropped, with the attributes "message" (the message of the records it
// counts; "" for those past MaxKeys), "dropped" (how many) and "interval".
// It is written at the level of the records it counts, by the handler New
// was given, without the attributes and groups added to the Handler since.
const DroppedMessage = ratelog.DroppedMessage

// Options are the bounds of a Handler. The zero value of each field gives
// its default.
type Options struct {
	// Burst is the number of records of one kind (a level and a message)
	// let through in each Interval; DefaultBurst (10) when <= 0.
	Burst int

	// Interval is the length of the windows in which Burst records of a
	// kind are let through; DefaultInterval (10 s) when <= 0. A window
	// starts with the first record of its kind; the count of what it
	// dropped is written when it ends.
	Interval time.Duration

	// MaxKeys bounds the kinds of record followed at once; DefaultMaxKeys
	// (100) when <= 0. Past it, records of a new kind share one kind per
	// level, so that messages that vary (a text naming an address) are
	// bounded together. A kind is forgotten once its window has ended with
	// nothing dropped.
	MaxKeys int
}

// New returns a handler that passes records to h within the bounds of o.
// The handlers that its WithAttrs and WithGroup return share its bounds.
// It is safe for concurrent use by multiple goroutines when h is. Counts
// of dropped records still waiting when the program exits are lost.
func New(h slog.Handler, o Options) slog.Handler {
	return ratelog.New(h, ratelog.Options(o))
}
