package testutil

import (
	"runtime"
	"testing"
)

// SkipOnJS skips t under GOOS=js (js/wasm), logging reason: what the test
// needs that the js port does not have (pipes, subprocesses, a WebSocket
// client that reaches the program's own servers).
func SkipOnJS(t testing.TB, reason string) {
	t.Helper()
	skipOn(t, reason, "js")
}

// SkipOnWasm skips t under both WebAssembly ports, GOOS=js and GOOS=wasip1,
// logging reason: what the test needs that neither port has (subprocesses).
func SkipOnWasm(t testing.TB, reason string) {
	t.Helper()
	skipOn(t, reason, "js", "wasip1")
}

// skipOn skips t when runtime.GOOS is one of goos.
func skipOn(t testing.TB, reason string, goos ...string) {
	t.Helper()
	for _, g := range goos {
		if runtime.GOOS == g {
			t.Skipf("skipped on %s/%s: %s", runtime.GOOS, runtime.GOARCH, reason)
		}
	}
}
