package main

import (
	"log/slog"
	"net"
	"sync"

	"github.com/jsonrpc-go/jsonrpc/transport"
)

// httpListener bounds the connections of an HTTP listener: -max-conns in
// all, waiting in the backlog past it, and -max-conns-per-client of one
// client, answered 429 past it (transport.LimitListener); over TLS, whose
// handshake has not begun when the listener refuses, closed without a
// word.
func httpListener(l net.Listener, cfg config, logger *slog.Logger) net.Listener {
	lim := transport.ListenerLimits{MaxConns: cfg.maxConns, MaxConnsPerClient: cfg.maxConnsPerClient, Refusal: transport.HTTPRefusal}
	if cfg.tls != nil {
		lim.Refusal = ""
	}
	if logger != nil {
		lim.OnRefuse = func(c net.Conn) {
			logger.Warn("connection refused", "remote", c.RemoteAddr().String(), "reason", "too many connections from this client")
		}
	}
	return transport.LimitListener(l, lim)
}

// limitListener is a net.Listener with at most a number of its connections
// open at once. At the cap, Accept waits until one of them closes before it
// takes the next connection from the kernel's backlog, so that connections
// past the cap wait there (and a client sees its connect succeed and its
// request answered late) instead of costing the server memory or a
// goroutine. Close ends the Accepts that wait, and may be called more than
// once.
type limitListener struct {
	net.Listener
	slots     chan struct{} // a token for each connection open
	closed    chan struct{} // closed by Close
	closeOnce sync.Once
	closeErr  error
}

// newLimitListener returns l with at most max connections open at once.
func newLimitListener(l net.Listener, max int) *limitListener {
	return &limitListener{Listener: l, slots: make(chan struct{}, max), closed: make(chan struct{})}
}

// Accept waits for a free slot, then for a connection.
func (l *limitListener) Accept() (net.Conn, error) {
	select {
	case l.slots <- struct{}{}:
	case <-l.closed:
		return nil, l.closedError()
	}
	select {
	case <-l.closed:
		// Closed while this Accept waited for a slot, as it took one.
		<-l.slots
		return nil, l.closedError()
	default:
	}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.slots
		return nil, err
	}
	return &limitConn{Conn: c, slots: l.slots}, nil
}

func (l *limitListener) closedError() error {
	return &net.OpError{Op: "accept", Net: l.Addr().Network(), Addr: l.Addr(), Err: net.ErrClosed}
}

// Close closes the listener; later calls return what the first returned.
func (l *limitListener) Close() error {
	l.closeOnce.Do(func() {
		close(l.closed)
		l.closeErr = l.Listener.Close()
	})
	return l.closeErr
}

// limitConn is a connection of a limitListener: closing it frees its slot.
type limitConn struct {
	net.Conn
	slots     chan struct{}
	closeOnce sync.Once
}

func (c *limitConn) Close() error {
	err := c.Conn.Close()
	c.closeOnce.Do(func() { <-c.slots })
	return err
}

// CloseWrite shuts down the writing side when the connection can (a TCP
// connection): net/http uses it to let the client read an answer before the
// connection closes.
func (c *limitConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}
