package mcpserver

import (
	"context"

	"sync"

	"github.com/jsonrpc-go/jsonrpc/peer"
)

// A session is what initialize establishes for the requests of a
// connection that do not carry the 2026-07-28 _meta: the connection over
// stdio, an MCP session (Mcp-Session-Id) over Streamable HTTP, whose
// requests all run on one peer.Conn. Stateless requests ignore it.
type session struct {
	conn *peer.Conn // nil for a call that came over no connection

	mu       sync.Mutex // protects the fields below
	version  string     // negotiated by initialize; "" before
	caps     ClientCapabilities
	subs     map[string]bool // resources/subscribe's URIs
	logLevel int             // the least severity of notifications/message sent (logging/setLevel)
}

// sessionOf returns the session of the connection of ctx, made when make
// is set and it has none yet (and nil otherwise); it is forgotten when
// the connection ends.
func (s *Server) sessionOf(ctx context.Context, make bool) *session {
	c := peer.FromContext(ctx)
	if c == nil {
		if make {
			return &session{}
		}
		return nil
	}
	s.smu.Lock()
	defer s.smu.Unlock()
	ss := s.sessions[c]
	if ss == nil && make {
		ss = &session{conn: c}
		s.sessions[c] = ss
		go func() {
			<-c.Done()
			s.smu.Lock()
			delete(s.sessions, c)
			s.smu.Unlock()
		}()
	}
	return ss
}

// eachSession calls f with every session.
func (s *Server) eachSession(f func(*session)) {
	s.smu.Lock()
	all := make([]*session, 0, len(s.sessions))
	for _, ss := range s.sessions {
		all = append(all, ss)
	}
	s.smu.Unlock()
	for _, ss := range all {
		f(ss)
	}
}
