package httphost

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/transport"
)

// readers are the ways a body arrives: whole, a byte at a time, half of
// each read.
var readers = []struct {
	name string
	wrap func(io.Reader) io.Reader
}{
	{"whole", func(r io.Reader) io.Reader { return r }},
	{"one byte", iotest.OneByteReader},
	{"half", iotest.HalfReader},
}

// countingReader counts the bytes read from it.
type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

func TestRead(t *testing.T) {
	body := strings.Repeat("0123456789", 30_000) // 300 KB: past transport.SmallMessage
	for _, rd := range readers {
		for _, length := range []int64{int64(len(body)), -1} {
			b := transport.NewBudget(1 << 20)
			got, taken, err := Read(make([]byte, 0, 4096), rd.wrap(strings.NewReader(body)), length, 1<<20, b)
			if err != nil || string(got) != body {
				t.Fatalf("%s, length %d: %d bytes, %v", rd.name, length, len(got), err)
			}
			if want := int64(cap(got) - transport.SmallMessage); taken != want || b.Used() != taken {
				t.Errorf("%s, length %d: took %d, budget used %d, want the room past Small, %d", rd.name, length, taken, b.Used(), want)
			}
			if length >= 0 && cap(got) != len(body)+1 {
				t.Errorf("%s: a body of declared length %d in a buffer of %d", rd.name, length, cap(got))
			}
			b.Give(taken)
		}
	}
}

// A body over the limit fails with ErrTooLarge once a byte past it is read,
// whatever length it declares or however it arrives.
func TestReadTooLarge(t *testing.T) {
	const limit = 100_000
	body := strings.Repeat("x", 3*limit)
	for _, rd := range readers {
		for _, length := range []int64{-1, int64(len(body))} {
			src := &countingReader{r: rd.wrap(strings.NewReader(body))}
			_, taken, err := Read(nil, src, length, limit, transport.NewBudget(1<<30))
			if !errors.Is(err, ErrTooLarge) {
				t.Errorf("%s, length %d: %v, want ErrTooLarge", rd.name, length, err)
			}
			if src.n > limit+1 {
				t.Errorf("%s, length %d: read %d bytes of a limit of %d", rd.name, length, src.n, limit)
			}
			if taken > limit+1-transport.SmallMessage {
				t.Errorf("%s, length %d: took %d bytes for a limit of %d", rd.name, length, taken, limit)
			}
		}
	}
	// A body of exactly the limit is read.
	if got, _, err := Read(nil, strings.NewReader(body[:limit]), -1, limit, transport.NewBudget(1<<30)); err != nil || len(got) != limit {
		t.Errorf("a body at the limit: %d bytes, %v", len(got), err)
	}
}

// A body whose buffer would pass the budget fails with ErrBusy, having
// taken what it holds, and nothing more; small bodies take nothing.
func TestReadBusy(t *testing.T) {
	b := transport.NewBudget(200 << 10)
	body := strings.Repeat("x", 1<<20)
	_, taken, err := Read(nil, strings.NewReader(body), -1, 4<<20, b)
	if !errors.Is(err, ErrBusy) {
		t.Fatalf("a 1 MiB body in a budget of 200 KiB: %v, want ErrBusy", err)
	}
	if taken > 200<<10 || b.Used() != taken {
		t.Errorf("took %d, budget used %d", taken, b.Used())
	}
	b.Give(taken)
	// A declared length that would not fit is refused before a byte of it
	// is read; one that fits is read.
	src := &countingReader{r: strings.NewReader(body)}
	if _, taken, err := Read(nil, src, int64(len(body)), 4<<20, b); !errors.Is(err, ErrBusy) || src.n != 0 || taken != 0 {
		t.Errorf("a declared 1 MiB in a budget of 200 KiB: %v, read %d, took %d; want ErrBusy, nothing read", err, src.n, taken)
	}
	fits := body[:100<<10]
	if got, taken, err := Read(nil, strings.NewReader(fits), int64(len(fits)), 4<<20, b); err != nil || len(got) != len(fits) {
		t.Errorf("a declared 100 KiB in a budget of 200 KiB: %d bytes, %v", len(got), err)
	} else {
		b.Give(taken)
	}
	small := strings.Repeat("y", transport.SmallMessage-1)
	if got, taken, err := Read(nil, strings.NewReader(small), int64(len(small)), 4<<20, transport.NewBudget(0)); err != nil || string(got) != small || taken != 0 {
		t.Errorf("a small body with no budget: %d bytes, took %d, %v", len(got), taken, err)
	}
}

func gz(t *testing.T, s string) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	io.WriteString(zw, s)
	zw.Close()
	return b.Bytes()
}

