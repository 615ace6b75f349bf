package streamhttp

// IsResponse is isResponse, for the tests.
var IsResponse = isResponse
