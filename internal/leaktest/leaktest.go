// Package leaktest checks that a test leaves no goroutine behind.
package leaktest

import (
	"runtime"
	"testing"
	"time"
)

// Check records the number of goroutines now and, at the test's cleanup,
// fails the test with every goroutine's stack if more are still running
// after up to five seconds. Tests that use it must not run in parallel with
// tests that start goroutines.
func Check(t testing.TB) {
	t.Helper()
	before := runtime.NumGoroutine()
	t.Cleanup(func() {
		deadline := time.Now().Add(5 * time.Second)
		for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
		if n := runtime.NumGoroutine(); n > before {
			buf := make([]byte, 1<<20)
			t.Errorf("%d goroutines before the test, %d after:\n%s", before, n, buf[:runtime.Stack(buf, true)])
		}
	})
}
