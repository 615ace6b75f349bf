package ratelog

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// logBuffer is what a text handler wrote, safe to read while it writes.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// lines returns the lines written so far and forgets them.
func (l *logBuffer) lines() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := strings.TrimSuffix(l.b.String(), "\n")
	l.b.Reset()
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

func newLogger(o Options) (*slog.Logger, *logBuffer) {
	out := &logBuffer{}
	text := slog.NewTextHandler(out, &slog.HandlerOptions{
		Level: slog.LevelDebug,
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey && len(groups) == 0 {
				return slog.Attr{} // the lines compare without the time
			}
			return a
		},
	})
	return slog.New(New(text, o)), out
}

// Records of one kind past Burst in an interval are dropped, and counted
// by one record at the interval's end; the next interval lets Burst
// through again.
func TestBurst(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l, out := newLogger(Options{})
		for i := range 1000 {
			l.Warn("parse error", "bytes", i)
		}
		got := out.lines()
		if len(got) != DefaultBurst || got[0] != `level=WARN msg="parse error" bytes=0` || got[9] != `level=WARN msg="parse error" bytes=9` {
			t.Fatalf("1000 records at once wrote %d lines: %q", len(got), got)
		}
		time.Sleep(DefaultInterval)
		synctest.Wait()
		got = out.lines()
		if want := `level=WARN msg="log records dropped" message="parse error" dropped=990 interval=10s`; len(got) != 1 || got[0] != want {
			t.Fatalf("at the end of the interval: %q, want %q", got, want)
		}
		for i := range 20 {
			l.Warn("parse error", "bytes", i)
		}
		if got := out.lines(); len(got) != DefaultBurst {
			t.Errorf("the next interval wrote %d lines, want %d", len(got), DefaultBurst)
		}
		// Nothing dropped, nothing counted.
		time.Sleep(3 * DefaultInterval)
		synctest.Wait()
		if got := out.lines(); len(got) != 1 || !strings.Contains(got[0], "dropped=10 ") {
			t.Errorf("after the second interval: %q, want one count of 10", got)
		}
		l.Warn("parse error")
		time.Sleep(3 * DefaultInterval)
		synctest.Wait()
		if got := out.lines(); len(got) != 1 || got[0] != `level=WARN msg="parse error"` {
			t.Errorf("a record alone: %q", got)
		}
	})
}

// Keys are the level and the message: each has its bounds; the handlers
// of WithAttrs and WithGroup share them, and their records keep their
// attributes.
func TestKeys(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l, out := newLogger(Options{Burst: 2, Interval: time.Second})
		tcp := l.With("transport", "tcp")
		ws := l.WithGroup("ws").With("remote", "x")
		for range 5 {
			l.Warn("a")
			l.Info("a")
			tcp.Warn("b")
			ws.Warn("b")
		}
		got := out.lines()
		want := []string{
			`level=WARN msg=a`, `level=INFO msg=a`, `level=WARN msg=b transport=tcp`, `level=WARN msg=b ws.remote=x`,
			`level=WARN msg=a`, `level=INFO msg=a`,
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		time.Sleep(time.Second)
		synctest.Wait()
		got = out.lines()
		for _, w := range []string{
			`level=WARN msg="log records dropped" message=a dropped=3 interval=1s`,
			`level=INFO msg="log records dropped" message=a dropped=3 interval=1s`,
			`level=WARN msg="log records dropped" message=b dropped=8 interval=1s`,
		} {
			found := false
			for _, g := range got {
				found = found || g == w
			}
			if !found {
				t.Errorf("no %s in %q", w, got)
			}
		}
		if len(got) != 3 {
			t.Errorf("%d counts, want 3: %q", len(got), got)
		}
	})
}

// Messages that vary share one key per level past MaxKeys, so that they
// are bounded too; keys whose window ended are forgotten.
func TestMaxKeys(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l, out := newLogger(Options{Burst: 1, Interval: time.Second, MaxKeys: 4})
		for i := range 100 {
			l.Warn(fmt.Sprintf("error from 10.0.0.%d", i))
		}
		// Four keys, one record each, and one of the shared key.
		if got := out.lines(); len(got) != 5 {
			t.Fatalf("100 messages wrote %d lines, want 5: %q", len(got), got)
		}
		time.Sleep(time.Second)
		synctest.Wait()
		if got := out.lines(); len(got) != 1 || got[0] != `level=WARN msg="log records dropped" message="" dropped=95 interval=1s` {
			t.Fatalf("the count: %q", got)
		}
		// The windows have ended: new messages have keys of their own.
		time.Sleep(time.Second)
		for i := range 4 {
			l.Warn(fmt.Sprintf("another from 10.0.0.%d", i))
		}
		if got := out.lines(); len(got) != 4 || !strings.Contains(got[3], "another from 10.0.0.3") {
			t.Errorf("after the windows ended: %q", got)
		}
	})
}

// Whatever is logged, and however fast, the log grows by at most
// (keys + 1) × (Burst + 1) records an interval, from many goroutines at
// once.
func TestBound(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		o := Options{Burst: 3, Interval: time.Second, MaxKeys: 8}
		l, out := newLogger(o)
		const intervals = 5
		total := 0
		for range intervals {
			var wg sync.WaitGroup
			for g := range 16 {
				wg.Go(func() {
					for i := range 500 {
						l.Warn(fmt.Sprintf("message %d", (g*500+i)%37), "i", i)
					}
				})
			}
			wg.Wait()
			time.Sleep(o.Interval)
			synctest.Wait()
			total += len(out.lines())
		}
		if bound := intervals * (o.MaxKeys + 1) * (o.Burst + 1); total > bound {
			t.Errorf("%d lines in %d intervals, over the bound of %d", total, intervals, bound)
		}
	})
}

// Levels the wrapped handler leaves out are neither counted nor written.
func TestEnabled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		out := &logBuffer{}
		l := slog.New(New(slog.NewTextHandler(out, &slog.HandlerOptions{Level: slog.LevelWarn}), Options{Burst: 1}))
		for range 10 {
			l.Debug("quiet")
		}
		if l.Enabled(context.Background(), slog.LevelDebug) || len(out.lines()) != 0 {
			t.Error("debug records reached a handler at warn")
		}
		time.Sleep(DefaultInterval)
		synctest.Wait()
		if got := out.lines(); len(got) != 0 {
			t.Errorf("counts of records never enabled: %q", got)
		}
	})
}

func TestWrap(t *testing.T) {
	if Wrap(nil) != nil {
		t.Error("Wrap(nil) is not nil")
	}
	l := slog.New(slog.DiscardHandler)
	w := Wrap(l)
	if _, ok := w.Handler().(*Handler); !ok {
		t.Fatalf("Wrap's handler is a %T", w.Handler())
	}
	if Wrap(w) != w {
		t.Error("a wrapped logger is wrapped again")
	}
	if d := w.With("k", "v"); Wrap(d) != d {
		t.Error("a logger derived from a wrapped one is wrapped again")
	}
}
