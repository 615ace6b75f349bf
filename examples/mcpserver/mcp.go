package main

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/peer"
)

// The protocol versions this server speaks, newest first: 2026-07-28, the
// stateless revision, where every request carries its version and the
// client's capabilities in its _meta, and the two before it, which begin
// with the initialize handshake.
const (
	version20260728 = "2026-07-28"
	version20251125 = "2025-11-25"
	version20250618 = "2025-06-18"
)

// supportedVersions is what server/discover and the unsupported-version
// error list.
var supportedVersions = []string{version20260728, version20251125, version20250618}

// legacyVersions are the versions initialize negotiates, newest first.
var legacyVersions = []string{version20251125, version20250618}

// The _meta keys of 2026-07-28.
const (
	metaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	metaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	metaClientInfo         = "io.modelcontextprotocol/clientInfo"
	metaServerInfo         = "io.modelcontextprotocol/serverInfo"
	metaSubscriptionID     = "io.modelcontextprotocol/subscriptionId"
)

// The error codes MCP defines that this server answers with.
const (
	// codeResourceNotFound is the answer to resources/read of an unknown
	// resource up to 2025-11-25; 2026-07-28 answers -32602 instead.
	codeResourceNotFound jsonrpc.Code = -32002
	// codeMissingCapability (MissingRequiredClientCapability, 2026-07-28):
	// the request needs a capability the client did not declare.
	codeMissingCapability jsonrpc.Code = -32021
	// codeUnsupportedVersion (UnsupportedProtocolVersion, 2026-07-28).
	codeUnsupportedVersion jsonrpc.Code = -32022
)

// serverInfo is this server's Implementation.
var serverInfo = implementation{Name: "mcpserver", Version: "1.0.0"}

// Which era a method belongs to: those of the initialize handshake alone,
// and those of 2026-07-28 alone; the others are both's.
var (
	legacyOnly = map[string]bool{"initialize": true, "notifications/initialized": true, "ping": true, "resources/subscribe": true, "resources/unsubscribe": true, "logging/setLevel": true}
	modernOnly = map[string]bool{"server/discover": true, "subscriptions/listen": true}
)

// A request is what the server knows of a request before its method runs:
// the version it is served under and the capabilities of its client, from
// its own _meta (2026-07-28) or from the initialize of the connection
// (earlier versions), or why it is refused.
type request struct {
	modern  bool               // its _meta names its protocol version
	version string             // the version it is served under; "" before initialize
	caps    clientCapabilities // the client's capabilities for it
	err     *jsonrpc.Error     // the answer, when it is refused before its method runs
}

// clientCapabilities are the client capabilities this server looks at.
type clientCapabilities struct {
	elicitation map[string]json.RawMessage // nil when not declared
	sampling    bool
}

// parseCapabilities reads a ClientCapabilities object, and reports
// whether raw is one (an object, whose elicitation is an object if
// present).
func parseCapabilities(raw json.RawMessage) (clientCapabilities, bool) {
	var caps map[string]json.RawMessage
	if json.Unmarshal(raw, &caps) != nil || caps == nil {
		return clientCapabilities{}, false
	}
	var c clientCapabilities
	_, c.sampling = caps["sampling"]
	if e, ok := caps["elicitation"]; ok {
		if json.Unmarshal(e, &c.elicitation) != nil || c.elicitation == nil {
			return clientCapabilities{}, false
		}
	}
	return c, true
}

// formElicitation reports whether the client takes elicitation requests in
// form mode: "elicitation": {} (which means form mode alone) or one that
// names "form".
func (c clientCapabilities) formElicitation() bool {
	if c.elicitation == nil {
		return false
	}
	_, form := c.elicitation["form"]
	_, url := c.elicitation["url"]
	return form || !url
}

