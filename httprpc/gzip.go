package httprpc

import (
	"bytes"
	"compress/gzip"
	"strings"
	"sync"
)

// DefaultCompressMin is the default size, in bytes, from which an answer
// is compressed for a client that accepts gzip: 1400, about what one
// Ethernet frame carries, below which compression saves no packet. See
// Handler.CompressMin.
const DefaultCompressMin = 1400

// coding is a request's Content-Encoding, as the handler reads it.
type coding int

const (
	identity    coding = iota // none, or identity
	gzipped                   // gzip or x-gzip
	unsupported               // any other, or more than one
)

// requestCoding returns the coding of a request body with the
// Content-Encoding header values vals.
func requestCoding(vals []string) coding {
	c := identity
	for _, v := range vals {
		for part := range strings.SplitSeq(v, ",") {
			switch part = strings.TrimSpace(part); {
			case part == "" || strings.EqualFold(part, "identity"):
			case c == identity && (strings.EqualFold(part, "gzip") || strings.EqualFold(part, "x-gzip")):
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
func acceptsGzip(vals []string) bool {
	for _, v := range vals {
		for part := range strings.SplitSeq(v, ",") {
			name, params, _ := strings.Cut(part, ";")
			name = strings.TrimSpace(name)
			if !strings.EqualFold(name, "gzip") && !strings.EqualFold(name, "x-gzip") {
				continue
			}
			return !zeroWeight(params)
		}
	}
	return false
}

// zeroWeight reports whether the parameters of an Accept-Encoding element
// give it the weight q=0.
func zeroWeight(params string) bool {
	for p := range strings.SplitSeq(params, ";") {
		k, v, _ := strings.Cut(strings.TrimSpace(p), "=")
		if strings.EqualFold(strings.TrimSpace(k), "q") {
			v = strings.TrimRight(strings.TrimSpace(v), "0")
			return v == "" || v == "0." || v == "0"
		}
	}
	return false
}

// deflater is a pooled gzip writer and the buffer it writes to.
type deflater struct {
	zw  *gzip.Writer
	buf bytes.Buffer
}

var deflaters = sync.Pool{New: func() any {
	d := new(deflater)
	d.zw, _ = gzip.NewWriterLevel(&d.buf, gzip.BestSpeed)
	return d
}}

// compress returns resp compressed in a pooled deflater, to be put back
// with putDeflater once written; nil when compression would not make it
// smaller.
func compress(resp []byte) *deflater {
	d := deflaters.Get().(*deflater)
	d.buf.Reset()
	d.zw.Reset(&d.buf)
	d.zw.Write(resp) // a bytes.Buffer does not fail
	d.zw.Close()
	if d.buf.Len() >= len(resp) {
		putDeflater(d)
		return nil
	}
	return d
}

func putDeflater(d *deflater) {
	if d.buf.Cap() > maxHTTPBuffer {
		return
	}
	deflaters.Put(d)
}

// Header values shared by every answer that sets them; see jsonContentType.
var (
	gzipEncoding       = []string{"gzip"}
	varyAcceptEncoding = []string{"Accept-Encoding"}
)