func TestReadGzip(t *testing.T) {
	body := strings.Repeat("0123456789", 30_000)
	z := gz(t, body)
	for _, rd := range readers {
		b := transport.NewBudget(1 << 20)
		got, taken, err := ReadGzip(nil, rd.wrap(bytes.NewReader(z)), -1, 1<<20, b)
		if err != nil || string(got) != body || taken != b.Used() || taken == 0 {
			t.Errorf("%s: %d bytes, took %d (budget %d), %v", rd.name, len(got), taken, b.Used(), err)
		}
		// With its length declared, as sent.
		b.Give(taken)
		got, taken, err = ReadGzip(nil, rd.wrap(bytes.NewReader(z)), int64(len(z)), 1<<20, b)
		if err != nil || string(got) != body || taken != b.Used() {
			t.Errorf("%s, of declared length: %d bytes, took %d (budget %d), %v", rd.name, len(got), taken, b.Used(), err)
		}
	}
	got, _, err := ReadGzipBytes(nil, z, 1<<20, transport.NewBudget(1<<20))
	if err != nil || string(got) != body {
		t.Errorf("in memory: %d bytes, %v", len(got), err)
	}

	// A bomb: 16 MiB of zeros stop at the limit, streamed or in memory.
	bomb := gz(t, strings.Repeat("\x00", 16<<20))
	const limit = 1 << 20
	got, _, err = ReadGzip(nil, bytes.NewReader(bomb), -1, limit, transport.NewBudget(1<<30))
	if !errors.Is(err, ErrTooLarge) || len(got) > limit+1 {
		t.Errorf("a bomb, streamed: %d bytes, %v; want ErrTooLarge", len(got), err)
	}
	got, _, err = ReadGzipBytes(nil, bomb, limit, transport.NewBudget(1<<30))
	if !errors.Is(err, ErrTooLarge) || len(got) > limit+1 {
		t.Errorf("a bomb, in memory: %d bytes, %v; want ErrTooLarge", len(got), err)
	}

	// The bytes sent are bounded too: a gzip body longer than the limit
	// that inflates to less (stored blocks of random bytes would; here the
	// limit is under the compressed size).
	src := &countingReader{r: bytes.NewReader(z)}
	if _, _, err := ReadGzip(nil, src, -1, int64(len(z)/2), transport.NewBudget(1<<30)); !errors.Is(err, ErrTooLarge) || src.n > len(z)/2+1 {
		t.Errorf("a gzip body of %d bytes, limit %d: read %d, %v; want ErrTooLarge", len(z), len(z)/2, src.n, err)
	}

	// Not gzip at all, and gzip cut short.
	if _, _, err := ReadGzip(nil, strings.NewReader("{}"), -1, limit, transport.NewBudget(1<<30)); err == nil {
		t.Error("a body that is not gzip was read")
	}
	if _, _, err := ReadGzipBytes(nil, z[:len(z)/2], limit, transport.NewBudget(1<<30)); err == nil {
		t.Error("a gzip body cut short was read")
	}
}

// exchange is what a host gives Process: a reply that signals done.
type exchange struct {
	answer    []byte
	done      chan struct{}
	abandoned func([]byte)
}

func (x *exchange) reply(resp []byte) {
	x.answer = append([]byte(nil), resp...)
	x.done <- struct{}{}
}

func TestProcess(t *testing.T) {
	srv := jsonrpc.NewServer()
	srv.MustRegister("add", func(a, b int) int { return a + b })
	srv.MustRegister("quit", func() int { runtime.Goexit(); return 0 })
	run := func(req string) (answer, abandoned []byte, called bool) {
		x := &exchange{done: make(chan struct{}, 1)}
		ended := make(chan struct{})
		go func() {
			defer close(ended)
			Process(context.Background(), srv, nil, []byte(req), x.reply, x.done, func(a []byte) {
				abandoned, called = a, true
			})
		}()
		<-ended
		return x.answer, abandoned, called
	}

	if a, _, called := run(`{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`); called || string(a) != `{"jsonrpc":"2.0","result":3,"id":1}` {
		t.Errorf("add: answered %s, abandoned called %v", a, called)
	}
	want := `{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error","data":"the call ended without returning (runtime.Goexit)"},"id":7}`
	if a, ab, called := run(`{"jsonrpc":"2.0","method":"quit","id":7}`); !called || a != nil || string(ab) != want {
		t.Errorf("quit: answered %s, abandoned %v with %s; want %s", a, called, ab, want)
	}
	// A batch: every call with an id gets the error, as the whole
	// document is answered in the method's place.
	batch := `[{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1},{"jsonrpc":"2.0","method":"quit","id":2},{"jsonrpc":"2.0","method":"quit"}]`
	if _, ab, called := run(batch); !called || !strings.HasPrefix(string(ab), "[") || strings.Count(string(ab), "-32603") != 2 {
		t.Errorf("a batch: abandoned %v with %s", called, ab)
	}
	// A notification has no answer to give.
	if _, ab, called := run(`{"jsonrpc":"2.0","method":"quit"}`); !called || len(ab) != 0 {
		t.Errorf("a notification: abandoned %v with %q", called, ab)
	}
}

// A panic that reaches Process goes on as it came, for the HTTP server to
// recover.
func TestProcessPanic(t *testing.T) {
	type mine struct{}
	h := handlerFunc(func(context.Context, []byte, []byte, func([]byte)) { panic(mine{}) })
	var got any
	called := false
	func() {
		defer func() { got = recover() }()
		Process(context.Background(), h, nil, []byte(`{}`), func([]byte) {}, make(chan struct{}, 1), func([]byte) { called = true })
	}()
	if _, ok := got.(mine); !ok || called {
		t.Errorf("recovered %v, abandoned called %v; want the handler's panic, not called", got, called)
	}
}

