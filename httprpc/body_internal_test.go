package httprpc

import (
	"io"
	"runtime"
	"testing"

	"github.com/jsonrpc-go/jsonrpc/internal/budget"
)

// chunks is a body that arrives in reads of at most 32 KiB, as from a
// connection.
type chunks struct{ left int }

func (c *chunks) Read(p []byte) (int, error) {
	if c.left == 0 {
		return 0, io.EOF
	}
	n := min(len(p), c.left, 32<<10)
	clear(p[:n])
	c.left -= n
	return n, nil
}

// A body of a declared length ends in a buffer of that length, and growing
// it allocates about twice the body, not five times (append's growth past
// 256 elements is 1.25×): what a slow client's connection holds, and the
// garbage it makes, follow what it sent.
func TestReadBodyGrowth(t *testing.T) {
	for _, n := range []int{100 << 10, 1 << 20, 4<<20 - 1} {
		// The least of a few runs: TotalAlloc counts the whole process.
		got := uint64(1<<64 - 1)
		for range 5 {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			buf, _, err := readBody(make([]byte, 0, 4096), &chunks{left: n}, int64(n), budget.New(1<<40))
			runtime.ReadMemStats(&after)
			if err != nil || len(buf) != n {
				t.Fatalf("%d bytes: read %d, %v", n, len(buf), err)
			}
			if c := cap(buf); c > n+1+8<<10 {
				t.Fatalf("%d bytes: a buffer of %d", n, c)
			}
			got = min(got, after.TotalAlloc-before.TotalAlloc)
		}
		if got > uint64(3*n) {
			t.Errorf("%d bytes: %d allocated, %.1f× the body; want under 3×", n, got, float64(got)/float64(n))
		}
	}
}
