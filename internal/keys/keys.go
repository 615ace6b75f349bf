// Package keys holds the context keys that package jsonrpc and package
// transport share: transports attach values with transport.WithContextValue,
// and methods read them through jsonrpc.Call.
package keys

// ContextValue is the context key of the transport's context value.
type ContextValue struct{}
