package keys

import "sync/atomic"

// Refused is the context key of a *RefusalSlot: where a host that answers
// in its own terms (an HTTP host, with 401 or 403 and a challenge) learns
// that the server refused a call of its request for who was calling. The
// HTTP hosts set one per request; a connection's context has none.
type Refused struct{}

// A Refusal says why a call was refused for its caller: no Principal (or
// an expired one), or, with Forbidden, a Principal without every one of
// Scopes. A Refusal is never modified once made: the server keeps one per
// guarded method and stores a pointer to it.
type Refusal struct {
	Forbidden bool
	Scopes    []string // those the call requires, with Forbidden
}

// A RefusalSlot holds the last Refusal of a request's calls. The server
// stores into it from whichever goroutine refuses a call; the host reads
// it once the request is answered.
type RefusalSlot struct{ last atomic.Pointer[Refusal] }

// Store records r.
func (s *RefusalSlot) Store(r *Refusal) { s.last.Store(r) }

// Load returns the last Refusal recorded, nil for none.
func (s *RefusalSlot) Load() *Refusal { return s.last.Load() }
