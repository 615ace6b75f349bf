package leaktest

import (
	"runtime"
	"testing"
	"time"
)

// jsDump is a stack dump of a js/wasm test: the test's goroutine, the main
// goroutine, the runtime's event handler, and a goroutine that a callback
// started.
const jsDump = `goroutine 42 [running]:
github.com/jsonrpc-go/jsonrpc/internal/leaktest.stacks(...)
	/src/internal/leaktest/leaktest.go:64
testing.tRunner(0x998908, 0x214570)
	/go/src/testing/testing.go:2042 +0x17
created by testing.(*T).Run in goroutine 1
	/go/src/testing/testing.go:2101 +0x54

goroutine 1 [chan receive]:
testing.(*T).Run(0x998008, {0x202ffd, 0x13}, 0x214570)
	/go/src/testing/testing.go:2109 +0x55
main.main()
	_testmain.go:160 +0x3

goroutine 51 [waiting]:
runtime.gopark(0x0, 0x0, 0x0, 0x0, 0x1)
	/go/src/runtime/proc.go:462 +0x24
runtime.handleEvent()
	/go/src/runtime/lock_js.go:294 +0x25
runtime.goexit({})
	/go/src/runtime/asm_wasm.s:428 +0x1

goroutine 60 [select]:
example.com/p.wait()
	/src/p.go:10 +0x1
created by runtime.handleEvent in goroutine 51
	/go/src/runtime/lock_js.go:290 +0x2
`

// TestRuntimeOwn checks that under js the event handler is not counted and a
// goroutine it started is, and that elsewhere every goroutine counts.
func TestRuntimeOwn(t *testing.T) {
	if n := countStacks(jsDump, runtimeOwn("js")); n != 3 {
		t.Errorf("js: %d goroutines counted, want 3 (all but runtime.handleEvent)", n)
	}
	for _, goos := range []string{"linux", "wasip1"} {
		if n := countStacks(jsDump, runtimeOwn(goos)); n != 4 {
			t.Errorf("%s: %d goroutines counted, want 4", goos, n)
		}
	}
	if n := countStacks(jsDump, append(runtimeOwn("js"), "example.com/p.wait")); n != 2 {
		t.Errorf("js, ignoring example.com/p.wait: %d goroutines counted, want 2", n)
	}
}

// TestCheckAfterWait runs Check around a sleep: under js the first wait for
// a timer starts the runtime's event handler, which must not count as the
// test's leak.
func TestCheckAfterWait(t *testing.T) {
	t.Run("sleep", func(t *testing.T) {
		Check(t)
		time.Sleep(time.Millisecond)
	})
	if runtime.GOOS == "js" && countStacks(stacks(), nil) == count(nil) {
		t.Error("under js, no runtime goroutine was left out of the count")
	}
}
