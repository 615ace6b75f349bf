package jsonrpc

// ServiceMethodName exposes the service naming rule to the tests.
var ServiceMethodName = serviceMethodName
