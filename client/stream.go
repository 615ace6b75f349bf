package client

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/jsonrpc-go/jsonrpc/framing"
)

// DefaultMaxMessage is the size limit, in bytes, of one message that a
// channel from Stream, Dial or Command (and ws.Dial) reads: 64 MiB. It is
// larger than framing.DefaultMaxMessage (the limit of a server's incoming
// requests) because a client trusts its server more than a server trusts
// its clients, and a response (a whole batch response) is often much larger
// than its request. A longer message fails Read with a
// *framing.TooLargeError, which breaks the client: its calls fail with an
// error wrapping ErrClosed.
const DefaultMaxMessage = 64 << 20

// CommandCloseTimeout is how long the Close of a channel from Command waits
// for the child process to exit after closing its standard input, before it
// kills the process, unless the command's WaitDelay says otherwise.
const CommandCloseTimeout = 5 * time.Second

// Stream returns a channel over the byte stream rwc, with framing f (nil
// means framing.Line), as served by a stream.Server with the same framing.
//
// Write frames one message into the channel's buffer, and Flush sends
// what it holds; the client's connection writes a burst of messages and
// flushes them together, from one goroutine at a time. A message whose
// write has begun is written whole, since a message cut short would break
// the framing for every call on the stream: a peer that stops reading
// blocks the writer until the channel is closed. A failed write breaks
// the channel: rwc is closed, so that the client's pending calls fail too,
// and Write and Flush return, now and later, an error wrapping ErrClosed
// and the write's error.
//
// Read reads the next message, of at most DefaultMaxMessage bytes. When the
// input ends (io.EOF: the server closed its end, as a stream.Server does
// when it shuts down), Read closes rwc, since no answer can come any more:
// a server that waits for its peers to close (stream.Server.LingerTimeout)
// need not wait for this one.
// Close closes rwc, which must unblock a pending Read of rwc for Close to
// unblock a pending Read of the channel; a net.Conn and the pipes of
// os.Pipe do.
func Stream(rwc io.ReadWriteCloser, f framing.Framing) Channel {
	return newStream(rwc, f).channel()
}

func newStream(rwc io.ReadWriteCloser, f framing.Framing) *streamChannel {
	if f == nil {
		f = framing.Line
	}
	s := &streamChannel{rwc: rwc, w: f.NewWriter(rwc)}
	s.r = f.NewReader(rwc, DefaultMaxMessage)
	return s
}

// channel is the Channel of s: its framing's Ready, when it has one, tells
// the client's connection when a Read will not wait.
func (s *streamChannel) channel() Channel {
	ch := Channel{Conn: s}
	if r, ok := s.r.(interface{ Ready() bool }); ok {
		ch.Ready = r.Ready
	}
	return ch
}

type streamChannel struct {
	rwc io.ReadWriteCloser
	r   framing.Reader // used by Read only, one goroutine at a time

	// The writer's: Write and Flush are called by one goroutine at a time.
	w   framing.Writer
	err error // why the channel is broken

	closeOnce sync.Once
	closeErr  error
}

