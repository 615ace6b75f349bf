// Package fasthttprpc serves a jsonrpc.Server over HTTP/1.1 with
// github.com/valyala/fasthttp instead of net/http.
//
// It answers the protocol of httprpc.Handler (one request document per
// POST; 404, 405, 415, 413, 204 and 200 as documented there) at a fraction
// of net/http's cost per request: fasthttp reuses its request and response
// objects and allocates nothing per request in the steady state. Choose it
// for many small calls over HTTP/1.1 keep-alive; keep net/http (package
// httprpc) for HTTP/2, for net/http middleware, and for everything
// else that needs the standard library's types.
//
//	s := fasthttprpc.NewServer(srv) // a fasthttp.Server with bounded timeouts
//	log.Fatal(s.ListenAndServe("127.0.0.1:8080"))
//
// or, to configure the fasthttp.Server yourself:
//
//	h := &fasthttprpc.Handler{Server: srv}
//	s := &fasthttp.Server{Handler: h.ServeFastHTTP, ErrorHandler: h.ErrorHandler,
//		ReadTimeout: 30 * time.Second, WriteTimeout: 30 * time.Second, IdleTimeout: 2 * time.Minute}
//
// fasthttp.Server's zero timeouts mean none: a client that opens
// connections and sends nothing keeps them, and a goroutine each, for
// ever. Set them, or use NewServer.
//
// # Differences from httprpc.Handler
//
// The body limit is the fasthttp.Server's MaxRequestBodySize (4 MiB by
// default, the same as httprpc.DefaultMaxBody): fasthttp reads the
// whole body before the handler runs, and a larger one never reaches it.
// With Handler.ErrorHandler as the server's ErrorHandler it is answered
// with 413, as httprpc.Handler answers it; fasthttp's own default is 400.
//
// Methods run with the *fasthttp.RequestCtx as their context, which carries
// it as the transport's context value as well:
// jsonrpc.CallOf(ctx).ContextValue().(*fasthttp.RequestCtx). Its Done
// channel closes when the fasthttp.Server shuts down, not when the client
// goes away: fasthttp does not watch a connection while its handler runs. A
// method must not keep the RequestCtx after it returns.
package fasthttprpc

import (
	"errors"
	"sync"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/transport"
)

// Handler serves a jsonrpc.Server with fasthttp. Its ServeFastHTTP method is
// a fasthttp.RequestHandler. A Handler is safe for concurrent use; its
// fields must not be changed while it serves.
type Handler struct {
	// Server answers the requests (with SessionPrefix set, those for the
	// prefix itself). It must not be nil.
	Server *jsonrpc.Server

	// Sessions and SessionPrefix, when SessionPrefix is not empty, route
	// requests to sessions by URL path as httprpc.Handler does
	// (transport.Route): SessionPrefix+id is the session id of Sessions,
	// the prefix itself Server, and anything else is answered with 404.
	Sessions      *jsonrpc.Sessions
	SessionPrefix string
}

// ServeFastHTTP answers one HTTP request.
func (h *Handler) ServeFastHTTP(ctx *fasthttp.RequestCtx) {
	srv := h.Server
	if h.SessionPrefix != "" {
		var ok bool
		if srv, ok = transport.Route(h.Server, h.Sessions, h.SessionPrefix, string(ctx.Path())); !ok {
			ctx.Error("jsonrpc: no such session", fasthttp.StatusNotFound)
			return
		}
	}
	if !ctx.IsPost() {
		ctx.Error("jsonrpc: method not allowed; use POST", fasthttp.StatusMethodNotAllowed)
		ctx.Response.Header.Set("Allow", fasthttp.MethodPost) // after Error, which resets the headers
		return
	}
	if ct := ctx.Request.Header.ContentType(); !isJSON(ct) {
		ctx.Error("jsonrpc: unsupported Content-Type; use application/json", fasthttp.StatusUnsupportedMediaType)
		return
	}

	x := exchanges.Get().(*exchange)
	x.ctx = ctx
	srv.ProcessAsync(transport.WithContextValue(ctx, ctx), x.buf[:0], ctx.PostBody(), x.reply)
	<-x.done
	x.ctx = nil
	exchanges.Put(x)
}

// Limits of the fasthttp.Server that NewServer returns.
const (
	DefaultMaxBody      = 4 << 20          // a request body, as httprpc.DefaultMaxBody
	DefaultReadTimeout  = 30 * time.Second // a request's headers and body
	DefaultWriteTimeout = 30 * time.Second // a response
	DefaultIdleTimeout  = 2 * time.Minute  // a keep-alive connection between requests
)

// NewServer returns a fasthttp.Server that serves srv with a Handler and its
// ErrorHandler, the body limit DefaultMaxBody (4 MiB, fasthttp's default
// too), and bounded timeouts: DefaultReadTimeout,
// DefaultWriteTimeout and DefaultIdleTimeout. Its fields may be changed
// before it serves.
func NewServer(srv *jsonrpc.Server) *fasthttp.Server {
	h := &Handler{Server: srv}
	return &fasthttp.Server{
		Handler:            h.ServeFastHTTP,
		ErrorHandler:       h.ErrorHandler,
		MaxRequestBodySize: DefaultMaxBody,
		ReadTimeout:        DefaultReadTimeout,
		WriteTimeout:       DefaultWriteTimeout,
		IdleTimeout:        DefaultIdleTimeout,
	}
}

// ErrorHandler answers a request that fasthttp could not read, for use as
// the fasthttp.Server's ErrorHandler: 413 for a body over the server's
// MaxRequestBodySize, 408 for a read timeout, and 400 for anything else.
// The connection is closed after the answer.
func (h *Handler) ErrorHandler(ctx *fasthttp.RequestCtx, err error) {
	var timeout interface{ Timeout() bool }
	switch {
	case errors.Is(err, fasthttp.ErrBodyTooLarge):
		ctx.Error("jsonrpc: request body larger than the server's limit", fasthttp.StatusRequestEntityTooLarge)
	case errors.As(err, &timeout) && timeout.Timeout():
		ctx.Error("jsonrpc: timed out reading the request", fasthttp.StatusRequestTimeout)
	default:
		ctx.Error("jsonrpc: reading the request: "+err.Error(), fasthttp.StatusBadRequest)
	}
	ctx.SetConnectionClose()
}

// isJSON is transport.IsJSONContentType for the usual header without
// converting it to a string (which would allocate).
func isJSON(ct []byte) bool {
	if string(ct) == "application/json" {
		return true
	}
	return transport.IsJSONContentType(string(ct))
}

// An exchange is the per-request state, pooled: the response buffer, the
// reply callback, bound once, and the channel it signals.
type exchange struct {
	buf   []byte
	ctx   *fasthttp.RequestCtx
	reply func([]byte)
	done  chan struct{} // capacity 1: reply never waits for the handler
}

var exchanges = sync.Pool{New: func() any {
	x := &exchange{buf: make([]byte, 0, 1024), done: make(chan struct{}, 1)}
	x.reply = x.write
	return x
}}

// write is the ProcessAsync reply. The response is copied into fasthttp's
// body buffer, so x.buf can be reused at once. (A response that outgrew
// x.buf is not kept as the new buffer: it may be a buffer of the server's,
// when a Blocking method answered.)
func (x *exchange) write(resp []byte) {
	ctx := x.ctx
	if len(resp) == 0 {
		ctx.SetStatusCode(fasthttp.StatusNoContent)
	} else {
		ctx.SetContentType("application/json")
		ctx.SetBody(resp)
	}
	x.done <- struct{}{}
}
