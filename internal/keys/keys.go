// Package keys holds the context keys that package jsonrpc and package
// transport share: transports attach values with transport.WithContextValue,
// and methods read them through jsonrpc.Call.
package keys

// ContextValue is the context key of the transport's context value.
type ContextValue struct{}

// NullParams is the context key a transport sets (to any value) for the
// requests it reads whose "params": null the server is to take as absent
// params (jsonrpc.AcceptNullParams), as a connection that speaks LSP does.
type NullParams struct{}

// Client is the context key of the name of the client a call comes from
// (a string), by which a server shares its goroutines between clients
// (jsonrpc.Limits.MaxRunningPerClient).
type Client struct{}

// Codes is the context key of the error codes (a *jsonrpc.Codes) that a
// connection's protocol gives the calls it serves.
type Codes struct{}

// Principal is the context key of who is calling (a *jsonrpc.Principal),
// which a host sets once per connection or request.
type Principal struct{}
