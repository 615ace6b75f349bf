package streamhttp

import "time"

// IsResponse is isResponse, for the tests.
var IsResponse = isResponse

// SetResave sets how often h saves a session in use again: < 0 at every
// request.
func SetResave(h *Handler, d time.Duration) { h.resave = d }
