package jsonrpc

import (
	"context"
	"encoding/json"
	"unsafe"

	"github.com/jsonrpc-go/jsonrpc/internal/keys"
	"github.com/jsonrpc-go/jsonrpc/internal/wire"
)

// A Call describes one method call to the method and the interceptors that
// serve it: its method, id and params, the context value of the transport
// that carried it, its session and, to an interceptor, its result. A method
// reaches its Call with CallOf on the context it is given (declare a
// leading context.Context param).
//
// A Call belongs to one call alone. The byte slices it returns alias the
// request and the response being built: they are valid until the method
// returns (for Result, until the interceptor returns) and must not be
// modified; copy them to keep them. Its methods may be called from the
// goroutine running the method or interceptor; SetError may also be called
// from any goroutine before the method returns.
type Call struct {
	server *Server
	method string
	// The spans of the request, and the result, are held as strings over
	// the bytes (see span), so that a Call, and the context that carries
	// it, stays in the allocation size it had before it held the result:
	// a method that takes a context pays nothing for interceptors.
	id      string // "" for a notification
	params  string // "" when the request had none
	request string // the request object, when the scanner recorded it
	result  string // the encoded result, once the method has succeeded under an interceptor
	parent  context.Context
	pending error
	slot    *slot // the call's share of MaxRunning, for a sequence result's method; else nil
}

// span holds b, which must not be empty, as a string over the same bytes:
// the bytes must not change while the Call is in use, as the request's do
// not, and they are only ever read back as bytes with raw.
func span(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// raw returns the bytes span held, with no room to append into, or nil for
// "".
func raw(s string) json.RawMessage {
	if s == "" {
		return nil
	}
	return unsafe.Slice(unsafe.StringData(s), len(s))
}

// Member returns the value of the request object's member name, compared
// with the member names as they decode (escapes undone), or nil when the
// request has none: for the members a protocol adds beside the
// specification's, such as the "traceparent" and "tracestate" that
// StreamJsonRpc sends with a request. When the name is given twice it is
// the last.
func (c *Call) Member(name string) json.RawMessage {
	if c.request == "" {
		return nil
	}
	return wire.Member(raw(c.request), name)
}

// Method returns the name of the method called.
func (c *Call) Method() string { return c.method }

// ID returns the request id exactly as sent (a JSON string, number or null),
// or nil for a notification.
func (c *Call) ID() json.RawMessage { return raw(c.id) }

// IsNotification reports whether the call has no id, so that no response is
// sent.
func (c *Call) IsNotification() bool { return c.id == "" }

// Params returns the params as sent (a JSON array or object), or nil when
// the request had none.
func (c *Call) Params() json.RawMessage { return raw(c.params) }

// ContextValue returns the value the transport that carried the call
// attached to its context (with transport.WithContextValue), or nil: the
// *http.Request for package httprpc, the connection for packages stream and
// ws, the *fasthttp.RequestCtx for fasthttprpc.
func (c *Call) ContextValue() any { return c.parent.Value(keys.ContextValue{}) }

// Server returns the server whose method table serves the call: the session,
// when the call was routed to one. A method may register methods on it.
func (c *Call) Server() *Server { return c.server }

// SessionID returns the id of the session serving the call (see Sessions),
// or "" when the call is served by a server made with NewServer.
func (c *Call) SessionID() string { return c.server.id }

// Result returns the result the call answers with, as it is encoded in the
// response, once an interceptor's next has returned nil; before, after a
// failure, and outside interceptors, nil. It aliases the response: it is
// valid until the interceptor returns and must not be modified.
func (c *Call) Result() json.RawMessage { return raw(c.result) }

// SetError sets the error the call answers with, without returning it: set
// by the method it replaces the method's result or error; set by an
// interceptor before next, the method does not run and next returns it;
// after next, it replaces the outcome. A nil err clears a pending error.
func (c *Call) SetError(err error) { c.pending = err }

// Err returns the pending error set with SetError, or nil.
func (c *Call) Err() error { return c.pending }

// takeErr returns and clears the pending error.
func (c *Call) takeErr() error {
	err := c.pending
	c.pending = nil
	return err
}

type callKey struct{}

// callCtx is the context a method and its interceptors receive: the
// caller's context, carrying the Call. One is allocated per call that needs
// it (a method taking a context, or a server with interceptors), so nothing
// in it is shared with another call.
type callCtx struct {
	context.Context
	call Call
}

func (c *callCtx) Value(key any) any {
	if key == (callKey{}) {
		return &c.call
	}
	return c.Context.Value(key)
}

// CallOf returns the Call that ctx belongs to, or nil when ctx is not the
// context of a method call or interceptor.
func CallOf(ctx context.Context) *Call {
	c, _ := ctx.Value(callKey{}).(*Call)
	return c
}
