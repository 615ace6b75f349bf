package framing

import (
	"bytes"
	"io"

	"github.com/jsonrpc-go/jsonrpc/internal/wire"
)

type lineFraming struct{}

func (lineFraming) String() string { return "Line" }

func (lineFraming) NewReader(r io.Reader, max int) Reader {
	max = limitOf(max)
	return &lineReader{in: newInbuf(r, max), max: max}
}

func (lineFraming) NewWriter(w io.Writer) Writer { return newFrameWriter(w, frameLine) }

type lineReader struct {
	in      inbuf
	max     int
	scanned int    // bytes of in's unread input known to hold no newline
	pending bool   // the previous line was too long and its end is not yet read
	ids     idScan // the id of a line too long, read as it passes
}

func (l *lineReader) Buffered() int { return l.in.buffered() }

func (l *lineReader) Begun() bool { return l.pending || !l.in.onlySpace() }

// Ready reports whether Read returns without reading: a line that is not
// blank is buffered whole, or the input has failed. The blank lines before
// it are dropped, as Read drops them.
func (l *lineReader) Ready() bool {
	in := &l.in
	if in.err != nil {
		return true
	}
	if l.pending {
		return false
	}
	for {
		i := bytes.IndexByte(in.buf[in.r+l.scanned:in.w], '\n')
		if i < 0 {
			l.scanned = in.w - in.r
			return false
		}
		end := in.r + l.scanned + i
		if !blank(in.buf[in.r:end]) {
			l.scanned = end - in.r // Read finds the newline at once
			return true
		}
		in.r, l.scanned = end+1, 0
	}
}

func (l *lineReader) Read() ([]byte, error) {
	in := &l.in
	in.shrink()
	for {
		if i := bytes.IndexByte(in.buf[in.r+l.scanned:in.w], '\n'); i >= 0 {
			end := in.r + l.scanned + i
			line := in.buf[in.r:end]
			in.r, l.scanned = end+1, 0
			if n := len(line); n > 0 && line[n-1] == '\r' {
				line = line[:n-1]
			}
			if l.pending {
				l.pending = false
				l.ids.feed(line)
				return nil, l.tooLarge()
			}
			if len(line) > l.max {
				l.ids.reset()
				l.ids.feed(line)
				return nil, l.tooLarge()
			}
			if blank(line) {
				continue
			}
			return line, nil
		}
		l.scanned = in.w - in.r
		if l.pending || l.scanned > l.max+1 {
			// Too long: keep reading up to its newline, buffering nothing
			// but looking for its id.
			if !l.pending {
				l.ids.reset()
			}
			l.ids.feed(in.buf[in.r:in.w])
			l.pending = true
			in.drop()
			l.scanned = 0
		}
		if err := in.fill(l.max + 2); err != nil {
			if l.pending {
				l.pending = false
				in.drop()
				return nil, l.tooLarge()
			}
			if err == io.EOF && in.r < in.w {
				// The last line has no newline.
				line := in.buf[in.r:in.w]
				in.r, l.scanned = in.w, 0
				if n := len(line); n > 0 && line[n-1] == '\r' {
					line = line[:n-1]
				}
				if len(line) > l.max {
					l.ids.reset()
					l.ids.feed(line)
					return nil, l.tooLarge()
				}
				if !blank(line) {
					return line, nil
				}
				continue
			}
			return nil, err
		}
	}
}

func (l *lineReader) tooLarge() error {
	return &TooLargeError{Limit: l.max, Length: -1, Recoverable: true, ID: l.ids.ID()}
}

func blank(b []byte) bool {
	for _, c := range b {
		if !wire.IsSpace(c) {
			return false
		}
	}
	return true
}
