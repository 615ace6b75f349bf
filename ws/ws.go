// Package ws serves and calls JSON-RPC 2.0 over WebSocket: one JSON-RPC
// message (a request, a batch or a response) per WebSocket message. It uses
// github.com/coder/websocket.
//
// Serve a server with a Handler:
//
//	http.Handle("/ws", &ws.Handler{Server: srv})
//
// and call it with a client over Dial:
//
//	ch, err := ws.Dial(ctx, "ws://127.0.0.1:8080/ws", nil)
//	c := client.New(ch)
package ws

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/client"
	"github.com/jsonrpc-go/jsonrpc/transport"
)

// Defaults of Handler's limits.
const (
	DefaultMaxMessage   = 4 << 20
	DefaultMaxConns     = 4096
	DefaultMaxInFlight  = 64
	DefaultWriteTimeout = 30 * time.Second
)

// Handler serves a JSON-RPC server over WebSocket connections. Each message
// is answered through Server.ProcessAsync: calls of methods that complete
// inline are answered in order on the connection's reading goroutine, and
// calls of Blocking methods run concurrently and are answered as they
// finish, up to MaxInFlight calls per connection (reading pauses at the
// limit). Methods get the connection's context, cancelled when it closes,
// carrying the upgrade's *http.Request as the transport's context value.
//
// The zero value of each limit means its default. A Handler is safe for
// concurrent use by multiple goroutines; do not change its fields while it
// serves.
type Handler struct {
	Server *jsonrpc.Server
	// MaxMessage limits the size of a message; a larger one closes the
	// connection with status 1009 (message too big). Default
	// DefaultMaxMessage.
	MaxMessage int64
	// MaxConns is how many connections the Handler serves at once; <= 0
	// means DefaultMaxConns (4096). An upgrade request past it is answered
	// with 503 Service Unavailable, before the upgrade; a connection's place
	// frees when it ends.
	MaxConns int
	// MaxInFlight limits the calls in flight on one connection. Default
	// DefaultMaxInFlight.
	MaxInFlight int
	// WriteTimeout bounds the writing of one response; a peer that does not
	// read its responses is disconnected. Default DefaultWriteTimeout.
	WriteTimeout time.Duration
	// AcceptOptions are passed to websocket.Accept (origin checks,
	// subprotocols, compression). Nil accepts same-origin connections.
	AcceptOptions *websocket.AcceptOptions

	mu       sync.Mutex // protects the fields below
	conns    map[*wsConn]struct{}
	open     int // ServeHTTP calls admitted, upgraded or upgrading
	stopping bool
	serving  sync.WaitGroup // ServeHTTP calls that accepted a connection
}

// wsConn is one served connection.
type wsConn struct {
	conn *websocket.Conn

	mu       sync.Mutex // protects the fields below
	inflight int        // calls dispatched and not yet answered
	stopping bool       // Shutdown: dispatch no further call
	idle     chan struct{}
}

// begin counts a call about to be dispatched; false means the connection
// is shutting down and the call must not run.
func (c *wsConn) begin() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopping {
		return false
	}
	c.inflight++
	return true
}

// end counts an answered call.
func (c *wsConn) end() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.inflight--
	if c.stopping && c.inflight == 0 {
		close(c.idle)
	}
}

// stop makes the connection dispatch no further call and returns a channel
// closed once its calls in flight are answered.
func (c *wsConn) stop() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.stopping {
		c.stopping = true
		if c.inflight == 0 {
			close(c.idle)
		}
	}
	return c.idle
}

// Shutdown stops the handler gracefully: new connections are refused with
// 503, no further call is read from the open ones, the calls in flight
// finish and their answers are written, and then each connection is closed
// with status 1001 (going away). If ctx ends first, the remaining
// connections are closed at once and ctx's error is returned. Register it
// with http.Server.RegisterOnShutdown, or call it before http.Server.Shutdown:
// net/http does not track WebSocket connections.
func (h *Handler) Shutdown(ctx context.Context) error {
	h.mu.Lock()
	h.stopping = true
	conns := make([]*wsConn, 0, len(h.conns))
	for c := range h.conns {
		conns = append(conns, c)
	}
	h.mu.Unlock()
	for _, c := range conns {
		go func() {
			select {
			case <-c.stop():
				c.conn.Close(websocket.StatusGoingAway, "server shutting down")
			case <-ctx.Done():
				c.conn.CloseNow()
			}
		}()
	}
	done := make(chan struct{})
	go func() {
		h.serving.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		for _, c := range conns {
			c.conn.CloseNow()
		}
		<-done
		return ctx.Err()
	}
}

