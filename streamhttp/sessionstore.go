package streamhttp

import (
	"context"
	"strings"
	"sync"
)

// A SessionState is what a session needs to be served again by a handler
// that did not begin it, or that restarted: a replica behind a load
// balancer (see Handler.Replica and Handler.SessionStore).
type SessionState struct {
	// ID is the session's id, as sent in Mcp-Session-Id.
	ID string
	// Version is the MCP protocol version the initialize answer
	// negotiated (its result's protocolVersion); "" without MCP or when
	// the answer named none.
	Version string
	// Client names the client that began the session (Handler.ClientKey),
	// whose calls the session's are.
	Client string
	// Subject is the subject of the Principal whose request began the
	// session (Handler.Tokens, a client certificate): the requests of
	// another subject, or of none, find no session, on any replica; ""
	// for a session begun anonymously, which is anyone's.
	Subject string
}

// A SessionStore keeps the sessions of a Handler beyond its memory, so
// that a request with an Mcp-Session-Id the handler does not hold (begun
// by another replica, or before a restart) revives the session instead of
// being answered 404. The handler saves a session once its initialize
// (SessionMethod) request is answered, again when a request uses it a
// minute or more after it was last saved (so that a TTL counts from its
// last use), and deletes it when it ends by a DELETE or for being idle;
// Shutdown and Close leave it stored, for another replica to serve. What a
// session's calls ran on its connection (the Server's own state of the
// connection) is not kept: a revived session has a new connection.
//
// A SessionStore must be safe for concurrent use by multiple goroutines.
// Its implementations should bound how long a session stays stored (a
// TTL), since a session that ends with its replica's process is never
// deleted.
type SessionStore interface {
	// Save stores s, replacing what is stored under s.ID.
	Save(s SessionState) error
	// Load returns the session stored under id, and false when none is.
	Load(id string) (SessionState, bool, error)
	// Delete drops the session stored under id, if any.
	Delete(id string) error
}

// MemorySessions is a SessionStore in memory, for handlers in one process
// (and tests). The zero value is ready to use; it is safe for concurrent
// use by multiple goroutines. It keeps what it is given until Delete.
type MemorySessions struct {
	mu       sync.Mutex // protects the field below
	sessions map[string]SessionState
}

var _ SessionStore = (*MemorySessions)(nil)

// Save stores s.
func (m *MemorySessions) Save(s SessionState) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.sessions == nil {
		m.sessions = map[string]SessionState{}
	}
	m.sessions[s.ID] = s
	return nil
}

// Load returns the session stored under id.
func (m *MemorySessions) Load(id string) (SessionState, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.sessions[id]
	return s, ok, nil
}

// Delete drops the session stored under id.
func (m *MemorySessions) Delete(id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.sessions, id)
	return nil
}

// SessionOf returns the state of the session whose call ctx is (that
// context, or one derived from it), and false outside a session.
func SessionOf(ctx context.Context) (SessionState, bool) {
	s, _ := ctx.Value(sessionKey{}).(*session)
	if s == nil {
		return SessionState{}, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stateLocked(), true
}

// ReplicaOf returns the replica named in a session id minted by a Handler
// with a Replica (the text before its first '.'), or "" when it names
// none.
func ReplicaOf(id string) string {
	if i := strings.IndexByte(id, '.'); i > 0 {
		return id[:i]
	}
	return ""
}
