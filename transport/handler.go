package transport

import (
	"context"

	"github.com/jsonrpc-go/jsonrpc"
)

// A Handler answers JSON-RPC messages: it is what every host of this
// module serves (the Server of stream.Server, ws.Handler, httprpc.Handler,
// fasthttprpc.Handler and peer.Options). A *jsonrpc.Server is one, and so
// is anything that wraps one to intercept, count or route its messages, as
// an http.Handler wraps another. ProcessAsync keeps the contract of
// (*jsonrpc.Server).ProcessAsync: req is one whole message, dst a buffer
// the answer may be appended to, and reply is called once with the answer
// (empty when there is none), before ProcessAsync returns or later, from
// another goroutine; resp is valid only until reply returns.
type Handler interface {
	ProcessAsync(ctx context.Context, dst, req []byte, reply func(resp []byte))
}

// A RequestHandler is a Handler that also takes a request its host has
// classified already (jsonrpc.Request), so that nothing scans it again: a
// two-way connection (package peer) classifies every message it reads,
// and the Streamable HTTP host every request it routes, and each hands
// such a request to a RequestHandler's ProcessRequest. *jsonrpc.Server is
// one; a Handler that wraps one (middleware that counts or logs, a
// router) keeps its host's single scan by being one too, passing the
// request on with the wrapped handler's ProcessRequest
// (ProcessRequestOf does it for any Handler).
type RequestHandler interface {
	Handler
	ProcessRequest(ctx context.Context, dst []byte, r *jsonrpc.Request, reply func(resp []byte))
}

var (
	_ RequestHandler = (*jsonrpc.Server)(nil)
	_ RequestHandler = (*sessionRouter)(nil)
)

// ProcessRequestOf passes r to h: to its ProcessRequest when h is a
// RequestHandler, and otherwise, as bytes, to its ProcessAsync.
func ProcessRequestOf(ctx context.Context, h Handler, dst []byte, r *jsonrpc.Request, reply func(resp []byte)) {
	if rh, ok := h.(RequestHandler); ok {
		rh.ProcessRequest(ctx, dst, r, reply)
		return
	}
	h.ProcessAsync(ctx, dst, r.Bytes(), reply)
}

// A Router is a Handler that picks, by the path a request was made to, the
// Handler that answers it. The HTTP hosts ask it before they read a
// request, and answer 404 Not Found for a path it refuses (ok false);
// hosts without paths serve the Router's own ProcessAsync.
type Router interface {
	Handler
	Route(path string) (h Handler, ok bool)
}

// SessionRouter returns the Router of a server with sessions: the path
// prefix itself is answered by srv, and prefix+id by the session id of
// sessions (found with Lookup, never created, so that clients cannot
// allocate sessions); any other path, and an id that names no session, is
// refused. Its own ProcessAsync is srv's. With an empty prefix it routes
// every path to srv.
func SessionRouter(srv Handler, sessions *jsonrpc.Sessions, prefix string) Router {
	return &sessionRouter{srv: srv, sessions: sessions, prefix: prefix}
}

type sessionRouter struct {
	srv      Handler
	sessions *jsonrpc.Sessions
	prefix   string
}

func (r *sessionRouter) ProcessAsync(ctx context.Context, dst, req []byte, reply func(resp []byte)) {
	h, _ := Route(r.srv, nil, "", "")
	h.ProcessAsync(ctx, dst, req, reply)
}

func (r *sessionRouter) ProcessRequest(ctx context.Context, dst []byte, req *jsonrpc.Request, reply func(resp []byte)) {
	h, _ := Route(r.srv, nil, "", "")
	ProcessRequestOf(ctx, h, dst, req, reply)
}

func (r *sessionRouter) Route(path string) (Handler, bool) {
	return Route(r.srv, r.sessions, r.prefix, path)
}
