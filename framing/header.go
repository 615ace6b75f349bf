package framing

import (
	"bytes"
	"fmt"
	"io"

	"github.com/jsonrpc-go/jsonrpc/internal/wire"
)

type headerFraming struct{}

func (headerFraming) String() string { return "Header" }

func (headerFraming) NewReader(r io.Reader, max int) Reader {
	max = limitOf(max)
	return &headerReader{in: newInbuf(r, max), max: max}
}

func (headerFraming) NewWriter(w io.Writer) Writer { return newFrameWriter(w, frameHeader) }

type headerReader struct {
	in    inbuf
	max   int
	skip  int64 // body bytes of a too-large message still to discard
	err   error // sticky malformed-framing error
	inMsg bool  // a header line of the message being read has been read
	ids   idScan
	// ready says that Ready found the next message whole: its body begins
	// body bytes after in.r and is length bytes long, for Read to take.
	ready        bool
	body, length int
}

func (h *headerReader) Buffered() int { return h.in.buffered() }

// Begun: the blank lines allowed between messages do not begin one.
func (h *headerReader) Begun() bool { return h.inMsg || h.skip > 0 || !h.in.onlySpace() }

// Ready reports whether Read returns without reading: a header block and
// the body it declares are buffered whole, or Read fails at once (a
// malformed header block). A body being skipped, or anything it cannot
// tell, is not ready.
func (h *headerReader) Ready() bool {
	in := &h.in
	if h.err != nil || in.err != nil {
		return true
	}
	if h.skip > 0 {
		return false
	}
	b := in.buf[in.r:in.w]
	// The block as this package's Writer and most peers write it, one
	// Content-Length line, read at once.
	const field = "Content-Length: "
	if len(b) > len(field) && string(b[:len(field)]) == field {
		i, n := len(field), 0
		for i < len(b) && i < len(field)+9 && b[i] >= '0' && b[i] <= '9' {
			n = n*10 + int(b[i]-'0')
			i++
		}
		if i > len(field) && len(b) >= i+4 && string(b[i:i+4]) == "\r\n\r\n" && n <= h.max {
			if len(b)-(i+4) < n {
				return false // the body is not all in
			}
			h.ready, h.body, h.length = true, i+4, n
			return true
		}
	}
	length := int64(-1)
	first := true
	start := 0 // where the block begins, past blank lines
	for pos := 0; ; {
		i := bytes.IndexByte(b[pos:], '\n')
		if i < 0 {
			return len(b)-start > MaxHeaderBlock // malformed
		}
		line := b[pos : pos+i]
		pos += i + 1
		if n := len(line); n > 0 && line[n-1] == '\r' {
			line = line[:n-1]
		}
		if len(line) == 0 {
			if first {
				start = pos
				continue
			}
			// The end of the block: ready once the body is in (a body
			// over the limit is skipped as it arrives).
			if length >= 0 && length <= int64(h.max) && int64(len(b)-pos) >= length {
				h.ready, h.body, h.length = true, pos, int(length)
				return true
			}
			return length < 0
		}
		first = false
		if badHeaderLine(line) != "" {
			return true // malformed
		}
		colon := bytes.IndexByte(line, ':')
		if wire.EqualFoldASCII(bytes.TrimRight(line[:colon], " \t"), "Content-Length") {
			n, ok := parseLength(bytes.Trim(line[colon+1:], " \t"))
			if !ok {
				return true // malformed
			}
			length = n
		}
	}
}

