package framing

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/jsonrpc-go/jsonrpc/internal/leaktest"
)

// leakCheck fails t when goroutines started during the test are still
// running at its cleanup.
func leakCheck(t *testing.T) { t.Helper(); leaktest.Check(t) }

// item is one result of Reader.Read: a message, or an error.
type item struct {
	msg string
	err string // "" for a message
}

func (it item) String() string {
	if it.err != "" {
		return "error: " + it.err
	}
	return fmt.Sprintf("%q", it.msg)
}

// readAll reads r until an error it cannot continue after, recording every
// result.
func readAll(r Reader) []item {
	var out []item
	for range 10000 {
		msg, err := r.Read()
		if err == nil {
			out = append(out, item{msg: string(msg)})
			continue
		}
		out = append(out, errItem(err))
		var tl *TooLargeError
		if !errors.As(err, &tl) || !tl.Recoverable {
			return out
		}
	}
	panic("reader does not end")
}

func sameItems(a, b []item) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

var framings = []struct {
	name string
	f    Framing
}{{"Line", Line}, {"Header", Header}, {"Raw", Raw}}

// shortReaders wrap a reader so that it returns little at a time.
var shortReaders = []struct {
	name string
	wrap func(io.Reader) io.Reader
}{
	{"whole", func(r io.Reader) io.Reader { return r }},
	{"OneByte", iotest.OneByteReader},
	{"Half", iotest.HalfReader},
	{"DataErr", iotest.DataErrReader},
}

