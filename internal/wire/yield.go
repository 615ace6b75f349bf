package wire

import (
	"runtime"
	"slices"
)

// YieldEvery lets the goroutine's processor run other goroutines once every
// 4096 elements of a long array, for the loops that scan or decode one:
// the work of a large request is then shared out in slices of about 0.1 ms,
// so that the small requests of other clients do not wait behind it for
// the scheduler's preemption, which comes after 10 ms.
func YieldEvery(n int) {
	if n&4095 == 4095 {
		runtime.Gosched()
	}
}

// chunk is the most AppendLong copies at once. A copy cannot be preempted:
// 256 KiB takes some tens of microseconds, a 16 MiB buffer's growth some
// milliseconds, during which a collection that must stop the world waits,
// and with it every goroutine of the program.
const chunk = 256 << 10

// AppendLong appends src to dst as append does, copying a long src, and the
// bytes of dst when dst must grow, a chunk at a time, so that the goroutine
// can be preempted between chunks.
func AppendLong[S ~string | ~[]byte](dst []byte, src S) []byte {
	if len(src) < chunk {
		return append(dst, src...)
	}
	if n := len(dst) + len(src); n > cap(dst) {
		grown := make([]byte, len(dst), max(n, 2*cap(dst)))
		CopyLong(grown, dst)
		dst = grown
	}
	for i := 0; i < len(src); i += chunk {
		dst = append(dst, src[i:min(i+chunk, len(src))]...)
	}
	return dst
}

// CopyLong copies src to dst as copy does, a chunk at a time (see
// AppendLong), and returns the number of bytes copied.
func CopyLong(dst, src []byte) int {
	n := min(len(dst), len(src))
	for i := 0; i < n; i += chunk {
		copy(dst[i:n], src[i:min(i+chunk, n)])
	}
	return n
}

// LongValue is the length from which a buffer that grows is copied a chunk
// at a time (see AppendLong).
const LongValue = chunk

// Reserve returns dst with room for at least n more bytes, for the loops that
// append many small pieces: a buffer of LongValue bytes or more that must
// grow is copied a chunk at a time, as in AppendLong.
func Reserve(dst []byte, n int) []byte {
	if cap(dst)-len(dst) >= n {
		return dst
	}
	if len(dst) < chunk {
		return slices.Grow(dst, n)
	}
	grown := make([]byte, len(dst), max(len(dst)+n, 2*cap(dst)))
	CopyLong(grown, dst)
	return grown
}
