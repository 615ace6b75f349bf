package fasthttprpc

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"io"
	"sync"

	"github.com/jsonrpc-go/jsonrpc/internal/wire"
)

// DefaultCompressMin is the default size, in bytes, from which an answer
// is compressed for a client that accepts gzip: 1400, as
// httprpc.DefaultCompressMin. See Handler.CompressMin.
const DefaultCompressMin = 1400

// coding is a request's Content-Encoding, as the handler reads it.
type coding int

const (
	identity    coding = iota // none, or identity
	gzipped                   // gzip or x-gzip
	unsupported               // any other, or more than one
)

var (
	comma     = []byte(",")
	semicolon = []byte(";")
	equals    = []byte("=")
)

// requestCoding returns the coding of a request body with the
// Content-Encoding header values vals, as httprpc reads them.
func requestCoding(vals [][]byte) coding {
	c := identity
	for _, v := range vals {
		for len(v) > 0 {
			var part []byte
			part, v, _ = bytes.Cut(v, comma)
			switch part = bytes.TrimSpace(part); {
			case len(part) == 0 || wire.EqualFoldASCII(part, "identity"):
			case c == identity && (wire.EqualFoldASCII(part, "gzip") || wire.EqualFoldASCII(part, "x-gzip")):
				c = gzipped
			default:
				return unsupported
			}
		}
	}
	return c
}

// acceptsGzip reports whether the Accept-Encoding header values vals
// accept gzip: they name gzip (or x-gzip) with a weight that is not zero.
func acceptsGzip(vals [][]byte) bool {
	for _, v := range vals {
		for len(v) > 0 {
			var part []byte
			part, v, _ = bytes.Cut(v, comma)
			name, params, _ := bytes.Cut(part, semicolon)
			name = bytes.TrimSpace(name)
			if !wire.EqualFoldASCII(name, "gzip") && !wire.EqualFoldASCII(name, "x-gzip") {
				continue
			}
			return !zeroWeight(params)
		}
	}
	return false
}

// zeroWeight reports whether the parameters of an Accept-Encoding element
// give it the weight q=0.
func zeroWeight(params []byte) bool {
	for len(params) > 0 {
		var p []byte
		p, params, _ = bytes.Cut(params, semicolon)
		k, v, _ := bytes.Cut(bytes.TrimSpace(p), equals)
		if wire.EqualFoldASCII(bytes.TrimSpace(k), "q") {
			v = bytes.TrimRight(bytes.TrimSpace(v), "0")
			return len(v) == 0 || string(v) == "0." || string(v) == "0"
		}
	}
	return false
}

// inflater is a pooled gzip reader of a request body, which fails with
// errBodyTooLarge once the inflated body passes limit. A streamed body is
// read through a limit of its own, the same limit on the bytes sent.
type inflater struct {
	mem   bytes.Reader // a body fasthttp read
	sent  limitReader  // a streamed body
	br    bufio.Reader // gzip.Reader.Reset would make one per streamed body
	zr    gzip.Reader
	limit int
	n     int // bytes inflated so far
}

var inflaters sync.Pool // *inflater

// newInflater returns an inflater of the body in memory, or of the streamed
// body when stream is not nil, or the error of the gzip header.
func newInflater(body []byte, stream io.Reader, limit int) (*inflater, error) {
	z, _ := inflaters.Get().(*inflater)
	if z == nil {
		z = new(inflater)
	}
	var src io.Reader
	if stream != nil {
		z.sent = limitReader{r: stream, limit: limit}
		z.br.Reset(&z.sent)
		src = &z.br
	} else {
		z.mem.Reset(body)
		src = &z.mem // an io.ByteReader: gzip reads it without a bufio.Reader
	}
	if err := z.zr.Reset(src); err != nil {
		z.free()
		return nil, err
	}
	z.limit, z.n = limit, 0
	return z, nil
}

func (z *inflater) Read(p []byte) (int, error) {
	if z.n > z.limit {
		return 0, errBodyTooLarge
	}
	// Read at most one byte past the limit, which is how it is found.
	if room := z.limit + 1 - z.n; len(p) > room {
		p = p[:room]
	}
	n, err := z.zr.Read(p)
	z.n += n
	if z.n > z.limit {
		return n, errBodyTooLarge
	}
	return n, err
}

// free puts z back in the pool, without the body.
func (z *inflater) free() {
	z.mem.Reset(nil)
	z.sent = limitReader{}
	z.br.Reset(nil)
	inflaters.Put(z)
}

// limitReader reads r and fails with errBodyTooLarge once it has read more
// than limit bytes.
type limitReader struct {
	r     io.Reader
	limit int
	n     int
}

func (l *limitReader) Read(p []byte) (int, error) {
	if l.n > l.limit {
		return 0, errBodyTooLarge
	}
	if room := l.limit + 1 - l.n; len(p) > room {
		p = p[:room]
	}
	n, err := l.r.Read(p)
	l.n += n
	if l.n > l.limit {
		return n, errBodyTooLarge
	}
	return n, err
}

// readGzip appends the body that z inflates to buf and returns it.
func readGzip(buf []byte, z *inflater) ([]byte, error) {
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		m, err := z.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+m]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

// deflaters pools gzip writers at gzip.BestSpeed.
var deflaters = sync.Pool{New: func() any {
	zw, _ := gzip.NewWriterLevel(nil, gzip.BestSpeed)
	return zw
}}

// compress writes resp, compressed, to w, through a pooled writer.
func compress(w io.Writer, resp []byte) {
	zw := deflaters.Get().(*gzip.Writer)
	zw.Reset(w)
	zw.Write(resp) // fasthttp's body buffer does not fail
	zw.Close()
	zw.Reset(nil) // drop w
	deflaters.Put(zw)
}
