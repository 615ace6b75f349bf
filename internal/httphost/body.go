// Package httphost is what the HTTP hosts, httprpc (net/http) and
// fasthttprpc (fasthttp), share, so that each bound and each rule is
// written once:
//
//   - Read, ReadGzip and ReadGzipBytes read a request body into a buffer
//     that grows as the bytes arrive, never past the body limit, taking
//     the buffer's room past transport.SmallMessage from the host's budget
//     (MaxBuffered) before it grows; a gzip body is inflated through the
//     same limit, which also bounds the bytes sent, large bodies taking
//     turns to inflate.
//   - Process answers a document with ProcessAsync and waits for the
//     answer, and answers it in the method's place when a method ends the
//     host's goroutine with runtime.Goexit.
package httphost

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"runtime"
	"slices"
	"sync"

	"github.com/jsonrpc-go/jsonrpc/transport"
)

// The errors of reading a body.
var (
	// ErrTooLarge: the body, as sent or inflated, is longer than the limit.
	ErrTooLarge = errors.New("jsonrpc: request body too large")
	// ErrBusy: the host's budget has no room for the body's buffer.
	ErrBusy = errors.New("jsonrpc: MaxBuffered spent")
)

// Read appends the body read from src to buf and returns it, with the
// bytes it took from b: the room of the buffer past transport.SmallMessage, which
// the caller gives back to b once it has let go of the buffer (the answer
// is written), whatever the error. contentLength is the body's length, or
// -1 when unknown; a body longer than limit fails with ErrTooLarge, having
// read at most limit+1 bytes of it. Room is made up front for a declared
// length up to transport.SmallMessage only: past that the buffer grows as the bytes
// arrive, so that a declared length costs nothing before its bytes come,
// and ends the size of the body. A declared length that would not fit in
// what b has left fails with ErrBusy before anything is read.
func Read(buf []byte, src io.Reader, contentLength, limit int64, b *transport.Budget) ([]byte, int64, error) {
	return read(buf, src, contentLength, limit, b, nil)
}

// read is Read, and reads src in turns as t says when t is not nil.
func read(buf []byte, src io.Reader, contentLength, limit int64, b *transport.Budget, t *turnsAfter) ([]byte, int64, error) {
	if contentLength > limit {
		return buf, 0, ErrTooLarge
	}
	if contentLength >= 0 {
		// A body that would not fit in what the budget has left is
		// refused before any of it is read or any room is made for it.
		if need := contentLength + 1 - transport.SmallMessage; need > 0 && need > b.Room() {
			return buf, 0, ErrBusy
		}
		// Room for the body and the read that reports EOF.
		buf = slices.Grow(buf, int(min(contentLength+1, transport.SmallMessage)))
	}
	var taken int64
	for {
		if int64(len(buf)) > limit {
			return buf, taken, ErrTooLarge
		}
		if len(buf) == cap(buf) {
			next := grow(buf, contentLength, limit)
			if !b.Hold(&taken, int64(max(cap(next)-transport.SmallMessage, 0))) {
				return buf, taken, ErrBusy
			}
			buf = next
		}
		// At most one byte past the limit, which is how it is found.
		end := int(min(int64(cap(buf)), limit+1))
		var (
			n   int
			err error
		)
		if t != nil && len(buf) >= t.from {
			n, err = t.inTurn(src, buf[len(buf):end])
		} else {
			n, err = src.Read(buf[len(buf):end])
		}
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			if int64(len(buf)) > limit {
				return buf, taken, ErrTooLarge
			}
			return buf, taken, nil
		}
		if err != nil {
			return buf, taken, err
		}
	}
}

// grow returns full with room for more: twice its capacity (at least 512
// bytes), but no more than the body and the read that reports EOF need
// when contentLength (not negative) says what that is, nor than limit+1;
// when twice would hold the body but not that read, the room for both.
func grow(full []byte, contentLength, limit int64) []byte {
	end := limit + 1
	if contentLength >= 0 {
		end = min(end, contentLength+1)
	}
	n := max(2*int64(cap(full)), 512)
	if n >= end-1 {
		// The body fits: room for it and the read of EOF, and no more.
		n = max(end, int64(cap(full))+1)
	}
	b := make([]byte, len(full), n)
	copy(b, full)
	return b
}

// ReadGzip appends the gzip body read from src to buf, inflated, as Read
// does: limit bounds both the bytes read from src and the bytes they
// inflate to (ErrTooLarge past either), so that a bomb stops being read
// and inflated once it passes the limit. A body that is not valid gzip
// fails with gzip's error. contentLength, when not negative, is the length
// of the body sent; one over limit fails at once.
//
// Past transport.SmallMessage inflated bytes, a body is inflated 256 KiB at a time,
// each time in a turn of the ones that half of GOMAXPROCS (at least one)
// allow at once, as jsonrpc.Limits.MaxLarge: a body of a few kilobytes
// that inflates to megabytes costs a thousand times what it took to send,
// and without turns a hundred of them at once held every processor, and
// the other clients' calls waited hundreds of milliseconds. A turn covers
// the inflating only: it is let go while the body's bytes are awaited.
func ReadGzip(buf []byte, src io.Reader, contentLength, limit int64, b *transport.Budget) ([]byte, int64, error) {
	if contentLength > limit {
		return buf, 0, ErrTooLarge
	}
	z := inflaters.Get().(*inflater)
	defer z.free()
	z.sent = limitReader{r: src, limit: limit}
	z.src = turnSource{r: &z.sent}
	z.br.Reset(&z.src)
	return z.read(buf, &z.br, limit, b)
}

