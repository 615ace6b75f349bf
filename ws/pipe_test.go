//go:build !js

package ws_test

import (
	"context"
	"net"
	"net/http"
	"sync"
	"testing"

	"github.com/coder/websocket"
)

// pipeListener is a net.Listener whose connections are the ends of
// net.Pipe, so that an http.Server, a Handler and their clients can run
// inside a synctest bubble, where timeouts take no real time.
type pipeListener struct {
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

func newPipeListener() *pipeListener {
	return &pipeListener{conns: make(chan net.Conn), done: make(chan struct{})}
}

func (l *pipeListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *pipeListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

func (l *pipeListener) Addr() net.Addr { return pipeAddr{} }

// dial hands the server one end of a new pipe and returns the other.
func (l *pipeListener) dial(ctx context.Context, _, _ string) (net.Conn, error) {
	c, s := net.Pipe()
	select {
	case l.conns <- s:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

type pipeAddr struct{}

func (pipeAddr) Network() string { return "pipe" }
func (pipeAddr) String() string  { return "pipe" }

// pipeServer serves h over a pipeListener until the test ends. Call it
// inside a synctest bubble.
type pipeServer struct {
	l  *pipeListener
	hs *http.Server
	tr *http.Transport
}

func newPipeServer(t *testing.T, h http.Handler) *pipeServer {
	ps := &pipeServer{l: newPipeListener(), hs: &http.Server{Handler: h}}
	ps.tr = &http.Transport{DialContext: ps.l.dial}
	served := make(chan struct{})
	go func() {
		defer close(served)
		ps.hs.Serve(ps.l)
	}()
	t.Cleanup(func() {
		ps.hs.Close()
		ps.tr.CloseIdleConnections()
		<-served
	})
	return ps
}

// dial opens a WebSocket connection to the server.
func (ps *pipeServer) dial(t *testing.T) *websocket.Conn {
	t.Helper()
	conn, _, err := ps.tryDial()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.CloseNow() })
	return conn
}

func (ps *pipeServer) tryDial() (*websocket.Conn, *http.Response, error) {
	return websocket.Dial(context.Background(), "ws://pipe/", &websocket.DialOptions{HTTPClient: &http.Client{Transport: ps.tr}})
}

// reader reads the messages of conn on a goroutine of its own until a read
// fails, and reports the messages and the error on channels.
type reader struct {
	msgs chan string
	err  chan error
}

// next returns the next message, or the error that ended the reads once
// every message before it has been returned.
func (r *reader) next() (string, error) {
	select {
	case msg := <-r.msgs:
		return msg, nil
	case err := <-r.err:
		r.err <- err
		// The messages read before the error are all in r.msgs by now.
		select {
		case msg := <-r.msgs:
			return msg, nil
		default:
			return "", err
		}
	}
}

func readAll(conn *websocket.Conn) *reader {
	r := &reader{msgs: make(chan string, 1024), err: make(chan error, 1)}
	go func() {
		for {
			_, msg, err := conn.Read(context.Background())
			if err != nil {
				r.err <- err
				return
			}
			r.msgs <- string(msg)
		}
	}()
	return r
}
