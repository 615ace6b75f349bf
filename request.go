package jsonrpc

import (
	"context"
	"encoding/json"

	"github.com/jsonrpc-go/jsonrpc/internal/wire"
)

// A Request is a request or a notification that its host has read and
// classified already, in one scan of its bytes, for a handler that takes
// it as it is: (*Server).ProcessRequest, and whatever wraps a Server
// between a host and it (middleware, a router) as a
// transport.RequestHandler, passing it on. A two-way connection
// (package peer) classifies every message it reads, and so does the
// Streamable HTTP host. Only the hosts of this module make one; its spans
// are valid only until the call it is passed to returns.
type Request wire.Scanned

// Is reports whether the request's method is name, decoded: a method
// written with escapes ("$\/cancelRequest") is the method it names.
func (r *Request) Is(name string) bool {
	return wire.NameIs((*wire.Scanned)(r).Req().Method, name)
}

// ID returns the request's id as sent, or nil for a notification.
func (r *Request) ID() json.RawMessage { return (*wire.Scanned)(r).Req().ID }

// Params returns the params as sent, or nil when there are none.
func (r *Request) Params() json.RawMessage { return (*wire.Scanned)(r).Req().Params }

// Bytes returns the whole message, as read.
func (r *Request) Bytes() []byte { return (*wire.Scanned)(r).Msg() }

// ProcessRequest is ProcessAsync for a request its host has classified
// already: the server answers it without scanning it again (or scans it,
// when its own scanner is not the hosts': MaxDepth set, or a large request
// that takes its turn).
func (s *Server) ProcessRequest(ctx context.Context, dst []byte, r *Request, reply func(resp []byte)) {
	sc := (*wire.Scanned)(r)
	switch sc.Kind() {
	case wire.MsgRequest, wire.MsgNotification:
		if s.processScanned(ctx, dst, sc.Msg(), sc.Req(), reply) {
			return
		}
	}
	s.ProcessAsync(ctx, dst, sc.Msg(), reply)
}
