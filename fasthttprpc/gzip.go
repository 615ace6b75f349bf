package fasthttprpc

import (
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
