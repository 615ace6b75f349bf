package jsonrpc

// ServiceMethodName exposes the service naming rule to the tests.
var ServiceMethodName = serviceMethodName

// The default limits, for the tests.
const (
	DefaultMaxDepth    = defaultMaxDepth
	DefaultMaxBatch    = defaultMaxBatch
	DefaultMaxResponse = defaultMaxResponse
)
