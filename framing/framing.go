package framing

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/jsonrpc-go/jsonrpc/internal/wire"
)

// A Framing splits a byte stream into messages and writes messages to one.
// The package provides Line, Header and Raw; a Framing holds no state of its
// own, so one value serves any number of connections. Other packages may
// implement it too: a stream.Server and a client's stream channel take any
// Framing.
type Framing interface {
	// NewReader returns a Reader of the messages of r. Messages longer than
	// max bytes (DefaultMaxMessage when max <= 0) are reported with a
	// *TooLargeError and never buffered whole.
	NewReader(r io.Reader, max int) Reader
	// NewWriter returns a Writer that frames messages onto w.
	NewWriter(w io.Writer) Writer
}

// A Reader reads framed messages. A Reader is not safe for concurrent use.
//
// The Readers of this package also have two methods
//
//	Begun() bool
//	Ready() bool
//
// Begun reports whether the next message has begun: whether a byte of it,
// other than the white space a framing allows between messages, has been
// read. Ready reports whether the next Read returns without reading from
// the underlying reader: a whole message is buffered, or Read fails at
// once. The stream Server and a client's stream channel look for them to
// run their IdleTimeout until a message begins and their ReadTimeout from
// then, and to declare their carrier's transport.Traits.Ready; a Reader of
// another framing need not have them.
type Reader interface {
	// Read returns the next message. The slice is valid until the next call
	// to Read. At the end of the input it returns io.EOF, and
	// io.ErrUnexpectedEOF when the input ends inside a message. A message
	// over the limit gives a *TooLargeError; a stream that breaks the
	// framing's rules gives an error wrapping ErrMalformed. After any other
	// error, and after a *TooLargeError that is not Recoverable, the Reader
	// is unusable.
	Read() ([]byte, error)
	// Buffered returns the number of bytes already read from the underlying
	// reader and not yet returned by Read. When it is zero, the next Read
	// reads from the underlying reader (and may block); a writer that
	// coalesces its output flushes before that.
	Buffered() int
}

// A Writer frames messages onto an underlying writer, buffering them until
// Flush or until its buffer fills. A Writer is not safe for concurrent use.
// After a write to the underlying writer fails, every later call returns that
// error.
type Writer interface {
	// Write appends one framed message to the buffer. msg is not retained.
	Write(msg []byte) error
	// Flush writes the buffered messages to the underlying writer.
	Flush() error
	// Buffered returns the number of bytes waiting for Flush.
	Buffered() int
}

// Default limits.
const (
	// DefaultMaxMessage is the default size limit of one incoming message.
	DefaultMaxMessage = 4 << 20
	// MaxHeaderBlock is the size limit of the header block of one Header
	// message; a longer block is malformed.
	MaxHeaderBlock = 8 << 10
	// bufSize is the size of a Reader's and a Writer's buffer on a busy
	// connection; a Reader's begins at startSize, and grows to bufSize
	// when a read fills it, and a Writer has none until it writes.
	bufSize   = 32 << 10
	startSize = 4 << 10
)

// ErrMalformed is wrapped by the errors of a Reader whose input breaks the
// framing's rules (for Header: a header line without a colon, a missing or
// invalid Content-Length, a header block over MaxHeaderBlock). The stream
// cannot be resynchronized after it.
var ErrMalformed = errors.New("framing: malformed stream")

// A TooLargeError reports an incoming message longer than the limit.
type TooLargeError struct {
	Limit int // the limit in bytes
	// Length is the message's length when the framing declares it in
	// advance (Header), otherwise -1.
	Length int64
	// Recoverable reports whether the message was skipped, so that the
	// Reader can be read again: true for Line (the line was read up to its
	// newline) and Header (the declared body was read), neither buffered
	// whole; false for Raw, which cannot find the end of a value it does
	// not keep.
	Recoverable bool
	// ID is the message's request id when the bytes read of it hold one: a
	// top-level "id" member whose value is a JSON string or number, at most
	// 1 KiB long, given once. Line and Header read the whole message (and
	// report it at its end), Raw its first Limit bytes. It is nil when no
	// id was found, and for a batch.
	ID json.RawMessage
}

func (e *TooLargeError) Error() string {
	if e.Length >= 0 {
		return fmt.Sprintf("framing: message of %d bytes exceeds the limit of %d bytes", e.Length, e.Limit)
	}
	return fmt.Sprintf("framing: message exceeds the limit of %d bytes", e.Limit)
}

// The framings.
var (
	// Line frames each message as one line: the message, then "\n". The
	// Reader also accepts "\r\n" and skips lines holding only white space.
	// A message must not contain a newline; compact JSON never does.
	Line Framing = lineFraming{}
	// Header frames each message as the Language Server Protocol does:
	// "Content-Length: N\r\n\r\n" and N bytes. The Reader accepts other
	// header fields (Content-Type) and ignores them, accepts "\n" for
	// "\r\n", and caps the header block at MaxHeaderBlock bytes.
	Header Framing = headerFraming{}
	// Raw frames messages as back-to-back JSON values with optional white
	// space between them; the Writer ends each with "\n". The Reader finds
	// a value's end by tracking strings, escapes and nesting; it does not
	// validate the value. A value over the limit ends the stream, since its
	// end cannot be found without reading it.
	Raw Framing = rawFraming{}
)

