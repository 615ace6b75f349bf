// Package httphost is what the HTTP hosts, httprpc (net/http) and
// fasthttprpc (fasthttp), share, so that each bound and each rule is
// written once:
//
//   - Read, ReadGzip and ReadGzipBytes read a request body into a buffer
//     that grows as the bytes arrive, never past the body limit, taking
//     the buffer's room past budget.Small from the host's budget
//     (MaxBuffered) before it grows; a gzip body is inflated through the
//     same limit, which also bounds the bytes sent.
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
	"slices"
	"sync"

	"github.com/jsonrpc-go/jsonrpc/internal/budget"
)

// The errors of reading a body.
var (
	// ErrTooLarge: the body, as sent or inflated, is longer than the limit.
	ErrTooLarge = errors.New("jsonrpc: request body too large")
	// ErrBusy: the host's budget has no room for the body's buffer.
	ErrBusy = errors.New("jsonrpc: MaxBuffered spent")
)

// Read appends the body read from src to buf and returns it, with the
// bytes it took from b: the room of the buffer past budget.Small, which
// the caller gives back to b once it has let go of the buffer (the answer
// is written), whatever the error. contentLength is the body's length, or
// -1 when unknown; a body longer than limit fails with ErrTooLarge, having
// read at most limit+1 bytes of it. Room is made up front for a declared
// length up to budget.Small only: past that the buffer grows as the bytes
// arrive, so that a declared length costs nothing before its bytes come,
// and ends the size of the body.
func Read(buf []byte, src io.Reader, contentLength, limit int64, b *budget.Budget) ([]byte, int64, error) {
	if contentLength > limit {
		return buf, 0, ErrTooLarge
	}
	if contentLength >= 0 {
		// Room for the body and the read that reports EOF.
		buf = slices.Grow(buf, int(min(contentLength+1, budget.Small)))
	}
	var taken int64
	for {
		if int64(len(buf)) > limit {
			return buf, taken, ErrTooLarge
		}
		if len(buf) == cap(buf) {
			next := grow(buf, contentLength, limit)
			if !b.Hold(&taken, int64(max(cap(next)-budget.Small, 0))) {
				return buf, taken, ErrBusy
			}
			buf = next
		}
		// At most one byte past the limit, which is how it is found.
		end := int(min(int64(cap(buf)), limit+1))
		n, err := src.Read(buf[len(buf):end])
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
// inflate to (ErrTooLarge past either). A body that is not valid gzip
// fails with gzip's error.
func ReadGzip(buf []byte, src io.Reader, limit int64, b *budget.Budget) ([]byte, int64, error) {
	z := inflaters.Get().(*inflater)
	defer z.free()
	z.sent = limitReader{r: src, limit: limit}
	z.br.Reset(&z.sent)
	return z.read(buf, &z.br, limit, b)
}

// ReadGzipBytes is ReadGzip for a body in memory.
func ReadGzipBytes(buf, body []byte, limit int64, b *budget.Budget) ([]byte, int64, error) {
	z := inflaters.Get().(*inflater)
	defer z.free()
	z.mem.Reset(body)
	return z.read(buf, &z.mem, limit, b) // an io.ByteReader: gzip reads it without a bufio.Reader
}

// inflater is a pooled gzip reader and its sources: a body in memory, or a
// streamed one read through a limit and a buffer.
type inflater struct {
	mem  bytes.Reader
	sent limitReader
	br   bufio.Reader // gzip.Reader.Reset would make one per streamed body
	zr   gzip.Reader
}

var inflaters = sync.Pool{New: func() any { return new(inflater) }}

func (z *inflater) read(buf []byte, src io.Reader, limit int64, b *budget.Budget) ([]byte, int64, error) {
	if err := z.zr.Reset(src); err != nil {
		return buf, 0, err
	}
	return Read(buf, &z.zr, -1, limit, b)
}

// free puts z back in the pool, without the body.
func (z *inflater) free() {
	z.mem.Reset(nil)
	z.sent = limitReader{}
	z.br.Reset(nil)
	inflaters.Put(z)
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