func (h *headerReader) Read() ([]byte, error) {
	if h.err != nil {
		return nil, h.err
	}
	defer func() { h.inMsg = false }()
	in := &h.in
	in.shrink()
	if h.ready {
		// Ready parsed the header block: the body is in hand.
		h.ready = false
		start := in.r + h.body
		body := in.buf[start : start+h.length]
		in.r = start + h.length
		return body, nil
	}
	// The header block.
	length := int64(-1)
	block := 0    // header bytes consumed
	scanned := 0  // unread bytes known to hold no newline
	first := true // no header line read yet
	for {
		i := bytes.IndexByte(in.buf[in.r+scanned:in.w], '\n')
		if i < 0 {
			scanned = in.w - in.r
			if block+scanned > MaxHeaderBlock {
				return nil, h.malformed("header block exceeds %d bytes", MaxHeaderBlock)
			}
			if err := in.fill(MaxHeaderBlock + 1); err != nil {
				if err == io.EOF && first && in.r == in.w {
					return nil, io.EOF
				}
				return nil, eofErr(err)
			}
			continue
		}
		end := in.r + scanned + i
		line := in.buf[in.r:end]
		block += len(line) + 1
		in.r, scanned = end+1, 0
		if block > MaxHeaderBlock {
			return nil, h.malformed("header block exceeds %d bytes", MaxHeaderBlock)
		}
		if n := len(line); n > 0 && line[n-1] == '\r' {
			line = line[:n-1]
		}
		if len(line) == 0 {
			if first {
				// Tolerate blank lines between messages.
				block = 0
				continue
			}
			break
		}
		first, h.inMsg = false, true
		if why := badHeaderLine(line); why != "" {
			return nil, h.malformed("%s", why)
		}
		colon := bytes.IndexByte(line, ':')
		if !wire.EqualFoldASCII(bytes.TrimRight(line[:colon], " \t"), "Content-Length") {
			continue // Content-Type and others are ignored
		}
		n, ok := parseLength(bytes.Trim(line[colon+1:], " \t"))
		if !ok {
			return nil, h.malformed("invalid Content-Length %q", clip(line[colon+1:]))
		}
		if length >= 0 && n != length {
			return nil, h.malformed("conflicting Content-Length headers")
		}
		length = n
	}
	if length < 0 {
		return nil, h.malformed("no Content-Length header")
	}
	if length > int64(h.max) {
		return nil, h.skipBody(length)
	}
	// The body.
	n := int(length)
	for in.w-in.r < n {
		if err := in.fill(n); err != nil {
			return nil, eofErr(err)
		}
	}
	body := in.buf[in.r : in.r+n]
	in.r += n
	return body, nil
}

// skipBody reads and discards the body of length bytes of a message over the
// limit, looking for its id, and returns the *TooLargeError that reports
// it. When the input ends first, it reports the message all the same, and
// the next Read io.ErrUnexpectedEOF.
func (h *headerReader) skipBody(length int64) error {
	in := &h.in
	h.skip = length
	h.ids.reset()
	for h.skip > 0 {
		if in.r == in.w {
			in.drop()
			if err := in.fill(len(in.buf)); err != nil {
				if err != io.EOF {
					return err
				}
				h.skip, h.err = 0, io.ErrUnexpectedEOF
				break
			}
		}
		n := int(min(int64(in.w-in.r), h.skip))
		h.ids.feed(in.buf[in.r : in.r+n])
		in.r += n
		h.skip -= int64(n)
	}
	return &TooLargeError{Limit: h.max, Length: length, Recoverable: true, ID: h.ids.ID()}
}

// headerHint ends the errors of a header line that is none: what the
// framing wants, and the framing the peer may be sending instead.
const headerHint = `: Header framing wants "Content-Length: N", a blank line, then N bytes of message (for one JSON message a line, use framing.Line)`

// badHeaderLine returns why line, not blank, cannot be a line of a header
// block, or "" when it can: it must be "Name: value", with a name of the
// token characters of HTTP (RFC 9110), which a JSON text cannot begin.
func badHeaderLine(line []byte) string {
	if t := bytes.TrimLeft(line, " \t"); len(t) > 0 && (t[0] == '{' || t[0] == '[') {
		return fmt.Sprintf("a JSON message %q where a header line was expected%s", clip(line), headerHint)
	}
	colon := bytes.IndexByte(line, ':')
	if colon <= 0 {
		return fmt.Sprintf("header line %q has no field name%s", clip(line), headerHint)
	}
	for _, c := range bytes.TrimRight(line[:colon], " \t") {
		if c >= 0x80 || !isTokenChar[c] {
			return fmt.Sprintf("header line %q has an invalid field name%s", clip(line), headerHint)
		}
	}
	return ""
}

// isTokenChar marks the ASCII bytes of an HTTP token (RFC 9110 5.6.2).
var isTokenChar = func() (t [128]bool) {
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	for c := 'a'; c <= 'z'; c++ {
		t[c], t[c-'a'+'A'] = true, true
	}
	for _, c := range "!#$%&'*+-.^_`|~" {
		t[c] = true
	}
	return t
}()

func (h *headerReader) malformed(format string, args ...any) error {
	h.err = fmt.Errorf("%w: %s", ErrMalformed, fmt.Sprintf(format, args...))
	return h.err
}

// parseLength parses a Content-Length value: decimal digits that fit an
// int64 without sign.
func parseLength(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

func clip(b []byte) []byte {
	if len(b) > 40 {
		return b[:40]
	}
	return b
}