// session is what initialize establishes for the requests of the
// connection that do not carry the 2026-07-28 _meta: the connection over
// stdio, an MCP session (Mcp-Session-Id) over Streamable HTTP, whose
// requests all run on one peer.Conn. Requests that carry the _meta
// ignore it.
type session struct {
	conn *peer.Conn // nil for a call that came over no connection

	mu       sync.Mutex // protects the fields below
	version  string     // negotiated by initialize; "" before
	caps     clientCapabilities
	subs     map[string]bool // resources/subscribe's URIs
	logLevel int             // the least severity of notifications/message sent (logging/setLevel)
}

func (s *session) get() (string, clientCapabilities) {
	if s == nil {
		return "", clientCapabilities{}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.version, s.caps
}

// sessionOf returns the session of the connection of ctx, made when make
// is set and it has none yet (and nil otherwise); it is forgotten when the
// connection ends.
func (s *server) sessionOf(ctx context.Context, make bool) *session {
	c := peer.FromContext(ctx)
	if c == nil {
		if make {
			return &session{}
		}
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ss := s.sessions[c]
	if ss == nil && make {
		ss = &session{conn: c}
		s.sessions[c] = ss
		go func() {
			<-c.Done()
			s.mu.Lock()
			delete(s.sessions, c)
			s.mu.Unlock()
		}()
	}
	return ss
}

// eachSession calls f with every session.
func (s *server) eachSession(f func(*session)) {
	s.mu.Lock()
	all := make([]*session, 0, len(s.sessions))
	for _, ss := range s.sessions {
		all = append(all, ss)
	}
	s.mu.Unlock()
	for _, ss := range all {
		f(ss)
	}
}

type requestKey struct{}

// requestOf returns the request of a method's context (see classify).
func requestOf(ctx context.Context) *request {
	r, _ := ctx.Value(requestKey{}).(*request)
	if r == nil {
		return &request{err: jsonrpc.NewError(jsonrpc.CodeInternalError, "")}
	}
	return r
}

// intercept classifies each call once: a request the classification
// refuses is answered with its error without running; the others run with
// the request in their context, and a call that its context ended is
// answered as ended says.
func (s *server) intercept(ctx context.Context, c *jsonrpc.Call, next func(context.Context) error) error {
	r := s.classify(ctx, c.Method(), c.Params(), c.IsNotification())
	if r.err != nil {
		return r.err
	}
	return ended(next(context.WithValue(ctx, requestKey{}, r)))
}

// classify reads a request's _meta and decides how it is served:
//
//   - A request whose _meta names io.modelcontextprotocol/protocolVersion
//     is a 2026-07-28 request, served on its own: a version other than
//     2026-07-28 is answered with UnsupportedProtocolVersion (-32022, data
//     {"supported", "requested"}); a version that is not a string, a
//     missing or malformed io.modelcontextprotocol/clientCapabilities, or a
//     malformed io.modelcontextprotocol/clientInfo with -32602; a method
//     of the handshake's era (initialize, ping, ...) with -32601.
//   - Any other request belongs to the initialize handshake's era: a method
//     of 2026-07-28 alone (server/discover, subscriptions/listen) lacks the
//     _meta it requires (-32602), and, but for initialize and ping, so
//     does any request before initialize.
func (s *server) classify(ctx context.Context, method string, params json.RawMessage, notification bool) *request {
	var members map[string]json.RawMessage
	if json.Unmarshal(params, &members) != nil {
		members = nil // no params, or not an object: the method's binding answers
	}
	var meta map[string]json.RawMessage
	if raw, ok := members["_meta"]; ok && json.Unmarshal(raw, &meta) != nil {
		return &request{err: invalidParams("_meta must be an object")}
	}
	if raw, ok := meta[metaProtocolVersion]; ok {
		r := &request{modern: true}
		v, ok := stringOf(raw)
		if !ok {
			r.err = invalidParams("_meta %q must be a string", metaProtocolVersion)
			return r
		}
		if v != version20260728 {
			r.err = jsonrpc.NewError(codeUnsupportedVersion, "Unsupported protocol version").
				WithData(map[string]any{"supported": supportedVersions, "requested": v})
			return r
		}
		r.version = v
		caps, ok := meta[metaClientCapabilities]
		if ok {
			r.caps, ok = parseCapabilities(caps)
		}
		if !ok {
			r.err = invalidParams("_meta %q is required, an object", metaClientCapabilities)
			return r
		}
		if info, ok := meta[metaClientInfo]; ok {
			if !isImplementation(info) {
				r.err = invalidParams("_meta %q must be an Implementation, with a name and a version", metaClientInfo)
				return r
			}
		}
		if legacyOnly[method] {
			r.err = jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "").WithData(method + " is not a method of MCP " + version20260728)
		}
		return r
	}
	r := &request{}
	r.version, r.caps = s.sessionOf(ctx, false).get()
	switch {
	case modernOnly[method]:
		r.err = invalidParams("%s is a method of MCP %s: its _meta %q is required", method, version20260728, metaProtocolVersion)
	case r.version == "" && method != "initialize" && method != "ping" && !notification:
		r.err = invalidParams("no initialize before %s, and no _meta %q (MCP %s)", method, metaProtocolVersion, version20260728)
	}
	return r
}

// isImplementation reports whether the JSON value v is an Implementation:
// an object with a string name and a string version.
func isImplementation(v json.RawMessage) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(v, &m) != nil {
		return false
	}
	for _, k := range []string{"name", "version"} {
		if _, ok := stringOf(m[k]); !ok {
			return false
		}
	}
	return true
}

