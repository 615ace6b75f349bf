// Package leaktest checks that a test leaves no goroutine behind.
//
// The runtime's own goroutines are never counted: under GOOS=js, the
// goroutine that the runtime starts to handle events from JavaScript
// (runtime.handleEvent, started at the first timer or callback and kept
// afterwards) would otherwise count as a leak of the first test that waits.
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

// count is the number of goroutines, less the runtime's own and those whose
// stacks contain one of ignore.
func count(ignore []string) int {
	own := runtimeOwn(runtime.GOOS)
	if len(ignore) == 0 && len(own) == 0 {
		return runtime.NumGoroutine()
	}
	return countStacks(stacks(), append(own, ignore...))
}

// runtimeOwn returns, for the port goos, the frames that mark the runtime's
// own goroutines in a stack dump: under js, the event handler's
// runtime.handleEvent as a frame (not in a "created by" line, which marks a
// goroutine of the program's own).
func runtimeOwn(goos string) []string {
	if goos == "js" {
		return []string{"\nruntime.handleEvent()"}
	}
	return nil
}

// countStacks is the number of goroutines in the dump all (runtime.Stack's),
// less those whose stacks contain one of ignore.
func countStacks(all string, ignore []string) int {
	n := 0
	for g := range strings.SplitSeq(all, "\n\n") {
		if strings.TrimSpace(g) != "" && !containsAny(g, ignore) {
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
