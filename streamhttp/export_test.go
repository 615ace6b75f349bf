package streamhttp

import "time"

// IsResponse is isResponse, for the tests.
var IsResponse = isResponse

// SetResave sets how often h saves a session in use again: < 0 at every
// request.
func SetResave(h *Handler, d time.Duration) { h.resave = d }

// GetCarried reports whether a request carries the GET stream of the
// session id of h.
func GetCarried(h *Handler, id string) bool {
	h.smu.Lock()
	s := h.sessions[id]
	h.smu.Unlock()
	if s == nil {
		return false
	}
	g := s.getStream()
	return g != nil && g.carried()
}

// StreamsOf returns the number of streams the session id of h keeps.
func StreamsOf(h *Handler, id string) int {
	h.smu.Lock()
	s := h.sessions[id]
	h.smu.Unlock()
	if s == nil {
		return -1
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.streams) + len(s.order)
}
