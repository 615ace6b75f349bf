package testutil

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"
)

// A Buffer collects what is written to it, as a bytes.Buffer does, and is
// safe for concurrent use: a child process's output, or a logger's, read
// while it is written.
type Buffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// Write implements io.Writer.
func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String returns everything written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// A Log records what a *slog.Logger writes, through slog.NewJSONHandler,
// for tests to read back. It is safe for concurrent use.
type Log struct {
	Buffer
}

// NewLog returns a logger of every level, Debug included, and the Log that
// records it.
func NewLog() (*slog.Logger, *Log) {
	l := new(Log)
	return slog.New(slog.NewJSONHandler(l, &slog.HandlerOptions{Level: slog.LevelDebug})), l
}

// Records returns the records logged so far, each decoded from its JSON
// line (with the keys "level", "msg" and the attributes').
func (l *Log) Records(t testing.TB) []map[string]any {
	t.Helper()
	var recs []map[string]any
	for line := range strings.Lines(l.String()) {
		var r map[string]any
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		recs = append(recs, r)
	}
	return recs
}

// Find returns the records with the message msg.
func (l *Log) Find(t testing.TB, msg string) []map[string]any {
	t.Helper()
	var found []map[string]any
	for _, r := range l.Records(t) {
		if r["msg"] == msg {
			found = append(found, r)
		}
	}
	return found
}

// Wait returns the first record with the message msg, waiting up to 10
// seconds for it to be logged, and fails t if none is.
func (l *Log) Wait(t testing.TB, msg string) map[string]any {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if found := l.Find(t, msg); len(found) > 0 {
			return found[0]
		}
		if time.Now().After(deadline) {
			t.Fatalf("no record %q logged; the log:\n%s", msg, l.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Want fails t unless rec has the level level and, for each key of attrs,
// that attribute with a value whose JSON encoding is attrs[key]'s, or, for
// a value of type Contains, holding that text.
func Want(t testing.TB, rec map[string]any, level string, attrs map[string]any) {
	t.Helper()
	if rec["level"] != level {
		t.Errorf("record %v: level %v, want %s", rec, rec["level"], level)
	}
	for k, want := range attrs {
		got, ok := rec[k]
		if !ok {
			t.Errorf("record %v: no attribute %q", rec, k)
			continue
		}
		if c, ok := want.(Contains); ok {
			if s, _ := got.(string); !strings.Contains(s, string(c)) {
				t.Errorf("record %v: %s = %v, want it to hold %q", rec, k, got, c)
			}
			continue
		}
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want)
		if !bytes.Equal(g, w) {
			t.Errorf("record %v: %s = %s, want %s", rec, k, g, w)
		}
	}
}

// Contains is a value for Want: the attribute is a string holding it.
type Contains string
