package framing

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"testing/iotest"

	"github.com/jsonrpc-go/jsonrpc/internal/wire"
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
		// Asking Ready before each Read changes nothing, and a Read it
		// says is ready does not read.
		src := &countingReader{r: iotest.HalfReader(bytes.NewReader(in))}
		r := fr.NewReader(src, int(max))
		var asked []item
		for range 10000 {
			ready := r.(interface{ Ready() bool }).Ready()
			before := src.n
			msg, err := r.Read()
			if ready && src.n != before {
				t.Fatalf("input %q, max %d: Ready was true before read %d, which read its source", in, max, len(asked))
			}
			if err == nil {
				asked = append(asked, item{msg: string(msg)})
				continue
			}
			asked = append(asked, errItem(err))
			var tl *TooLargeError
			if !errors.As(err, &tl) || !tl.Recoverable {
				break
			}
		}
		if !sameItems(whole, asked) {
			t.Fatalf("input %q, max %d:\nwhole:      %v\nwith Ready: %v", in, max, whole, asked)
		}
		for _, it := range whole {
			if it.err == "" && max > 0 && len(it.msg) > int(max) {
				t.Fatalf("input %q: message of %d bytes over the limit %d", in, len(it.msg), max)
			}
		}
	})
}

// countingReader counts the Reads of r.
type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) { c.n++; return c.r.Read(p) }

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

// FuzzIDScan checks that idScan finds the same id fed whole or in pieces,
// and, for a valid request object, the id the server's scanner reads.
func FuzzIDScan(f *testing.F) {
	for _, s := range []string{`{"jsonrpc":"2.0","method":"m","params":[1,{"id":2}],"id":7}`, `{"id":"a\"b"}`,
		`{"\u0069d":1,"id":2}`, `[{"id":1}]`, ` {"x":"}","id":-0.5e1}`, `{"id":"\ud800"}`} {
		f.Add([]byte(s), uint8(3))
	}
	f.Fuzz(func(t *testing.T, msg []byte, piece uint8) {
		var whole, pieces idScan
		whole.reset()
		whole.feed(msg)
		pieces.reset()
		for m, n := msg, max(int(piece), 1); len(m) > 0; m = m[min(n, len(m)):] {
			pieces.feed(m[:min(n, len(m))])
		}
		got := whole.ID()
		if string(got) != string(pieces.ID()) {
			t.Fatalf("%q: id %s whole, %s in pieces of %d", msg, got, pieces.ID(), piece)
		}
		var r wire.Request
		kind, err := (wire.Scanner{}).ScanRequest(msg, &r)
		if err != nil || kind != wire.Object {
			return
		}
		want := r.ID
		if r.Dup || len(want) > maxIDScan || (wire.KindOf(want) != wire.String && wire.KindOf(want) != wire.Number) {
			want = nil
		}
		if string(got) != string(want) {
			t.Fatalf("%q: id %s, the server reads %s", msg, got, want)
		}
	})
}
