package stream

import (
	"errors"
	"io"
	"os"
	"time"
)

// ReadWriteCloser joins a reader and a writer into one io.ReadWriteCloser for
// ServeConn, such as standard input and output, or the two ends of a pair of
// pipes. Its Close closes r and then w, each when it is an io.Closer (so do
// not pass one value as both), and returns their errors joined; it also has
// CloseRead and CloseWrite, which close one of them. When r and w have
// deadline methods (an *os.File that is a pipe or a terminal, a net.Conn),
// the result forwards SetReadDeadline to r and SetWriteDeadline to w, so
// that ServeConn's timeouts and Shutdown work on it; otherwise those methods
// return os.ErrNoDeadline and ServeConn serves without timeouts.
func ReadWriteCloser(r io.Reader, w io.Writer) io.ReadWriteCloser {
	return &pair{r: r, w: w}
}

// Stdio returns ReadWriteCloser(os.Stdin, os.Stdout).
func Stdio() io.ReadWriteCloser { return ReadWriteCloser(os.Stdin, os.Stdout) }

type pair struct {
	r io.Reader
	w io.Writer
}

func (p *pair) Read(b []byte) (int, error)  { return p.r.Read(b) }
func (p *pair) Write(b []byte) (int, error) { return p.w.Write(b) }

func (p *pair) Close() error {
	var errs [2]error
	if c, ok := p.r.(io.Closer); ok {
		errs[0] = c.Close()
	}
	if c, ok := p.w.(io.Closer); ok {
		errs[1] = c.Close()
	}
	return errors.Join(errs[:]...)
}

// CloseRead closes the reader alone, when it is an io.Closer.
func (p *pair) CloseRead() error {
	if c, ok := p.r.(io.Closer); ok {
		return c.Close()
	}
	return errors.ErrUnsupported
}

// CloseWrite closes the writer alone, when it is an io.Closer, so that the
// peer reads the end of its input while the reader goes on (see
// Server.LingerTimeout).
func (p *pair) CloseWrite() error {
	if c, ok := p.w.(io.Closer); ok {
		return c.Close()
	}
	return errors.ErrUnsupported
}

func (p *pair) SetReadDeadline(t time.Time) error {
	if d, ok := p.r.(interface{ SetReadDeadline(time.Time) error }); ok {
		return d.SetReadDeadline(t)
	}
	return os.ErrNoDeadline
}

func (p *pair) SetWriteDeadline(t time.Time) error {
	if d, ok := p.w.(interface{ SetWriteDeadline(time.Time) error }); ok {
		return d.SetWriteDeadline(t)
	}
	return os.ErrNoDeadline
}
