// Package leaktest checks that a test leaves no goroutine behind.
package leaktest

import (
	"runtime"
	"strings"
	"testing"
	"time"
)

// Check records the number of goroutines now and, at the test's cleanup,
// fails the test with every goroutine's stack if more are still running
// after up to five seconds. Tests that use it must not run in parallel with
// tests that start goroutines.
func Check(t testing.TB) {
	t.Helper()
	CheckIgnoring(t)
}

// CheckIgnoring is Check not counting the goroutines whose stacks contain
// one of the given strings (function names of a library's background
// goroutines, which outlive the servers that started them).
func CheckIgnoring(t testing.TB, ignore ...string) {
	t.Helper()
	before := count(ignore)
	t.Cleanup(func() {
		deadline := time.Now().Add(5 * time.Second)
		for count(ignore) > before && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
		if n := count(ignore); n > before {
			t.Errorf("%d goroutines before the test, %d after:\n%s", before, n, stacks())
		}
	})
}

// count is the number of goroutines, less those whose stacks contain one of
// ignore.
func count(ignore []string) int {
	if len(ignore) == 0 {
		return runtime.NumGoroutine()
	}
	n := 0
	for g := range strings.SplitSeq(stacks(), "\n\n") {
		if !containsAny(g, ignore) {
			n++
		}
	}
	return n
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// stacks returns every goroutine's stack.
func stacks() string {
	buf := make([]byte, 1<<20)
	return string(buf[:runtime.Stack(buf, true)])
}
