package framing

import (
	"io"
	"strconv"
)

type frameKind uint8

// maxFraming is the most bytes a framing adds to a message: a header of
// "Content-Length: ", 20 digits and "\r\n\r\n".
const maxFraming = 40

const (
	frameLine   frameKind = iota // msg "\n"
	frameHeader                  // "Content-Length: N\r\n\r\n" msg
	frameRaw                     // msg "\n"
)

// frameWriter is the Writer of the three framings: it appends framed
// messages to its buffer and writes the buffer to w on Flush, or when the
// buffer holds bufSize bytes.
type frameWriter struct {
	w    io.Writer
	kind frameKind
	buf  []byte
	err  error
}

// newFrameWriter returns a writer without a buffer: it takes one from
// busyBufs (or of the message's size, for a larger one) when it writes, and
// gives it back when it has flushed everything.
func newFrameWriter(w io.Writer, kind frameKind) *frameWriter {
	return &frameWriter{w: w, kind: kind}
}

func (f *frameWriter) Buffered() int { return len(f.buf) }

func (f *frameWriter) Write(msg []byte) error {
	if f.err != nil {
		return f.err
	}
	// A message that does not fit in what the buffer has left is written
	// after a flush, so that the buffer never grows: growing it would copy
	// it, and the grown buffer could not go back to busyBufs.
	if len(f.buf) > 0 && len(f.buf)+len(msg)+maxFraming > cap(f.buf) {
		if err := f.Flush(); err != nil {
			return err
		}
	}
	if f.buf == nil {
		if len(msg)+maxFraming <= bufSize {
			f.buf = getBusy()[:0]
		} else {
			f.buf = make([]byte, 0, len(msg)+maxFraming)
		}
	}
	switch f.kind {
	case frameHeader:
		f.buf = append(f.buf, "Content-Length: "...)
		f.buf = strconv.AppendInt(f.buf, int64(len(msg)), 10)
		f.buf = append(f.buf, "\r\n\r\n"...)
		f.buf = append(f.buf, msg...)
	default:
		f.buf = append(f.buf, msg...)
		f.buf = append(f.buf, '\n')
	}
	if len(f.buf) >= bufSize {
		return f.Flush()
	}
	return nil
}

func (f *frameWriter) Flush() error {
	if f.err != nil {
		return f.err
	}
	if len(f.buf) == 0 {
		return nil
	}
	n, err := f.w.Write(f.buf)
	if err == nil && n < len(f.buf) {
		err = io.ErrShortWrite
	}
	if err != nil {
		f.err = err
		return err
	}
	// Everything is written: the buffer goes back (a larger one, grown by
	// a large message, to the collector).
	putBusy(f.buf)
	f.buf = nil
	return nil
}
