package wire

import (
	"bytes"
	"strings"
	"testing"
)

func TestAppendLong(t *testing.T) {
	for _, n := range []int{0, 1, chunk - 1, chunk, chunk + 1, 3*chunk + 17} {
		src := strings.Repeat("abcdefg", n/7+1)[:n]
		for _, head := range []int{0, 5, chunk + 3} {
			for _, room := range []bool{false, true} {
				dst := make([]byte, head, head+n*map[bool]int{false: 0, true: 1}[room])
				for i := range dst {
					dst[i] = byte('0' + i%10)
				}
				want := append(bytes.Clone(dst), src...)
				if got := AppendLong(bytes.Clone(dst), src); !bytes.Equal(got, want) {
					t.Errorf("AppendLong(%d bytes, string of %d) differs from append", head, n)
				}
				if got := AppendLong(dst, []byte(src)); !bytes.Equal(got, want) {
					t.Errorf("AppendLong(%d bytes, []byte of %d) differs from append", head, n)
				}
			}
		}
	}
}

func TestAppendLongInPlace(t *testing.T) {
	src := strings.Repeat("x", 2*chunk)
	dst := make([]byte, 0, len(src))
	if allocs := testing.AllocsPerRun(10, func() { dst = AppendLong(dst[:0], src) }); allocs != 0 {
		t.Errorf("AppendLong into room enough allocates %v times", allocs)
	}
	if len(dst) != len(src) {
		t.Errorf("len %d, want %d", len(dst), len(src))
	}
}

func TestCopyLong(t *testing.T) {
	src := []byte(strings.Repeat("0123456789", chunk/5))
	for _, n := range []int{0, 7, chunk, len(src), len(src) + 9} {
		dst := make([]byte, n)
		want := make([]byte, n)
		if got, wantN := CopyLong(dst, src), copy(want, src); got != wantN || !bytes.Equal(dst, want) {
			t.Errorf("CopyLong into %d bytes: %d, differs from copy: %v", n, got, !bytes.Equal(dst, want))
		}
	}
}
