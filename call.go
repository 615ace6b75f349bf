package jsonrpc

import (
	"context"
	"encoding/json"

	"github.com/jsonrpc-go/jsonrpc/internal/keys"
	"github.com/jsonrpc-go/jsonrpc/internal/wire"
)

// A Call describes one method call to the method and the hooks that serve
// it: its method, id and params, the context value of the transport that
// carried it, and its session. A method reaches its Call with CallOf on the
// context it is given (declare a leading context.Context param).
//
// A Call belongs to one call alone. The byte slices it returns alias the
// request and are valid until the method returns; copy them to keep them.
// Its methods may be called from the goroutine running the method or hook;
// SetError may also be called from any goroutine before the method returns.
type Call struct {
	server  *Server
	method  string
	id      []byte
	params  []byte
	request []byte // the request object, when the scanner recorded it
	parent  context.Context
	pending error
}

// Member returns the value of the request object's member name, compared
// with the member names as they decode (escapes undone), or nil when the
// request has none: for the members a protocol adds beside the
// specification's, such as the "traceparent" and "tracestate" that
// StreamJsonRpc sends with a request. When the name is given twice it is
// the last.
func (c *Call) Member(name string) json.RawMessage {
	if c.request == nil {
		return nil
	}
	return wire.Member(c.request, name)
}

// Method returns the name of the method called.
func (c *Call) Method() string { return c.method }

// ID returns the request id exactly as sent (a JSON string, number or null),
// or nil for a notification.
func (c *Call) ID() json.RawMessage { return c.id }

// IsNotification reports whether the call has no id, so that no response is
// sent.
func (c *Call) IsNotification() bool { return c.id == nil }

// Params returns the params as sent (a JSON array or object), or nil when
// the request had none.
func (c *Call) Params() json.RawMessage { return c.params }

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

// SetError sets the error the call answers with, without returning it: set
// from a pre-process hook it aborts the call before the method runs; from the
// method it replaces the method's result; from a post-process hook it
// replaces the outcome. A nil err clears a pending error.
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

// callCtx is the context a method and its hooks receive: the caller's
// context, carrying the Call. One is allocated per call that needs it (a
// method taking a context, or a server with hooks), so nothing in it is
// shared with another call.
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
// context of a method call or hook.
func CallOf(ctx context.Context) *Call {
	c, _ := ctx.Value(callKey{}).(*Call)
	return c
}
