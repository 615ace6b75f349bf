package transport

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"
)

// A Host keeps the connections that a server serves, and the listeners it
// accepts them from, and runs their one shutdown sequence: package
// stream's Server and package ws's Handler are built on one, and so can a
// host of a program's own. The zero Host is ready to use. A Host is safe
// for concurrent use.
//
// Shutdown closes the listeners, stops every connection (Hosted.Stop: it
// runs no more of its peer's messages and ends once the answers of those
// it runs are written), and waits until every connection has ended
// (Remove); if its context ends first, it kills the connections left
// (Hosted.Kill), as Close does at once.
type Host struct {
	mu        sync.Mutex
	closing   bool              // Shutdown or Close has begun
	conns     map[Hosted]string // each connection's client ("" for none)
	clients   map[string]int    // the connections of each client named
	listeners map[io.Closer]struct{}
	closed    chan struct{} // closed when Shutdown or Close begins; made on first use
	drained   chan struct{} // made by Shutdown; closed when no connection is left
}

// A Hosted is a connection of a Host, as its server serves it.
type Hosted interface {
	// Stop begins the connection's graceful end: it runs no more of its
	// peer's messages (see peer.Conn.Shutdown), and ends, and is removed from
	// the Host, once the answers of the messages it runs are written.
	// It must not block.
	Stop()
	// Kill ends the connection at once, cancelling its calls. It must
	// not block.
	Kill()
}

// Errors of Host.Add.
var (
	// ErrHostClosed: Shutdown or Close has begun.
	ErrHostClosed = errors.New("jsonrpc: server shutting down")
	// ErrHostFull: the Host has as many connections as Add allows.
	ErrHostFull = errors.New("jsonrpc: too many connections")
	// ErrClientFull: the connection's client has as many connections as
	// AddFrom allows it.
	ErrClientFull = errors.New("jsonrpc: too many connections from this client")
)

// Add adds c, unless the Host is closing (ErrHostClosed) or has max
// connections already (ErrHostFull; max <= 0 means no limit). The server
// removes it once it has ended.
func (h *Host) Add(c Hosted, max int) error { return h.AddFrom(c, "", max, 0) }

// AddFrom is Add for a connection of the client named client (its remote
// address, or the key a proxy's headers give, see Limits.MaxConnsPerClient),
// which may hold at most perClient connections at once (ErrClientFull;
// perClient <= 0 means no limit), so that one client cannot take every
// connection a Host has. A client named "" is counted in no share.
func (h *Host) AddFrom(c Hosted, client string, max, perClient int) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	switch {
	case h.closing:
		return ErrHostClosed
	case max > 0 && len(h.conns) >= max:
		return ErrHostFull
	case client != "" && perClient > 0 && h.clients[client] >= perClient:
		return ErrClientFull
	}
	if h.conns == nil {
		h.conns = map[Hosted]string{}
	}
	h.conns[c] = client
	if client != "" {
		if h.clients == nil {
			h.clients = map[string]int{}
		}
		h.clients[client]++
	}
	return nil
}

// Remove removes c, which has ended.
func (h *Host) Remove(c Hosted) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if client, ok := h.conns[c]; ok && client != "" {
		if h.clients[client]--; h.clients[client] <= 0 {
			delete(h.clients, client)
		}
	}
	delete(h.conns, c)
	if h.drained != nil && len(h.conns) == 0 {
		select {
		case <-h.drained:
		default:
			close(h.drained)
		}
	}
}

// AddListener adds l, closed by Shutdown and Close, and reports false when
// the Host is closing already (l is not added).
func (h *Host) AddListener(l io.Closer) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closing {
		return false
	}
	if h.listeners == nil {
		h.listeners = map[io.Closer]struct{}{}
	}
	h.listeners[l] = struct{}{}
	return true
}

// RemoveListener removes l.
func (h *Host) RemoveListener(l io.Closer) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.listeners, l)
}

// Len returns the number of connections.
func (h *Host) Len() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.conns)
}

// Closing reports whether Shutdown or Close has begun.
func (h *Host) Closing() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.closing
}

// Closed returns a channel that is closed when Shutdown or Close begins,
// for a server that waits (for room, MaxConns) to stop waiting.
func (h *Host) Closed() <-chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.closedLocked()
	return h.closed
}

func (h *Host) closedLocked() chan struct{} {
	if h.closed == nil {
		h.closed = make(chan struct{})
		if h.closing {
			close(h.closed)
		}
	}
	return h.closed
}

// begin marks the Host closing, closes the listeners, and returns the
// connections and the first error closing a listener; h.mu is held.
func (h *Host) beginLocked() ([]Hosted, error) {
	if !h.closing {
		h.closing = true
		if h.closed != nil {
			close(h.closed)
		}
	}
	var first error
	for l := range h.listeners {
		if err := l.Close(); err != nil && first == nil {
			first = err
		}
		delete(h.listeners, l)
	}
	conns := make([]Hosted, 0, len(h.conns))
	for c := range h.conns {
		conns = append(conns, c)
	}
	return conns, first
}

// Shutdown closes the listeners, stops every connection, and waits until
// all have ended. If ctx ends first, it kills the connections left and
// returns ctx's error. Otherwise it returns the first error closing a
// listener. logger, when not nil, records the shutdown's progress (Info:
// begun and done, with the connections as "conns"; Warn: run out of
// time).
func (h *Host) Shutdown(ctx context.Context, logger *slog.Logger) error {
	h.mu.Lock()
	conns, err := h.beginLocked()
	if h.drained == nil {
		h.drained = make(chan struct{})
		if len(h.conns) == 0 {
			close(h.drained)
		}
	}
	drained := h.drained
	h.mu.Unlock()
	if logger != nil {
		logger.LogAttrs(ctx, slog.LevelInfo, "shutting down", slog.Int("conns", len(conns)))
	}
	for _, c := range conns {
		c.Stop()
	}
	select {
	case <-drained:
		if logger != nil {
			logger.LogAttrs(ctx, slog.LevelInfo, "shutdown complete", slog.Int("conns", len(conns)))
		}
		return err
	case <-ctx.Done():
	}
	if logger != nil {
		logger.LogAttrs(ctx, slog.LevelWarn, "shutdown timed out; closing the connections left", slog.Int("conns", h.Len()), slog.Any("error", ctx.Err()))
	}
	h.Close(logger)
	return ctx.Err()
}

// Close closes the listeners and kills every connection at once, and
// returns the first error closing a listener. logger, when not nil,
// records it (Info, with the connections as "conns").
func (h *Host) Close(logger *slog.Logger) error {
	h.mu.Lock()
	conns, err := h.beginLocked()
	h.mu.Unlock()
	if logger != nil && len(conns) > 0 {
		logger.Info("closing", "conns", len(conns))
	}
	for _, c := range conns {
		c.Kill()
	}
	return err
}