// ReadGzipBytes is ReadGzip for a body in memory.
func ReadGzipBytes(buf, body []byte, limit int64, b *transport.Budget) ([]byte, int64, error) {
	z := inflaters.Get().(*inflater)
	defer z.free()
	z.mem.Reset(body)
	return z.read(buf, &z.mem, limit, b) // an io.ByteReader: gzip reads it without a bufio.Reader
}

// inflater is a pooled gzip reader and its sources: a body in memory, or a
// streamed one read through a limit, a turn's release and a buffer.
type inflater struct {
	mem  bytes.Reader
	sent limitReader
	src  turnSource
	br   bufio.Reader // gzip.Reader.Reset would make one per streamed body
	zr   gzip.Reader
}

var inflaters = sync.Pool{New: func() any { return new(inflater) }}

func (z *inflater) read(buf []byte, src io.Reader, limit int64, b *transport.Budget) ([]byte, int64, error) {
	if err := z.zr.Reset(src); err != nil {
		return buf, 0, err
	}
	return read(buf, &z.zr, -1, limit, b, &turnsAfter{from: len(buf) + transport.SmallMessage, src: &z.src})
}

// free puts z back in the pool, without the body.
func (z *inflater) free() {
	z.mem.Reset(nil)
	z.sent = limitReader{}
	z.src = turnSource{}
	z.br.Reset(nil)
	inflaters.Put(z)
}

// turns holds a token for each body being inflated past transport.SmallMessage: half
// of GOMAXPROCS, at least one.
var turns = make(chan struct{}, max(1, runtime.GOMAXPROCS(0)/2))

// turnChunk is the most a turn inflates.
const turnChunk = 256 << 10

// turnsAfter is how read inflates in turns: once the buffer holds from
// bytes, each read holds a turn, which src lets go while it waits for the
// body's bytes.
type turnsAfter struct {
	from int
	src  *turnSource
}

// inTurn reads r into p, of at most turnChunk bytes, holding a turn.
func (t *turnsAfter) inTurn(r io.Reader, p []byte) (int, error) {
	turns <- struct{}{}
	t.src.held = true
	defer func() {
		t.src.held = false
		<-turns
	}()
	return r.Read(p[:min(len(p), turnChunk)])
}

// turnSource reads a streamed body, letting go of the turn its inflater
// holds, if any, while it waits for the bytes.
type turnSource struct {
	r    io.Reader
	held bool // a turn is held: let go of it around each read
}

func (s *turnSource) Read(p []byte) (int, error) {
	if !s.held {
		return s.r.Read(p)
	}
	<-turns
	defer func() { turns <- struct{}{} }()
	return s.r.Read(p)
}

// limitReader reads r and fails with ErrTooLarge once it has read more
// than limit bytes.
type limitReader struct {
	r     io.Reader
	limit int64
	n     int64
}

func (l *limitReader) Read(p []byte) (int, error) {
	if l.n > l.limit {
		return 0, ErrTooLarge
	}
	if room := l.limit + 1 - l.n; int64(len(p)) > room {
		p = p[:room]
	}
	n, err := l.r.Read(p)
	l.n += int64(n)
	if l.n > l.limit {
		return n, ErrTooLarge
	}
	return n, err
}

// ClientBudget returns the view of b for client (transport.Budget.Client)
// that a body of contentLength (-1 when unknown) is read through, so that
// a large one counts against its client's share: b itself when the body
// cannot take from b (a declared length within transport.SmallMessage,
// not gzipped), so that small bodies make no view. The view comes from
// last when it holds one of b for client, and is kept there otherwise
// (last may be nil: no reuse).
func ClientBudget(b *transport.Budget, client string, contentLength int64, gzipped bool, last *LastView) *transport.Budget {
	if !gzipped && contentLength >= 0 && contentLength < transport.SmallMessage {
		return b
	}
	if last != nil && last.view != nil && last.of == b && last.client == client {
		return last.view
	}
	v := b.Client(client)
	if last != nil && v != b {
		*last = LastView{view: v, of: b, client: client}
	}
	return v
}

// A LastView keeps the view that ClientBudget made last, with the pooled
// state of an exchange, so that the bodies of one client cost no view
// each: a view holds nothing of its own, and serves every body of its
// client. The zero value holds none.
type LastView struct {
	view, of *transport.Budget
	client   string
}