func TestFramingRoundTrip(t *testing.T) {
	leakCheck(t)
	msgs := []string{
		`{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`,
		`[{"a":"}]\"{"},{"b":[[],{}]}]`,
		`"a string \\\" with escapes"`,
		`{"x":"` + strings.Repeat("y", 70000) + `"}`, // over the initial buffer
		`{}`,
	}
	for _, fr := range framings {
		var wire bytes.Buffer
		w := fr.f.NewWriter(&wire)
		for _, m := range msgs {
			if err := w.Write([]byte(m)); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		if w.Buffered() != 0 {
			t.Fatalf("%s: Buffered() = %d after Flush", fr.name, w.Buffered())
		}
		for _, sr := range shortReaders {
			t.Run(fr.name+"/"+sr.name, func(t *testing.T) {
				r := fr.f.NewReader(sr.wrap(bytes.NewReader(wire.Bytes())), 1<<20)
				for i, want := range msgs {
					got, err := r.Read()
					if err != nil {
						t.Fatalf("message %d: %v", i, err)
					}
					if string(got) != want {
						t.Fatalf("message %d = %.60q, want %.60q", i, got, want)
					}
				}
				if _, err := r.Read(); err != io.EOF {
					t.Fatalf("after the last message: %v, want io.EOF", err)
				}
			})
		}
	}
}

// readerCase is an input to a framing's Reader and the results it gives.
type readerCase struct {
	name string
	in   string
	max  int
	want []item
}

func msgs(ss ...string) []item {
	out := make([]item, len(ss))
	for i, s := range ss {
		out[i] = item{msg: s}
	}
	return out
}

// errItem is the item of an error; that of a *TooLargeError shows its ID.
func errItem(err error) item {
	var tl *TooLargeError
	if errors.As(err, &tl) && tl.ID != nil {
		return item{err: err.Error() + " (id " + string(tl.ID) + ")"}
	}
	return item{err: err.Error()}
}

func tooLarge(limit int, length int64, rec bool) item {
	return errItem(&TooLargeError{Limit: limit, Length: length, Recoverable: rec})
}

func tooLargeID(limit int, length int64, rec bool, id string) item {
	return errItem(&TooLargeError{Limit: limit, Length: length, Recoverable: rec, ID: []byte(id)})
}

func runReaderCases(t *testing.T, f Framing, cases []readerCase) {
	t.Helper()
	for _, tc := range cases {
		for _, sr := range shortReaders {
			t.Run(tc.name+"/"+sr.name, func(t *testing.T) {
				got := readAll(f.NewReader(sr.wrap(strings.NewReader(tc.in)), tc.max))
				if !sameItems(got, tc.want) {
					t.Errorf("input %.80q\n got %v\nwant %v", tc.in, got, tc.want)
				}
			})
		}
	}
}

func TestLineReader(t *testing.T) {
	eof := errItem(io.EOF)
	runReaderCases(t, Line, []readerCase{
		{"lines", "a\nbb\r\nccc\n", 0, append(msgs("a", "bb", "ccc"), eof)},
		{"blank lines skipped", "\n\r\n  \t\na\n\n", 0, append(msgs("a"), eof)},
		{"last line without newline", "a\nb", 0, append(msgs("a", "b"), eof)},
		{"empty input", "", 0, []item{eof}},
		{"exactly the limit", "12345\r\n123456\n", 5, []item{{msg: "12345"}, tooLarge(5, -1, true), eof}},
		{"too long then more", strings.Repeat("x", 100) + "\nok\n", 10, []item{tooLarge(10, -1, true), {msg: "ok"}, eof}},
		{"too long at the end", "ok\n" + strings.Repeat("x", 100), 10, []item{{msg: "ok"}, tooLarge(10, -1, true), eof}},
		{"too long, long run", strings.Repeat("y", 200000) + "\nz\n", 1000, []item{tooLarge(1000, -1, true), {msg: "z"}, eof}},
		{"too long, id first", `{"id":1,"p":"` + strings.Repeat("y", 100) + "\"}\nz\n", 10, []item{tooLargeID(10, -1, true, "1"), {msg: "z"}, eof}},
		{"too long, id last", `{"p":"` + strings.Repeat("y", 200000) + `","id":"z"}` + "\r\nz", 1000, []item{tooLargeID(1000, -1, true, `"z"`), {msg: "z"}, eof}},
		{"too long at the end, id", `{"id":3,"p":"` + strings.Repeat("y", 100) + `"}`, 10, []item{tooLargeID(10, -1, true, "3"), eof}},
	})
}

func TestHeaderReader(t *testing.T) {
	eof, ueof := errItem(io.EOF), errItem(io.ErrUnexpectedEOF)
	malformed := func(s string) item { return item{err: ErrMalformed.Error() + ": " + s} }
	runReaderCases(t, Header, []readerCase{
		{"one", "Content-Length: 2\r\n\r\n{}", 0, append(msgs("{}"), eof)},
		{"other headers and case", "Content-Type: application/vscode-jsonrpc; charset=utf-8\r\ncontent-length:3\r\n\r\n[1]" +
			"CONTENT-LENGTH:  1 \n\n7", 0, append(msgs("[1]", "7"), eof)},
		{"blank lines between messages", "\r\n\r\nContent-Length: 1\r\n\r\n1\r\nContent-Length: 1\r\n\r\n2", 0, append(msgs("1", "2"), eof)},
		{"zero length", "Content-Length: 0\r\n\r\n", 0, append(msgs(""), eof)},
		{"missing length", "Content-Type: x\r\n\r\n{}", 0, []item{malformed("no Content-Length header")}},
		{"bad length", "Content-Length: -1\r\n\r\n", 0, []item{malformed(`invalid Content-Length " -1"`)}},
		{"overflowing length", "Content-Length: 99999999999999999999\r\n\r\n", 0, []item{malformed(`invalid Content-Length " 99999999999999999999"`)}},
		{"conflicting lengths", "Content-Length: 1\r\nContent-Length: 2\r\n\r\n", 0, []item{malformed("conflicting Content-Length headers")}},
		{"no colon", "hello\r\n\r\n", 0, []item{malformed(`header line "hello" has no field name` + headerHint)}},
		{"a JSON line", `{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}` + "\n", 0, []item{malformed(`a JSON message "{\"jsonrpc\":\"2.0\",\"method\":\"add\",\"params\"" where a header line was expected` + headerHint)}},
		{"a JSON batch line", " [1]\n", 0, []item{malformed(`a JSON message " [1]" where a header line was expected` + headerHint)}},
		{"invalid field name", "Content Length: 2\r\n\r\n{}", 0, []item{malformed(`header line "Content Length: 2" has an invalid field name` + headerHint)}},
		{"header block too large", "X: " + strings.Repeat("a", MaxHeaderBlock) + "\r\n\r\n", 0, []item{malformed(fmt.Sprintf("header block exceeds %d bytes", MaxHeaderBlock))}},
		{"header without end", "X: " + strings.Repeat("a", 3*MaxHeaderBlock), 0, []item{malformed(fmt.Sprintf("header block exceeds %d bytes", MaxHeaderBlock))}},
		{"eof in header", "Content-Length: 2\r\n", 0, []item{ueof}},
		{"eof in body", "Content-Length: 5\r\n\r\n{}", 0, []item{ueof}},
		{"too large then next", "Content-Length: 10\r\n\r\n0123456789Content-Length: 2\r\n\r\nok", 5,
			[]item{tooLarge(5, 10, true), {msg: "ok"}, eof}},
		{"huge declared length", "Content-Length: 1099511627776\r\n\r\n{}", 5,
			[]item{tooLarge(5, 1<<40, true), ueof}},
		{"too large, id last", "Content-Length: 20\r\n\r\n" + `{"p":"xxxxx","id":2}` + "Content-Length: 2\r\n\r\nok", 5,
			[]item{tooLargeID(5, 20, true, "2"), {msg: "ok"}, eof}},
		{"too large, cut short", "Content-Length: 100\r\n\r\n" + `{"id":"a","p":"xxxxx`, 5,
			[]item{tooLargeID(5, 100, true, `"a"`), ueof}},
	})
}

func TestRawReader(t *testing.T) {
	eof, ueof := errItem(io.EOF), errItem(io.ErrUnexpectedEOF)
	runReaderCases(t, Raw, []readerCase{
		{"back to back", `{"a":"}"}[1,{"b":[]}]"s\"}"{}`, 0, append(msgs(`{"a":"}"}`, `[1,{"b":[]}]`, `"s\"}"`, `{}`), eof)},
		{"white space between", " \n{}\r\n\t[] ", 0, append(msgs(`{}`, `[]`), eof)},
		{"scalars", `12 true"x"null{}7`, 0, append(msgs(`12`, `true`, `"x"`, `null`, `{}`, `7`), eof)},
		{"stray brackets", `]}{}`, 0, append(msgs(`]`, `}`, `{}`), eof)},
		{"not JSON inside", `{"a" 1 2 [}`, 0, []item{ueof}},
		{"escaped backslash", `["\\"]{}`, 0, append(msgs(`["\\"]`, `{}`), eof)},
		{"eof inside", `{"a":[1,2`, 0, []item{ueof}},
		{"exactly the limit", `[1,2]`, 5, append(msgs(`[1,2]`), eof)},
		{"too large", `{"a":1}{}`, 5, []item{tooLarge(5, -1, false)}},
		{"too large scalar", `123456 1`, 5, []item{tooLarge(5, -1, false)}},
		{"too large, id first", `{"id":7,"p":"xxxxxxxxxx"}{}`, 10, []item{tooLargeID(10, -1, false, "7")}},
		{"too large, id past the limit", `{"p":"x","id":7}`, 10, []item{tooLarge(10, -1, false)}},
	})
}

func TestTooLargeErrorText(t *testing.T) {
	e := &TooLargeError{Limit: 5, Length: 10}
	if got, want := e.Error(), "framing: message of 10 bytes exceeds the limit of 5 bytes"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	e.Length = -1
	if got, want := e.Error(), "framing: message exceeds the limit of 5 bytes"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

func TestWriterFraming(t *testing.T) {
	for _, tc := range []struct {
		f    Framing
		want string
	}{
		{Line, "{}\n[1]\n"},
		{Header, "Content-Length: 2\r\n\r\n{}Content-Length: 3\r\n\r\n[1]"},
		{Raw, "{}\n[1]\n"},
	} {
		var b bytes.Buffer
		w := tc.f.NewWriter(&b)
		w.Write([]byte("{}"))
		w.Write([]byte("[1]"))
		if b.Len() != 0 {
			t.Errorf("%v: wrote before Flush", tc.f)
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		if b.String() != tc.want {
			t.Errorf("%v: wrote %q, want %q", tc.f, b.String(), tc.want)
		}
	}
}

func TestWriterStickyError(t *testing.T) {
	w := Line.NewWriter(errWriter{})
	w.Write([]byte("{}"))
	if err := w.Flush(); err == nil {
		t.Fatal("Flush to a failing writer succeeded")
	}
	if err := w.Write([]byte("{}")); err == nil {
		t.Fatal("Write after a failed Flush succeeded")
	}
}

type errWriter struct{}

func (errWriter) Write([]byte) (int, error) { return 0, errors.New("broken") }

// endless yields head, then n bytes of fill, then io.EOF, without
// allocating.
type endless struct {
	head []byte
	fill byte
	n    int64
}

func (e *endless) Read(p []byte) (int, error) {
	if len(e.head) > 0 {
		k := copy(p, e.head)
		e.head = e.head[k:]
		return k, nil
	}
	if e.n == 0 {
		return 0, io.EOF
	}
	k := int(min(int64(len(p)), e.n))
	for i := range k {
		p[i] = e.fill
	}
	e.n -= int64(k)
	return k, nil
}

// TestPartialMessageBounded: a message that never ends (32 MiB of it, then
// the end of the input) makes each framing's Reader buffer at most about
// MaxMessage bytes, whatever its header declares; a declared length over
// the limit is never allocated.
func TestPartialMessageBounded(t *testing.T) {
	const max, n = 1 << 20, 32 << 20
	for _, tc := range []struct {
		name  string
		f     Framing
		head  string
		fill  byte
		bound uint64 // bytes the Reader may allocate
	}{
		// Line reads on past the limit to the end of the line, in the
		// buffer of the initial size it goes back to (shrink).
		{"Line", Line, `{"jsonrpc":"2.0","params":["`, 'x', 3*max + bufSize},
		{"Raw string", Raw, `{"jsonrpc":"2.0","params":["`, 'x', 3 * max},
		{"Raw nesting", Raw, ``, '[', 3 * max},
		{"Header at the limit", Header, fmt.Sprintf("Content-Length: %d\r\n\r\n", max), 'x', 3 * max},
		{"Header over the limit", Header, "Content-Length: 1099511627776\r\n\r\n", 'x', 64 << 10},
		{"Header block", Header, "X-Long: ", 'x', 64 << 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := &endless{head: []byte(tc.head), fill: tc.fill, n: n}
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			r := tc.f.NewReader(src, max)
			for range 100 {
				msg, err := r.Read()
				if len(msg) > max {
					t.Fatalf("read a message of %d bytes", len(msg))
				}
				var tl *TooLargeError
				if err != nil && (!errors.As(err, &tl) || !tl.Recoverable) {
					break
				}
			}
			runtime.ReadMemStats(&after)
			if grew := after.TotalAlloc - before.TotalAlloc; grew > tc.bound {
				t.Fatalf("allocated %d bytes reading a message that does not end, want at most %d", grew, tc.bound)
			}
		})
	}
}

// TestReaderGivesBackGrownBuffer: after a message larger than maxKept, a
// Reader goes back to a buffer of the initial size when it reads the next
// message, on every framing, and the messages read are intact.
func TestReaderGivesBackGrownBuffer(t *testing.T) {
	big := `{"jsonrpc":"2.0","method":"echo","params":["` + strings.Repeat("x", 1<<20) + `"],"id":1}`
	small := `{"jsonrpc":"2.0","method":"echo","params":["y"],"id":2}`
	for _, fr := range framings {
		t.Run(fr.name, func(t *testing.T) {
			var stream bytes.Buffer
			w := fr.f.NewWriter(&stream)
			for _, m := range []string{big, small, small} {
				if err := w.Write([]byte(m)); err != nil {
					t.Fatal(err)
				}
			}
			w.Flush()
			r := fr.f.NewReader(&stream, 4<<20)
			in := readerBuf(r)
			for i, want := range []string{big, small, small} {
				msg, err := r.Read()
				if err != nil || string(msg) != want {
					t.Fatalf("message %d: %d bytes, %v", i, len(msg), err)
				}
				if i > 0 && len(in.buf) > maxKept {
					t.Fatalf("message %d: the buffer still holds %d bytes", i, len(in.buf))
				}
			}
		})
	}
}

// readerBuf returns the inbuf of one of this package's Readers.
func readerBuf(r Reader) *inbuf {
	switch r := r.(type) {
	case *lineReader:
		return &r.in
	case *headerReader:
		return &r.in
	case *rawReader:
		return &r.in
	}
	panic("not a Reader of this package")
}

// TestWriterDoesNotGrow writes 2.4 KB messages, as a server answers search
// results: a message that does not fit in what the buffer has left goes
// after a flush, so the buffer never grows. Grown, it was copied, and
// dropped after the flush for a new one from the pool: 64 KiB allocated for
// every 32 KiB written.
func TestWriterDoesNotGrow(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's sync.Pool drops buffers at random")
	}
	for _, kind := range []frameKind{frameLine, frameHeader} {
		var out countingWriter
		w := newFrameWriter(&out, kind)
		msg := bytes.Repeat([]byte("x"), 2400)
		write := func(n int) {
			for range n {
				if err := w.Write(msg); err != nil {
					t.Fatal(err)
				}
			}
		}
		write(100)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		write(1000)
		runtime.ReadMemStats(&after)
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		if out.n != 1100*(len(msg)+map[frameKind]int{frameLine: 1, frameHeader: len("Content-Length: 2400\r\n\r\n")}[kind]) {
			t.Fatalf("framing %d: %d bytes written", kind, out.n)
		}
		if got := after.TotalAlloc - before.TotalAlloc; got > 16<<10 {
			t.Errorf("framing %d: %d bytes allocated writing 2.4 MB in 2.4 KB messages", kind, got)
		}
		if out.most > bufSize {
			t.Errorf("framing %d: a write of %d bytes, more than the buffer's %d", kind, out.most, bufSize)
		}
	}
}

// countingWriter counts the bytes written to it, and the largest write.
type countingWriter struct{ n, most int }

func (c *countingWriter) Write(p []byte) (int, error) {
	c.n += len(p)
	c.most = max(c.most, len(p))
	return len(p), nil
}

// TestReaderGrowsWhenBusy: a Reader's buffer begins at startSize and grows
// to bufSize when a read fills it, for every framing.
func TestReaderGrowsWhenBusy(t *testing.T) {
	msg := `{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`
	for _, fr := range framings {
		t.Run(fr.name, func(t *testing.T) {
			var stream bytes.Buffer
			w := fr.f.NewWriter(&stream)
			for range 2000 {
				if err := w.Write([]byte(msg)); err != nil {
					t.Fatal(err)
				}
			}
			w.Flush()
			r := fr.f.NewReader(&stream, DefaultMaxMessage)
			in := readerBuf(r)
			if len(in.buf) != startSize {
				t.Fatalf("the buffer begins with %d bytes, want %d", len(in.buf), startSize)
			}
			for i := range 2000 {
				got, err := r.Read()
				if err != nil || strings.TrimSpace(string(got)) != msg {
					t.Fatalf("message %d: %q, %v", i, got, err)
				}
			}
			if len(in.buf) != bufSize {
				t.Errorf("after 2000 messages read at once the buffer holds %d bytes, want %d", len(in.buf), bufSize)
			}
		})
	}
}