// Write frames msg into the channel's buffer, for Flush to send. A Write
// under a context that has ended sends nothing.
func (s *streamChannel) Write(ctx context.Context, msg []byte) error {
	if s.err != nil {
		return s.err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := s.w.Write(msg); err != nil {
		s.fail(err)
		return s.err
	}
	return nil
}

// Flush sends what Write has buffered.
func (s *streamChannel) Flush() error {
	if s.err != nil {
		return s.err
	}
	if s.w.Buffered() == 0 {
		return nil
	}
	if err := s.w.Flush(); err != nil {
		s.fail(err)
		return s.err
	}
	return nil
}

// fail breaks the channel after a failed write.
func (s *streamChannel) fail(err error) {
	s.err = fmt.Errorf("%w: %w", ErrClosed, err)
	s.Close()
}

// Read returns the next message.
func (s *streamChannel) Read() ([]byte, error) {
	msg, err := s.r.Read()
	if err == io.EOF {
		s.Close()
	}
	return msg, err
}

func (s *streamChannel) Close() error {
	s.closeOnce.Do(func() { s.closeErr = s.rwc.Close() })
	return s.closeErr
}

// Dial connects to the stream server at addr on network, which is "tcp",
// "tcp4", "tcp6" or "unix", and returns a channel over the connection with
// framing f (nil means framing.Line), as Stream does. ctx bounds the
// connecting only; once Dial returns, it has no effect on the channel.
func Dial(ctx context.Context, network, addr string, f framing.Framing) (Channel, error) {
	switch network {
	case "tcp", "tcp4", "tcp6", "unix":
	default:
		return Channel{}, fmt.Errorf("jsonrpc: Dial: network %q is not a byte stream; use tcp or unix", network)
	}
	var d net.Dialer
	conn, err := d.DialContext(ctx, network, addr)
	if err != nil {
		return Channel{}, err
	}
	return Stream(conn, f), nil
}

// DialTLS is Dial over TLS: it connects to the stream server at addr on
// network, which is "tcp", "tcp4" or "tcp6", completes the TLS handshake
// with config, and returns a channel over the connection with framing f
// (nil means framing.Line), as Stream does. config nil is the zero
// tls.Config; give it the RootCAs of a server whose authority the system
// does not trust, and the client's Certificates for a server that asks for
// them (mutual TLS: stream.Server.TLSConfig). Without a ServerName, the
// host of addr is the name verified. ctx bounds the connecting and the
// handshake only.
//
// Under TLS 1.3 a server that refuses the client's certificate (or its
// lack of one) says so after the handshake has completed on the client's
// side: the first call then fails, with ErrClosed, not DialTLS.
func DialTLS(ctx context.Context, network, addr string, config *tls.Config, f framing.Framing) (Channel, error) {
	switch network {
	case "tcp", "tcp4", "tcp6":
	default:
		return Channel{}, fmt.Errorf("jsonrpc: DialTLS: network %q is not TCP", network)
	}
	d := tls.Dialer{Config: config}
	conn, err := d.DialContext(ctx, network, addr)
	if err != nil {
		return Channel{}, err
	}
	return Stream(conn, f), nil
}

// Command starts cmd and returns a channel over its standard input (the
// requests) and standard output (the responses), with framing f (nil means
// framing.Line), as Stream does: for a server such as stream.Server serving
// stream.Stdio(). cmd must not have been started, and its Stdin and Stdout
// must be nil; its Stderr, environment and the like are the caller's.
//
// When the process exits, or closes its standard output, Read reports the
// end of the input and the client fails its calls with ErrClosed. Close
// closes the process's standard input, which asks a stream server to finish
// and exit, waits for the process to exit for cmd.WaitDelay when it is
// positive and CommandCloseTimeout otherwise, kills it if it has not, and
// then closes its standard output. It returns an error wrapping the
// process's exit status when it was not a success (an *exec.ExitError), or
// saying that it had to be killed.
func Command(cmd *exec.Cmd, f framing.Framing) (Channel, error) {
	if cmd.Stdin != nil || cmd.Stdout != nil {
		return Channel{}, errors.New("jsonrpc: Command: Stdin or Stdout already set")
	}
	if cmd.Process != nil {
		return Channel{}, errors.New("jsonrpc: Command: already started")
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		return Channel{}, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return Channel{}, err
	}
	cmd.Stdin, cmd.Stdout = inR, outW
	err = cmd.Start()
	// The child has its own copies of its ends (or none, on failure); closing
	// ours lets Read see the end of its output when it exits.
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return Channel{}, err
	}
	c := &commandChannel{
		streamChannel: newStream(pipes{r: outR, w: inW}, f),
		cmd:           cmd,
		stdin:         inW,
		stdout:        outR,
		exited:        make(chan struct{}),
	}
	go func() {
		c.waitErr = cmd.Wait()
		close(c.exited)
	}()
	return Channel{Conn: c, Traits: c.channel().Traits}, nil
}

// pipes is the byte stream of a command: it reads the process's standard
// output from r and writes its standard input to w. Its Close closes r and
// then w.
type pipes struct{ r, w *os.File }

func (p pipes) Read(b []byte) (int, error)  { return p.r.Read(b) }
func (p pipes) Write(b []byte) (int, error) { return p.w.Write(b) }
func (p pipes) Close() error                { return errors.Join(p.r.Close(), p.w.Close()) }

// commandChannel is a stream channel over a child process's standard input
// and output. Its Close replaces the stream's.
type commandChannel struct {
	*streamChannel
	cmd    *exec.Cmd
	stdin  *os.File
	stdout *os.File

	exited  chan struct{} // closed when cmd.Wait has returned
	waitErr error         // cmd.Wait's error, set before exited is closed

	closeOnce sync.Once
	closeErr  error
}

func (c *commandChannel) Close() error {
	c.closeOnce.Do(func() {
		c.stdin.Close()
		d := c.cmd.WaitDelay
		if d <= 0 {
			d = CommandCloseTimeout
		}
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-c.exited:
			if c.waitErr != nil {
				c.closeErr = fmt.Errorf("jsonrpc: command %s: %w", c.cmd.Path, c.waitErr)
			}
		case <-t.C:
			c.cmd.Process.Kill()
			<-c.exited
			c.closeErr = fmt.Errorf("jsonrpc: command %s did not exit within %v of the end of its input; killed", c.cmd.Path, d)
		}
		c.stdout.Close()
	})
	return c.closeErr
}
