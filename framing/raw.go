package framing

import (
	"io"

	"github.com/jsonrpc-go/jsonrpc/internal/wire"
)

type rawFraming struct{}

func (rawFraming) String() string { return "Raw" }

func (rawFraming) NewReader(r io.Reader, max int) Reader {
	max = limitOf(max)
	return &rawReader{in: newInbuf(r, max), max: max}
}

func (rawFraming) NewWriter(w io.Writer) Writer { return newFrameWriter(w, frameRaw) }

// rawReader finds the end of each JSON value without validating it: an
// object or array ends at the bracket that brings the nesting back to zero
// (brackets outside strings are counted, whatever their kind), a string at
// its closing quote, and any other token (a number, a literal, a stray byte)
// at the next white space or structural byte, or at the end of the input.
type rawReader struct {
	in  inbuf
	max int
	err error // sticky: after a value over the limit
	ids idScan

	// Scanning state of the value at in.r, kept across fills.
	scanned int  // bytes of the value scanned so far
	depth   int  // open brackets
	str     bool // inside a string
	esc     bool // after a backslash inside a string
	token   bool // a scalar token outside brackets and strings
	found   int  // the length of the value at in.r, when Ready found its end; 0: not found
}

func (x *rawReader) Buffered() int { return x.in.buffered() }

func (x *rawReader) Begun() bool { return x.scanned > 0 || !x.in.onlySpace() }

// Ready reports whether Read returns without reading: the end of the next
// value is buffered (found here, for Read to take), or Read fails at once.
func (x *rawReader) Ready() bool {
	in := &x.in
	if x.err != nil || in.err != nil || x.found > 0 {
		return true
	}
	if x.scanned == 0 {
		for in.r < in.w && wire.IsSpace(in.buf[in.r]) {
			in.r++
		}
		if in.r == in.w {
			return false
		}
	}
	end, ok := x.scan(in.buf[in.r:in.w])
	if ok {
		x.found = end
	}
	return ok || x.scanned > x.max
}

func (x *rawReader) Read() ([]byte, error) {
	if x.err != nil {
		return nil, x.err
	}
	in := &x.in
	in.shrink()
	for {
		if x.scanned == 0 {
			// Skip white space between values.
			for in.r < in.w && wire.IsSpace(in.buf[in.r]) {
				in.r++
			}
			if in.r == in.w {
				in.drop()
				if err := in.fill(len(in.buf)); err != nil {
					return nil, err
				}
				continue
			}
		}
		end, ok := x.found, x.found > 0
		x.found = 0
		if !ok {
			end, ok = x.scan(in.buf[in.r:in.w])
		}
		if ok && end <= x.max {
			v := in.buf[in.r : in.r+end]
			in.r += end
			x.scanned = 0
			return v, nil
		}
		if ok || x.scanned > x.max {
			// The id is looked for in the first Limit bytes of the value,
			// however much more was read.
			x.ids.reset()
			x.ids.feed(in.buf[in.r : in.r+x.max])
			x.err = &TooLargeError{Limit: x.max, Length: -1, ID: x.ids.ID()}
			in.drop()
			return nil, x.err
		}
		if err := in.fill(x.max + 1); err != nil {
			if err == io.EOF && x.token && in.w-in.r <= x.max {
				// A scalar token ends at the end of the input.
				v := in.buf[in.r:in.w]
				in.r = in.w
				x.scanned, x.token = 0, false
				return v, nil
			}
			return nil, eofErr(err)
		}
	}
}

// scan continues scanning the value that starts at b[0] from x.scanned and
// returns its length when its end is in b.
func (x *rawReader) scan(b []byte) (int, bool) {
	i := x.scanned
	if i == 0 {
		x.depth, x.str, x.esc, x.token = 0, false, false, false
		switch b[0] {
		case '{', '[':
			x.depth = 1
		case '"':
			x.str = true
		case '}', ']', ',', ':':
			return 1, true // a stray structural byte is a value of its own
		default:
			x.token = true
		}
		i = 1
	}
	for ; i < len(b); i++ {
		c := b[i]
		switch {
		case x.esc:
			x.esc = false
		case x.str:
			switch c {
			case '\\':
				x.esc = true
			case '"':
				x.str = false
				if x.depth == 0 {
					x.scanned = 0
					return i + 1, true
				}
			}
		case x.token:
			if wire.IsSpace(c) || c == '{' || c == '[' || c == '}' || c == ']' || c == '"' || c == ',' || c == ':' {
				x.token = false
				x.scanned = 0
				return i, true
			}
		default:
			switch c {
			case '"':
				x.str = true
			case '{', '[':
				x.depth++
			case '}', ']':
				x.depth--
				if x.depth == 0 {
					x.scanned = 0
					return i + 1, true
				}
			}
		}
	}
	x.scanned = len(b)
	return 0, false
}