type handlerFunc func(ctx context.Context, dst, req []byte, reply func([]byte))

func (f handlerFunc) ProcessAsync(ctx context.Context, dst, req []byte, reply func([]byte)) {
	f(ctx, dst, req, reply)
}

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
// garbage it makes, follow what it sent. So does a body of unknown length.
func TestReadGrowth(t *testing.T) {
	for _, n := range []int{100 << 10, 1 << 20, 4<<20 - 1} {
		for _, length := range []int64{int64(n), -1} {
			// The least of a few runs: TotalAlloc counts the whole process.
			got := uint64(1<<64 - 1)
			for range 5 {
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				buf, _, err := Read(make([]byte, 0, 4096), &chunks{left: n}, length, 4<<20, transport.NewBudget(1<<40))
				runtime.ReadMemStats(&after)
				if err != nil || len(buf) != n {
					t.Fatalf("%d bytes: read %d, %v", n, len(buf), err)
				}
				if c := cap(buf); length >= 0 && c > n+1+8<<10 {
					t.Fatalf("%d bytes: a buffer of %d", n, c)
				}
				got = min(got, after.TotalAlloc-before.TotalAlloc)
			}
			// Doubling allocates twice the body when its length is known,
			// and up to four times when the last doubling is for the read
			// of EOF.
			want := 3.0
			if length < 0 {
				want = 4.5
			}
			if float64(got) > want*float64(n) {
				t.Errorf("%d bytes, length %d: %d allocated, %.1f× the body; want under %.1f×", n, length, got, float64(got)/float64(n), want)
			}
		}
	}
}

// Bodies that inflate past transport.SmallMessage take turns, half of GOMAXPROCS at
// once: while every turn is held, a small body inflates and a large one
// waits; it goes on once a turn is free.
func TestInflateTurns(t *testing.T) {
	small := gz(t, strings.Repeat("s", transport.SmallMessage/2))
	large := gz(t, strings.Repeat("l", 1<<20))
	for range cap(turns) {
		turns <- struct{}{}
	}
	released := false
	release := func() {
		if !released {
			released = true
			for range cap(turns) {
				<-turns
			}
		}
	}
	defer release()
	if got, _, err := ReadGzipBytes(nil, small, 1<<20, transport.NewBudget(1<<30)); err != nil || len(got) != transport.SmallMessage/2 {
		t.Fatalf("a small body while every turn is held: %d bytes, %v", len(got), err)
	}
	done := make(chan error, 1)
	go func() {
		got, _, err := ReadGzipBytes(nil, large, 4<<20, transport.NewBudget(1<<30))
		if err == nil && len(got) != 1<<20 {
			err = fmt.Errorf("%d bytes", len(got))
		}
		done <- err
	}()
	select {
	case err := <-done:
		t.Fatalf("a large body inflated while every turn was held: %v", err)
	default: // it cannot end without a turn
	}
	release()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// A streamed body lets go of its turn while it waits for its bytes: with
// one waiting in the middle of a large body and every other turn held, a
// large body in memory still inflates.
func TestInflateTurnWhileWaiting(t *testing.T) {
	data := strings.Repeat("abcdefgh", 128<<10) // 1 MiB
	z := gz(t, data)
	for range cap(turns) - 1 {
		turns <- struct{}{}
	}
	defer func() {
		for range cap(turns) - 1 {
			<-turns
		}
	}()
	pr, pw := io.Pipe()
	waiting := make(chan struct{})
	src := &signalReader{r: pr, after: 1, waiting: waiting}
	streamed := make(chan error, 1)
	go func() {
		got, _, err := ReadGzip(nil, src, -1, 4<<20, transport.NewBudget(1<<30))
		if err == nil && string(got) != data {
			err = fmt.Errorf("%d bytes", len(got))
		}
		streamed <- err
	}()
	// The streamed body takes the first half, inflates it (past
	// transport.SmallMessage, in a turn) and then waits for the rest.
	if _, err := pw.Write(z[:len(z)/2]); err != nil {
		t.Fatal(err)
	}
	<-waiting
	done := make(chan error, 1)
	go func() {
		_, _, err := ReadGzipBytes(nil, z, 4<<20, transport.NewBudget(1<<30))
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second): // a failure bound, not a wait for work
		t.Fatal("a body in memory did not inflate beside a streamed one waiting for its bytes")
	}
	pw.Write(z[len(z)/2:])
	pw.Close()
	if err := <-streamed; err != nil {
		t.Fatal(err)
	}
}

// signalReader reads r, and closes waiting as its read after the first
// after ones begins.
type signalReader struct {
	r       io.Reader
	after   int
	waiting chan struct{}
	reads   int
}

func (s *signalReader) Read(p []byte) (int, error) {
	if s.reads == s.after {
		close(s.waiting)
	}
	s.reads++
	return s.r.Read(p)
}
