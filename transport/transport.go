// Package transport is the surface of package jsonrpc for the authors of
// transports: the code that carries request documents from a network, a
// pipe or a message queue to a *jsonrpc.Server and its answers back. The
// hosts of this module (httprpc, stream, ws and fasthttprpc) are written
// against it alone.
//
// A transport reads a request document into a buffer, answers it with
// (*jsonrpc.Server).ProcessAsync (or Process, when no method blocks) under a
// context made with WithContextValue, and writes the answer. Input it cannot
// pass to the server, such as a message over its size limit, it answers
// itself with AppendError. A host that serves sessions picks the server of a
// request with Route.
package transport

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/internal/keys"
	"github.com/jsonrpc-go/jsonrpc/internal/wire"
)

// WithContextValue returns a copy of ctx carrying v as the transport's
// context value, which methods and hooks read with
// (*jsonrpc.Call).ContextValue: by convention the transport's own object for
// the request or the connection (an *http.Request, a net.Conn).
func WithContextValue(ctx context.Context, v any) context.Context {
	return context.WithValue(ctx, keys.ContextValue{}, v)
}

// AppendError appends to dst a complete response carrying the error e, with
// the request id id: a JSON string, number or null as the request sent it,
// or nil for null. e.Data that is not valid JSON is carried as a string, so
// that the response is always valid JSON.
func AppendError(dst []byte, e *jsonrpc.Error, id json.RawMessage) []byte {
	return wire.AppendErrorData(dst, int64(e.Code), e.Message, e.Data, id)
}

// Route returns the server that answers a request for path in a host that
// serves sessions under prefix: path prefix itself is answered by srv, and
// prefix+id by the session id of sessions, found with Lookup (never
// created). ok is false for a path outside prefix and for an id that names no
// session (always, when sessions is nil); hosts answer those as not found.
// With an empty prefix every path is answered by srv.
func Route(srv *jsonrpc.Server, sessions *jsonrpc.Sessions, prefix, path string) (s *jsonrpc.Server, ok bool) {
	if prefix == "" {
		return srv, true
	}
	id, ok := strings.CutPrefix(path, prefix)
	switch {
	case !ok:
		return nil, false
	case id == "":
		return srv, true
	case sessions == nil:
		return nil, false
	}
	return sessions.Lookup(id)
}

// A Tracker learns of each call that runs on a goroutine of its own: a
// call of a method registered with jsonrpc.Blocking, which
// (*jsonrpc.Server).ProcessAsync starts and returns before it ends. Begin
// runs on the goroutine that called ProcessAsync, before ProcessAsync
// returns and before the call starts, with the request's id as sent (a JSON
// string or number; nil for a notification), valid until the call ends. It
// returns the context the method runs with, usually ctx with a cancel of
// its own, and a function that is called once the method has returned,
// before its answer is delivered (nil if none is needed). A two-way
// connection uses it to cancel one call when its peer asks.
type Tracker interface {
	Begin(ctx context.Context, id []byte) (context.Context, func())
}

// WithTracker returns a copy of ctx carrying t, which the calls of
// (*jsonrpc.Server).ProcessAsync under it report to.
func WithTracker(ctx context.Context, t Tracker) context.Context {
	return context.WithValue(ctx, keys.Tracker{}, keys.CallTracker(t))
}
