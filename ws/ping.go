package ws

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
)

// reasonPing is the close reason of a connection whose peer missed a pong.
const reasonPing = "ping timeout"

// A pinger pings the peer of one WebSocket connection every interval, on a
// goroutine of its own, and calls miss once when the peer does not answer
// a ping in time.
//
// The library reads a pong only while the connection is read, and a
// connection may pause its reading (a peer.Conn with MaxInFlight messages
// on hand, a method that runs on the reading goroutine): a pong that
// arrives meanwhile waits in the socket, and so does the ping while a
// message is being written. So the wait for a pong counts only time in
// which the connection listened: timeout runs again from the start
// whenever the wait finds that a read ended (a message arrived, or the
// reading paused) or no read is under way, and it is lengthened by the
// time that writes of messages took meanwhile. A ping is missed when
// timeout passes with one read under way throughout, no write under way,
// and no pong, or when the ping itself cannot be written within the 5
// seconds the library gives it while no message is being written (the
// peer takes no bytes; the library then closes the connection).
//
// The connection reports its reads (beginRead, endRead) and writes
// (beginWrite, endWrite); a nil *pinger ignores them.
type pinger struct {
	conn     *websocket.Conn
	interval time.Duration
	timeout  time.Duration
	miss     func(unsent bool) // closes the connection, or reports that the library closed it (unsent); called at most once
	stop     chan struct{}     // closed by end: no further ping
	ending   sync.Once         // closes stop
	done     chan struct{}     // closed when the loop has ended

	reads   atomic.Uint64 // reads begun
	reading atomic.Bool   // a read is under way
	writing atomic.Int64  // writes of messages under way
	wrote   atomic.Int64  // nanoseconds that the writes that ended took
}

// newPinger returns the pings of a connection, started by start, or nil
// when interval or timeout is negative (no pings).
func newPinger(interval, timeout time.Duration, miss func(unsent bool)) *pinger {
	if interval < 0 || timeout < 0 {
		return nil
	}
	return &pinger{interval: interval, timeout: timeout, miss: miss, stop: make(chan struct{}), done: make(chan struct{})}
}

// start begins pinging conn, on a goroutine of its own that end stops.
func (p *pinger) start(conn *websocket.Conn) {
	if p != nil {
		p.conn = conn
		go p.run()
	}
}

func (p *pinger) beginRead() {
	if p != nil {
		p.reads.Add(1)
		p.reading.Store(true)
	}
}

func (p *pinger) endRead() {
	if p != nil {
		p.reading.Store(false)
	}
}

// beginWrite reports a write of a message, and returns when it began for
// endWrite.
func (p *pinger) beginWrite() time.Time {
	if p == nil {
		return time.Time{}
	}
	p.writing.Add(1)
	return time.Now()
}

func (p *pinger) endWrite(began time.Time) {
	if p != nil {
		p.wrote.Add(int64(time.Since(began)))
		p.writing.Add(-1)
	}
}

// end stops the pings started by start and waits for their loop to end:
// call it once the connection is closed, which ends a ping that waits for
// its pong. It may be called more than once.
func (p *pinger) end() {
	if p != nil {
		p.ending.Do(func() { close(p.stop) })
		<-p.done
	}
}

// stopped tells whether end has been called.
func (p *pinger) stopped() bool {
	select {
	case <-p.stop:
		return true
	default:
		return false
	}
}

func (p *pinger) run() {
	defer close(p.done)
	t := time.NewTimer(p.interval)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-t.C:
		}
		if !p.ping() {
			return
		}
		t.Reset(p.interval)
	}
}

// ping sends a ping and waits for its pong: it returns true when the pong
// came, false when the connection ended or the peer missed the pong (then
// after calling miss).
func (p *pinger) ping() bool {
	// The ping's context is cancelled only once it is missed: the
	// library closes the connection when the context of a write ends
	// during it. It ends with the connection otherwise.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	answered := make(chan error, 1)
	go func() { answered <- p.conn.Ping(ctx) }()
	reads, wrote := p.reads.Load(), p.wrote.Load()
	wrote0 := wrote
	t := time.NewTimer(p.timeout)
	defer t.Stop()
	for {
		select {
		case err := <-answered:
			switch {
			case err == nil:
				return !p.stopped()
			case !errors.Is(err, context.DeadlineExceeded):
				return false // the connection ended
			case p.writing.Load() > 0 || p.wrote.Load() != wrote0:
				// The library gives the ping's write 5 s, and it waited
				// behind a message: WriteTimeout bounds that.
				return true
			default:
				// The ping itself could not be written in 5 s (the
				// library then closed the connection): the peer takes
				// nothing.
				p.miss(true)
				return false
			}
		case <-t.C:
		}
		// writing before wrote: a write that ends between the two loads
		// is counted in wrote, not missed.
		writing := p.writing.Load() > 0
		r, w := p.reads.Load(), p.wrote.Load()
		switch {
		case r != reads || !p.reading.Load():
			// The connection did not listen throughout: the peer has
			// timeout from now, listened to.
			reads, wrote = r, w
			t.Reset(p.timeout)
		case writing:
			// A write holds the connection (for WriteTimeout at most).
			t.Reset(p.timeout)
		case w > wrote:
			t.Reset(time.Duration(w - wrote))
			wrote = w
		default:
			p.miss(false)
			cancel()
			<-answered
			return false
		}
	}
}
