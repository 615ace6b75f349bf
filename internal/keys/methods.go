package keys

// Methods is the context key of the methods a connection's protocol
// serves beside the Server's (a MethodLookup), which the Server runs for
// a method it has no method of its own for: how a pull of a sequence
// result ($/enumerator/next) is answered inside a batch, where the
// connection's preempters do not see it.
type Methods struct{}

// A MethodLookup returns the method of the name given (one that
// registry.ConnMethod made), or nil.
type MethodLookup func(name []byte) any
