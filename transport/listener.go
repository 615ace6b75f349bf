package transport

import (
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// HTTPRefusal is a ListenerLimits.Refusal for a listener of HTTP/1
// connections: 429 Too Many Requests, with Retry-After, and the
// connection closed after it.
const HTTPRefusal = "HTTP/1.1 429 Too Many Requests\r\n" +
	"Content-Type: text/plain; charset=utf-8\r\n" +
	"Retry-After: 1\r\n" +
	"Connection: close\r\n" +
	"Content-Length: 38\r\n" +
	"\r\n" +
	"too many connections from this client\n"

// The defaults of ListenerLimits.
const (
	// DefaultListenerMaxConns is the default of ListenerLimits.MaxConns,
	// as transport.Limits.MaxConns.
	DefaultListenerMaxConns = 4096
	// refusalLinger bounds how long a refused connection is read, after
	// its refusal is written, so that the client reads the refusal
	// rather than a reset; maxLingering bounds how many are read at
	// once (past it, the next are closed at once).
	refusalLinger = time.Second
	maxLingering  = 64
)

// ListenerLimits bound the connections of a listener (LimitListener), as
// transport.Limits bounds those of a stream or WebSocket host: in all, and per
// client, so that one client cannot take every connection an HTTP server
// serves (net/http and fasthttp have no such bound of their own). The
// zero value means the defaults.
type ListenerLimits struct {
	// MaxConns bounds the connections open at once. At it, Accept waits
	// until one of them closes before it takes the next from the
	// kernel's backlog, so that connections past the bound wait there
	// (their clients see their connects succeed and their requests
	// answered late) instead of costing memory or a goroutine. <= 0
	// means DefaultListenerMaxConns (4096).
	MaxConns int
	// MaxConnsPerClient bounds the connections of one client open at
	// once, the client being the IP address of the connection's remote
	// address (transport.ClientOfHostPort). A connection past it is
	// refused as soon as it is accepted: Refusal is written to it, and it
	// is closed. <= 0 means half of MaxConns (at least 1), as
	// transport.Limits.MaxConnsPerClient; set it to MaxConns to give no client
	// a share of its own, as behind a proxy, where every connection is
	// the proxy's.
	MaxConnsPerClient int
	// Refusal is written to a refused connection before it is closed,
	// such as HTTPRefusal; "" writes nothing. It is written once the
	// connection is accepted, without reading what the client sent; the
	// connection is then read, and what it sent dropped, for up to a
	// second, so that the client reads the refusal instead of a reset.
	Refusal string
	// OnRefuse, when set, is called with each connection refused for
	// MaxConnsPerClient, before it is closed, from the goroutine that
	// called Accept (to log it; it must not block).
	OnRefuse func(c net.Conn)
}

// A LimitedListener is a net.Listener with the bounds of ListenerLimits
// (LimitListener). It is safe for concurrent use by multiple goroutines.
// Closing one of its connections frees its place.
type LimitedListener struct {
	net.Listener
	lim       ListenerLimits
	perClient int           // MaxConnsPerClient with its default; 0: none (MaxConns)
	slots     chan struct{} // a token for each connection open
	closed    chan struct{} // closed by Close
	closeOnce sync.Once
	closeErr  error
	lingering atomic.Int32 // refused connections being read

	mu      sync.Mutex     // protects the field below
	clients map[string]int // the connections open, by client
}

// LimitListener returns l with the bounds of lim.
func LimitListener(l net.Listener, lim ListenerLimits) *LimitedListener {
	total := lim.MaxConns
	if total <= 0 {
		total = DefaultListenerMaxConns
	}
	ll := &LimitedListener{Listener: l, lim: lim, slots: make(chan struct{}, total), closed: make(chan struct{}), clients: map[string]int{}}
	ll.perClient = lim.MaxConnsPerClient
	if ll.perClient <= 0 {
		ll.perClient = max(total/2, 1)
	}
	if ll.perClient >= total {
		ll.perClient = 0 // the total bounds it
	}
	return ll
}

// Accept waits for a free place, then for a connection whose client has
// a place left; it refuses the others as it takes them (see
// ListenerLimits).
func (l *LimitedListener) Accept() (net.Conn, error) {
	for {
		select {
		case l.slots <- struct{}{}:
		case <-l.closed:
			return nil, l.closedError()
		}
		select {
		case <-l.closed:
			// Closed while this Accept waited for a place, as it took
			// one.
			<-l.slots
			return nil, l.closedError()
		default:
		}
		c, err := l.Listener.Accept()
		if err != nil {
			l.free()
			return nil, err
		}
		client := ""
		if l.perClient > 0 {
			client = ClientOfHostPort(c.RemoteAddr().String())
			l.mu.Lock()
			n := l.clients[client]
			if n >= l.perClient {
				l.mu.Unlock()
				l.free()
				l.refuse(c)
				continue
			}
			l.clients[client] = n + 1
			l.mu.Unlock()
		}
		return &limitedConn{Conn: c, l: l, client: client}, nil
	}
}

// Clients returns the number of connections open of client (an IP
// address, as ClientOfHostPort gives it); 0 without MaxConnsPerClient.
func (l *LimitedListener) Clients(client string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.clients[client]
}

// free gives back a place taken for a connection.
func (l *LimitedListener) free() { <-l.slots }

// refuse writes the Refusal to c and closes it, reading it for a while
// first when few are read at once.
func (l *LimitedListener) refuse(c net.Conn) {
	if l.lim.OnRefuse != nil {
		l.lim.OnRefuse(c)
	}
	if l.lim.Refusal == "" || l.lingering.Add(1) > maxLingering {
		if l.lim.Refusal != "" {
			l.lingering.Add(-1)
		}
		c.Close()
		return
	}
	go func() {
		defer l.lingering.Add(-1)
		defer c.Close()
		c.SetDeadline(time.Now().Add(refusalLinger))
		if _, err := io.WriteString(c, l.lim.Refusal); err != nil {
			return
		}
		if cw, ok := c.(interface{ CloseWrite() error }); ok {
			cw.CloseWrite()
		}
		io.Copy(io.Discard, io.LimitReader(c, 64<<10))
	}()
}

func (l *LimitedListener) closedError() error {
	return &net.OpError{Op: "accept", Net: l.Addr().Network(), Addr: l.Addr(), Err: net.ErrClosed}
}

// Close closes the listener, and ends the Accepts that wait; later calls
// return what the first returned. The connections accepted stay open.
func (l *LimitedListener) Close() error {
	l.closeOnce.Do(func() {
		close(l.closed)
		l.closeErr = l.Listener.Close()
	})
	return l.closeErr
}

// limitedConn is a connection of a LimitedListener: closing it frees its
// place.
type limitedConn struct {
	net.Conn
	l         *LimitedListener
	client    string
	closeOnce sync.Once
}

func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.closeOnce.Do(func() {
		l := c.l
		if l.perClient > 0 {
			l.mu.Lock()
			if n := l.clients[c.client] - 1; n > 0 {
				l.clients[c.client] = n
			} else {
				delete(l.clients, c.client)
			}
			l.mu.Unlock()
		}
		l.free()
	})
	return err
}

// CloseWrite shuts down the writing side when the connection can (a TCP
// connection): net/http uses it to let the client read an answer before
// the connection closes.
func (c *limitedConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}