func limitOf(max int) int {
	if max <= 0 {
		return DefaultMaxMessage
	}
	return max
}

// inbuf is the read buffer the framings share: unread input is buf[r:w].
type inbuf struct {
	src  io.Reader
	buf  []byte
	r, w int
	err  error // the underlying reader's error, returned once the buffer is drained

	// The unread input from spaceAt holds space bytes of white space
	// (onlySpace); spaceAt is -1 when that is unknown.
	spaceAt, space int

	// filled reports that the last read filled the buffer: the peer
	// sends more than it holds at once, and a buffer under busy grows to
	// busy rather than being compacted.
	filled bool
	busy   int // bufSize, or less when the largest message is smaller

	// small is the buffer of startSize the connection keeps; a buffer of
	// bufSize comes from busyBufs while the connection is busy.
	small []byte
}

// busyBufs holds buffers of bufSize for the Readers and Writers of busy
// connections: a connection takes one when a read fills its small buffer
// or when it writes, and gives it back when its input is drained or its
// output flushed, so that thousands of idle connections hold none.
var busyBufs = sync.Pool{New: func() any { b := make([]byte, bufSize); return &b }}

func getBusy() []byte { return (*busyBufs.Get().(*[]byte))[:bufSize] }

func putBusy(b []byte) {
	if cap(b) == bufSize {
		b = b[:bufSize]
		busyBufs.Put(&b)
	}
}

// newInbuf returns a buffer of startSize: an idle connection holds that
// much, so that thousands of them do not hold their buffers' size in heap
// (4096 idle connections held 290 MB with 32 KiB read and write buffers,
// past the memory limit of jsonrpcd, whose collector then ran without end).
func newInbuf(src io.Reader, max int) inbuf {
	busy := min(bufSize, max+2)
	small := make([]byte, min(startSize, busy))
	return inbuf{src: src, buf: small, small: small, spaceAt: -1, busy: busy}
}

// use makes nb the buffer, with the unread input moved to its front, and
// gives the buffer it replaces to busyBufs when it is of bufSize (small
// never is).
func (b *inbuf) use(nb []byte) {
	b.w = wire.CopyLong(nb, b.buf[b.r:b.w])
	b.r, b.spaceAt = 0, -1
	putBusy(b.buf)
	b.buf = nb
}

// onlySpace reports whether the unread input holds nothing but white space.
// It looks at each byte once, however often it is called while the input
// grows.
func (b *inbuf) onlySpace() bool {
	if b.spaceAt != b.r {
		b.spaceAt, b.space = b.r, 0
	}
	for b.space < b.w-b.r && wire.IsSpace(b.buf[b.r+b.space]) {
		b.space++
	}
	return b.space == b.w-b.r
}

// errFull reports that the unread input already holds limit bytes.
var errFull = errors.New("framing: buffer full")

// fill reads more input into the buffer, first making room by moving the
// unread bytes to the front and then by growing the buffer so that it holds
// at most limit unread bytes. It returns errFull when the unread input holds
// limit bytes already, and the underlying reader's error when it delivers no
// byte.
func (b *inbuf) fill(limit int) error {
	if b.err != nil {
		return b.err
	}
	if b.w == len(b.buf) {
		switch {
		case b.filled && len(b.buf) < b.busy:
			if b.busy == bufSize {
				b.use(getBusy())
			} else {
				b.use(make([]byte, b.busy))
			}
		case b.r > 0:
			b.w = copy(b.buf, b.buf[b.r:b.w])
			b.r, b.spaceAt = 0, -1
		case len(b.buf) >= limit:
			return errFull
		default:
			b.use(make([]byte, min(max(2*len(b.buf), bufSize), limit)))
		}
	}
	for range 100 {
		n, err := b.src.Read(b.buf[b.w:])
		if n < 0 || n > len(b.buf)-b.w {
			b.err = errors.New("framing: reader returned an invalid count")
			return b.err
		}
		b.filled = n > 0 && n == len(b.buf)-b.w
		b.w += n
		if err != nil {
			b.err = err
		}
		if n > 0 {
			return nil
		}
		if err != nil {
			return err
		}
	}
	b.err = io.ErrNoProgress
	return b.err
}

// maxKept is the largest read buffer kept once its message has been
// read: a buffer grown past it for a large message is given back when the
// next message is read, so that a connection holds at most bufSize, not
// its largest message, and none of it once it waits (see shrink). Messages
// up to it grow no buffer more than once.
const maxKept = 64 << 10

// shrink gives back a buffer grown past maxKept, keeping the unread input,
// when that fits half the initial size. The Readers call it as they begin
// a message, when nothing they returned is still valid.
//
// It also gives back a busy buffer when the input is drained and the last
// read did not fill the buffer: the peer has sent all it had, and the
// connection may now wait, holding only its small buffer.
func (b *inbuf) shrink() {
	switch {
	case b.r == b.w && !b.filled && len(b.buf) > len(b.small):
		b.use(b.small)
	case len(b.buf) > maxKept && b.w-b.r <= bufSize/2:
		b.use(getBusy())
	}
}

// drop discards the unread input.
func (b *inbuf) drop() { b.r, b.w, b.spaceAt = 0, 0, -1 }

func (b *inbuf) buffered() int { return b.w - b.r }

// eofErr turns io.EOF inside a message into io.ErrUnexpectedEOF.
func eofErr(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}
