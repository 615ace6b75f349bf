package jsonrpc

import (
	"errors"
	"fmt"
	"slices"
	"sync"
)

// Sessions is a set of sessions: servers with method tables of their own,
// addressed by an id, that share the options the set was made with. A host
// routes a request to a session by its id (the HTTP hosts by URL path,
// with transport.SessionRouter), so that what one client registers in its
// session is not visible to others.
//
// A session lives from Create to Destroy; hosts only look sessions up, so a
// client cannot create one. The zero value is an empty set, ready to use.
// Sessions is safe for concurrent use by multiple goroutines; lookups take no
// lock. A Sessions must not be copied after first use.
type Sessions struct {
	// Options are the options of each session's server, as NewServer takes
	// them. They must not be changed after the first Create.
	Options []Option

	m sync.Map // session id -> *Server
}

// Create makes the session id with an empty method table and returns its
// server, on which the application registers the session's methods. An
// empty id is an error, and so is one already in use (wrapping
// ErrDuplicate).
func (ss *Sessions) Create(id string) (*Server, error) {
	if id == "" {
		return nil, errors.New("jsonrpc: empty session id")
	}
	s := NewServer(ss.Options...)
	s.id = id
	if _, loaded := ss.m.LoadOrStore(id, s); loaded {
		return nil, fmt.Errorf("%w: session %q", ErrDuplicate, id)
	}
	return s, nil
}

// Lookup returns the server of the session id, if it exists. It never
// creates one.
func (ss *Sessions) Lookup(id string) (*Server, bool) {
	v, ok := ss.m.Load(id)
	if !ok {
		return nil, false
	}
	return v.(*Server), true
}

// Destroy removes the session id and reports whether it existed. Requests
// it is processing finish; later lookups of id fail until Create makes it
// again, empty.
func (ss *Sessions) Destroy(id string) bool {
	_, ok := ss.m.LoadAndDelete(id)
	return ok
}

// IDs returns the ids of the sessions, sorted.
func (ss *Sessions) IDs() []string {
	var ids []string
	ss.m.Range(func(k, _ any) bool {
		ids = append(ids, k.(string))
		return true
	})
	slices.Sort(ids)
	return ids
}
