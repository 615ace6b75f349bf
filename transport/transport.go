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
// itself with AppendError. What a host serves is a Handler: a
// *jsonrpc.Server, or what wraps one (middleware, a Router such as
// SessionRouter, which picks a session by the request's path).
//
// A host that authenticates its connections or requests says who is
// calling with the jsonrpc.Principal it puts in their context
// (WithContextValues, once per connection or request): TLSPrincipal for
// a verified client certificate, and the Principal a TokenVerifier gives
// for a bearer token (BearerToken reads it from an Authorization header).
package transport

import (
	"context"
	"encoding/json"
	"net"
	"strings"
	"sync"

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

// WithClient returns a copy of ctx whose calls come from the client named
// client, "" for none: the name by which a server shares its goroutines
// and the bytes of its request copies between clients
// (jsonrpc.Limits.MaxRunningPerClient, MaxHeldPerClient), such as the
// remote IP address, or a key a proxy's headers carry. The hosts of this
// module name the client of each connection and request (stream, ws,
// httprpc, fasthttprpc and streamhttp, each with a ClientKey to name it
// otherwise).
func WithClient(ctx context.Context, client string) context.Context {
	return context.WithValue(ctx, keys.Client{}, client)
}

// WithContextValueFrom is WithContextValue and WithClient at once, in one
// allocation, for a host that makes both for every request.
func WithContextValueFrom(ctx context.Context, v any, client string) context.Context {
	return &valueCtx{Context: ctx, v: v, client: client}
}

// WithContextValues is WithContextValue, WithClient and
// jsonrpc.WithPrincipal at once, in one allocation, for a host that makes
// them for every connection or request: p is who authenticated it (see
// jsonrpc.Principal, TLSPrincipal, TokenVerifier). A nil p keeps the
// Principal of ctx, if any, as a program may set one on the context a
// transport that authenticates nothing serves with.
func WithContextValues(ctx context.Context, v any, client string, p *jsonrpc.Principal) context.Context {
	return &valueCtx{Context: ctx, v: v, client: client, p: p}
}

// valueCtx carries a transport's context value, client name and
// Principal.
type valueCtx struct {
	context.Context
	v      any
	client string
	p      *jsonrpc.Principal // nil: ctx's
}

func (c *valueCtx) Value(key any) any {
	switch key.(type) {
	case keys.ContextValue:
		return c.v
	case keys.Client:
		return c.client
	case keys.Principal:
		if c.p != nil {
			return c.p
		}
	}
	return c.Context.Value(key)
}

// AppendError appends to dst a complete response carrying the error e, with
// the request id id: a JSON string, number or null as the request sent it,
// or nil for null. e.Data that is not valid JSON is carried as a string, so
// that the response is always valid JSON.
func AppendError(dst []byte, e *jsonrpc.Error, id json.RawMessage) []byte {
	return wire.AppendErrorData(dst, int64(e.Code), e.Message, e.Data, id)
}

// Route returns the handler that answers a request for path in a host that
// serves sessions under prefix: path prefix itself is answered by srv, and
// prefix+id by the session id of sessions, found with Lookup (never
// created). ok is false for a path outside prefix and for an id that names no
// session (always, when sessions is nil); hosts answer those as not found.
// With an empty prefix every path is answered by srv. A nil srv is an
// empty method table, which answers every call with "Method not found", as
// a nil Server of every host of this module means.
func Route(srv Handler, sessions *jsonrpc.Sessions, prefix, path string) (h Handler, ok bool) {
	if srv == nil {
		srv = noMethods()
	}
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
	s, ok := sessions.Lookup(id)
	if !ok {
		return nil, false
	}
	return s, true
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

// A Conn carries whole JSON-RPC messages both ways between two ends: the
// framing of a byte stream, WebSocket messages, HTTP exchanges, or a
// queue in memory. Carried with its Traits (a Carrier), it is what a
// two-way connection (peer.New) runs on, what a client (client.New) calls
// over, and what the stream and ws hosts make of each connection they
// serve.
//
// The connection calls Read from one goroutine at a time (its read loop),
// and Write and Flush from one goroutine at a time (its writer), which may
// be another, so that Read may run while Write does. Close may be called
// from any goroutine, at any time.
type Conn interface {
	// Read returns the next message, valid until the next call of Read.
	// Once the input has ended or failed, it returns an error (io.EOF
	// for a clean end). A message it refuses in place of returning it
	// (one over its size limit) is a *MessageError.
	Read() ([]byte, error)
	// Write sends msg, one whole message, or buffers it for Flush. ctx is
	// the context of the call that sends the message (or the
	// connection's, for an answer): a Write that has not begun when ctx
	// ends may return ctx's error without sending, but a message whose
	// writing has begun is written whole, or the Conn fails.
	Write(ctx context.Context, msg []byte) error
	// Flush sends what Write has buffered.
	Flush() error
	// Close closes the Conn; a Read in progress returns.
	Close() error
}

// What a Conn can do beyond its four methods (a whole message in hand,
// exchanges, input all in hand, timed reads) it declares once, in the
// Traits of its Carrier; the connection never looks for methods of its
// own, and the Conn never calls the connection: a message it refuses comes
// back from Read as a *MessageError.

// noMethods is the empty method table that a nil Server means.
var noMethods = sync.OnceValue(func() *jsonrpc.Server { return jsonrpc.NewServer() })

// ClientOf is the client a connection from addr belongs to, as the hosts
// of this module name it by default (transport.Limits.MaxConnsPerClient,
// jsonrpc.Limits.MaxRunningPerClient, MaxHeldPerClient): the IP address of a TCP or UDP
// address (every port of one host is one client), "" (no client) for
// other addresses, such as a Unix socket's or a pipe's.
func ClientOf(addr net.Addr) string {
	switch a := addr.(type) {
	case *net.TCPAddr:
		return a.IP.String()
	case *net.UDPAddr:
		return a.IP.String()
	}
	return ""
}

// ClientOfHostPort is ClientOf for an address written host:port, as
// net/http gives a request's RemoteAddr: the host, or "" when addr has
// no port.
func ClientOfHostPort(addr string) string {
	i := strings.LastIndexByte(addr, ':')
	if i < 0 {
		return ""
	}
	host := addr[:i]
	if len(host) >= 2 && host[0] == '[' && host[len(host)-1] == ']' {
		host = host[1 : len(host)-1] // an IPv6 address
	}
	return host
}