// track registers a new connection, or reports false when shutting down.
func (h *Handler) track(c *wsConn) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.stopping {
		return false
	}
	if h.conns == nil {
		h.conns = map[*wsConn]struct{}{}
	}
	h.conns[c] = struct{}{}
	h.serving.Add(1)
	return true
}

func (h *Handler) untrack(c *wsConn) {
	h.mu.Lock()
	delete(h.conns, c)
	h.mu.Unlock()
	h.serving.Done()
}

// admit counts a connection about to be upgraded, or returns why it is
// refused.
func (h *Handler) admit() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	switch {
	case h.stopping:
		return "server shutting down"
	case h.open >= orDefault(h.MaxConns, DefaultMaxConns):
		return "too many connections"
	}
	h.open++
	return ""
}

func (h *Handler) leave() {
	h.mu.Lock()
	h.open--
	h.mu.Unlock()
}

func orDefault[T int | int64 | time.Duration](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}

// ServeHTTP upgrades the request to a WebSocket connection and serves it
// until the peer closes it, the request's context ends or the handler shuts
// down. It answers 503 Service Unavailable, without upgrading, when MaxConns
// connections are open or the handler is shutting down.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if refused := h.admit(); refused != "" {
		http.Error(w, refused, http.StatusServiceUnavailable)
		return
	}
	defer h.leave()
	conn, err := websocket.Accept(w, r, h.AcceptOptions)
	if err != nil {
		return // Accept has answered the request
	}
	defer conn.CloseNow()
	wc := &wsConn{conn: conn, idle: make(chan struct{})}
	if !h.track(wc) {
		conn.Close(websocket.StatusGoingAway, "server shutting down")
		return
	}
	defer h.untrack(wc)
	conn.SetReadLimit(orDefault(h.MaxMessage, DefaultMaxMessage))
	ctx, cancel := context.WithCancel(transport.WithContextValue(r.Context(), r))
	defer cancel()

	writeTimeout := orDefault(h.WriteTimeout, DefaultWriteTimeout)
	inFlight := make(chan struct{}, orDefault(h.MaxInFlight, DefaultMaxInFlight))
	var calls sync.WaitGroup
	defer calls.Wait() // before CloseNow: answers of calls in flight are written

	buf := make([]byte, 0, 4096)
	for {
		_, msg, err := conn.Read(ctx)
		if err != nil {
			cancel() // stop waiting methods: nobody will read their answers
			return
		}
		select {
		case inFlight <- struct{}{}:
		case <-ctx.Done():
			return
		}
		if !wc.begin() {
			return // shutting down: this call is not run
		}
		calls.Add(1)
		h.Server.ProcessAsync(ctx, buf[:0], msg, func(resp []byte) {
			defer func() {
				<-inFlight
				wc.end()
				calls.Done()
			}()
			if len(resp) == 0 {
				return
			}
			wctx, wcancel := context.WithTimeout(ctx, writeTimeout)
			defer wcancel()
			if conn.Write(wctx, websocket.MessageText, resp) != nil {
				cancel()
				conn.CloseNow()
			}
		})
	}
}

// Dial connects to a JSON-RPC server over WebSocket at url and returns the
// channel for a client.New, which reads messages of up to
// client.DefaultMaxMessage bytes. opts are passed to websocket.Dial; nil uses
// its defaults.
func Dial(ctx context.Context, url string, opts *websocket.DialOptions) (client.Channel, error) {
	conn, _, err := websocket.Dial(ctx, url, opts)
	if err != nil {
		return nil, err
	}
	conn.SetReadLimit(client.DefaultMaxMessage)
	ctx, cancel := context.WithCancel(context.Background())
	return &channel{conn: conn, ctx: ctx, cancel: cancel}, nil
}

type channel struct {
	conn   *websocket.Conn
	ctx    context.Context // ends reads when the channel closes
	cancel context.CancelFunc
}

// Send writes msg. The call's ctx only decides whether to start: the write
// itself runs under the channel's context, because the WebSocket library
// closes the connection when the context of a write ends during it, and one
// call's cancellation must not break the connection of the others.
func (c *channel) Send(ctx context.Context, msg []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return c.conn.Write(c.ctx, websocket.MessageText, msg)
}

func (c *channel) Recv() ([]byte, error) {
	_, msg, err := c.conn.Read(c.ctx)
	return msg, err
}

func (c *channel) Close() error {
	c.cancel()
	err := c.conn.Close(websocket.StatusNormalClosure, "")
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}
