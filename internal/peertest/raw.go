package peertest

import (
	"context"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jsonrpc-go/jsonrpc/client"
	"github.com/jsonrpc-go/jsonrpc/framing"
	"github.com/jsonrpc-go/jsonrpc/stream"
)

// ServePipe serves s on one end of a pipe and returns the other; the
// cleanup closes both and waits for ServeConn.
func ServePipe(t *testing.T, s *stream.Server) net.Conn {
	t.Helper()
	cc, sc := net.Pipe()
	done := make(chan error, 1)
	go func() { done <- s.ServeConn(context.Background(), sc) }()
	t.Cleanup(func() {
		cc.Close()
		s.Close()
		select {
		case <-done:
		case <-time.After(Wait):
			t.Error("ServeConn did not return")
		}
	})
	return cc
}

// DialPipe returns a client over a pipe to s, with opts.
func DialPipe(t *testing.T, s *stream.Server, opts ...client.Option) *client.Client {
	t.Helper()
	c := client.New(client.Stream(ServePipe(t, s), s.Framing), opts...)
	t.Cleanup(func() { c.Close() })
	return c
}

// A Raw is a peer written by hand: it sends lines, and a goroutine reads
// the lines it receives.
type Raw struct {
	spy   *readSpy
	total int64 // bytes sent, newlines included; guarded by mu

	pmu    sync.Mutex
	paused chan struct{} // closed by resumeReading; nil while reading
	t      *testing.T
	wr     framing.Writer
	mu     sync.Mutex
	got    chan string
}

// NewRaw serves s on a pipe and returns a Raw peer on its other end.
func NewRaw(t *testing.T, s *stream.Server) *Raw {
	t.Helper()
	cc, sc := net.Pipe()
	spy := &readSpy{Conn: sc, reads: make(chan int64, 1024)}
	done := make(chan error, 1)
	go func() { done <- s.ServeConn(context.Background(), spy) }()
	t.Cleanup(func() {
		cc.Close()
		s.Close()
		select {
		case <-done:
		case <-time.After(Wait):
			t.Error("ServeConn did not return")
		}
	})
	conn := cc
	r := &Raw{t: t, wr: framing.Line.NewWriter(conn), got: make(chan string, 64), spy: spy}
	rd := framing.Line.NewReader(conn, 1<<20)
	go func() {
		defer close(r.got)
		for {
			r.pmu.Lock()
			paused := r.paused
			r.pmu.Unlock()
			if paused != nil {
				<-paused
			}
			msg, err := rd.Read()
			if err != nil {
				return
			}
			r.got <- string(msg)
		}
	}()
	return r
}

// Send sends msgs, each a line.
func (r *Raw) Send(msgs ...string) {
	r.t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, m := range msgs {
		r.total += int64(len(m) + 1)
		if err := r.wr.Write([]byte(m)); err != nil {
			r.t.Fatal(err)
		}
	}
	if err := r.wr.Flush(); err != nil {
		r.t.Fatal(err)
	}
}

// readSpy reports, at each Read of the server's end of the connection,
// how many bytes the Reads before it returned.
type readSpy struct {
	net.Conn
	consumed atomic.Int64
	reads    chan int64
}

func (s *readSpy) Read(p []byte) (int, error) {
	select {
	case s.reads <- s.consumed.Load():
	default:
	}
	n, err := s.Conn.Read(p)
	s.consumed.Add(int64(n))
	return n, err
}

// Settled sends msgs and returns once the server has handled all of them:
// its read loop reads from the connection again after taking their bytes.
func (r *Raw) Settled(msgs ...string) {
	r.t.Helper()
	r.Send(msgs...)
	r.mu.Lock()
	sent := r.total
	r.mu.Unlock()
	for {
		select {
		case n := <-r.spy.reads:
			if n >= sent {
				return
			}
		case <-time.After(Wait):
			r.t.Fatal("the server did not read again")
		}
	}
}

// StopReading makes the reading goroutine stop after the message it may
// be reading.
func (r *Raw) StopReading() {
	r.pmu.Lock()
	if r.paused == nil {
		r.paused = make(chan struct{})
	}
	r.pmu.Unlock()
}

// ResumeReading undoes StopReading.
func (r *Raw) ResumeReading() {
	r.pmu.Lock()
	if r.paused != nil {
		close(r.paused)
		r.paused = nil
	}
	r.pmu.Unlock()
}

// Recv returns the next line received, or fails the test.
func (r *Raw) Recv() string {
	r.t.Helper()
	select {
	case m, ok := <-r.got:
		if !ok {
			r.t.Fatal("the connection ended")
		}
		return m
	case <-time.After(Wait):
		r.t.Fatal("no message")
		return ""
	}
}

// ExpectNone checks that nothing arrives for a short while.
func (r *Raw) ExpectNone(d time.Duration) {
	r.t.Helper()
	select {
	case m, ok := <-r.got:
		if ok {
			r.t.Fatalf("unexpected message %s", m)
		}
	case <-time.After(d):
	}
}
