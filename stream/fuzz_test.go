package stream

import (
	"bytes"
	"testing"
	"testing/iotest"
)

// fuzzFraming checks that f's Reader never panics and that reading in
// one-byte pieces gives the same results as reading the whole input.
func fuzzFraming(f *testing.F, fr Framing, seeds ...string) {
	for _, s := range seeds {
		f.Add([]byte(s), uint16(0))
		f.Add([]byte(s), uint16(8))
	}
	f.Fuzz(func(t *testing.T, in []byte, max uint16) {
		whole := readAll(fr.NewReader(bytes.NewReader(in), int(max)))
		pieces := readAll(fr.NewReader(iotest.OneByteReader(bytes.NewReader(in)), int(max)))
		if !sameItems(whole, pieces) {
			t.Fatalf("input %q, max %d:\nwhole:    %v\none byte: %v", in, max, whole, pieces)
		}
		for _, it := range whole {
			if it.err == "" && max > 0 && len(it.msg) > int(max) {
				t.Fatalf("input %q: message of %d bytes over the limit %d", in, len(it.msg), max)
			}
		}
	})
}

func FuzzLineReader(f *testing.F) {
	fuzzFraming(f, Line, "a\nbb\r\n\n ccc", "{\"a\":1}\n[1,2]\r\n", "xxxxxxxxxxxxxxxxxxxx\nok\n")
}

func FuzzHeaderReader(f *testing.F) {
	fuzzFraming(f, Header, "Content-Length: 2\r\n\r\n{}Content-Type: x\r\nContent-Length: 1\r\n\r\n1",
		"Content-Length: 100\r\n\r\n", "content-length:3\n\n[1]", "Foo\r\n\r\n")
}

func FuzzRawReader(f *testing.F) {
	fuzzFraming(f, Raw, `{"a":"}"}[1,{"b":[]}]"s\"}"{}`, ` 12 true null "x" ]`, `{"a":[1,2`)
}