// stringOf returns the JSON value v when it is a string.
func stringOf(v json.RawMessage) (string, bool) {
	var s string
	if len(v) == 0 || v[0] != '"' || json.Unmarshal(v, &s) != nil {
		return "", false
	}
	return s, true
}

// invalidParams is the error -32602 with the message made of format.
func invalidParams(format string, args ...any) *jsonrpc.Error {
	return jsonrpc.NewError(jsonrpc.CodeInvalidParams, fmt.Sprintf(format, args...))
}

// The fields every result has under 2026-07-28: its resultType and, in its
// _meta, the server's identity (and, for subscriptions/listen, the
// subscription's id). Under the earlier versions a result has neither.
type (
	resultMeta struct {
		ServerInfo     *implementation `json:"io.modelcontextprotocol/serverInfo,omitempty"`
		SubscriptionID json.RawMessage `json:"io.modelcontextprotocol/subscriptionId,omitempty"`
	}
	resultFields struct {
		ResultType string      `json:"resultType,omitempty"`
		Meta       *resultMeta `json:"_meta,omitempty"`
	}
	// cacheFields are the caching hints of 2026-07-28's cacheable results
	// (server/discover, the lists, resources/read).
	cacheFields struct {
		TTLMs      *int64 `json:"ttlMs,omitempty"`
		CacheScope string `json:"cacheScope,omitempty"`
	}
)

// complete returns the fields of a complete result of r.
func (r *request) complete() resultFields {
	return r.fields("complete")
}

func (r *request) fields(resultType string) resultFields {
	if !r.modern {
		return resultFields{}
	}
	return resultFields{ResultType: resultType, Meta: &resultMeta{ServerInfo: &serverInfo}}
}

// cache returns the caching hints of a cacheable result of r: fresh for
// ttl milliseconds, the same for every client.
func (r *request) cache(ttl int64) cacheFields {
	if !r.modern {
		return cacheFields{}
	}
	return cacheFields{TTLMs: &ttl, CacheScope: "public"}
}

// atLeast reports whether r is served under version v or a later one.
func (r *request) atLeast(v string) bool {
	return r.version >= v
}

// negotiate returns the version initialize answers a client asking for v
// with: v when it is one of the handshake's versions this server speaks,
// and the newest of them otherwise (2026-07-28 has no initialize).
func negotiate(v string) string {
	if slices.Contains(legacyVersions, v) {
		return v
	}
	return legacyVersions[0]
}
