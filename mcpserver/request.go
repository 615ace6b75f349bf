package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/jsonrpc-go/jsonrpc"
)

// The revisions of MCP a Server speaks, newest first.
const (
	// Version20260728 is the stateless revision: no handshake, every
	// request carries its version and its client's capabilities in its
	// params' _meta.
	Version20260728 = "2026-07-28"
	// Version20251125 and Version20250618 begin with initialize, and keep
	// its outcome for the connection (over HTTP, the session).
	Version20251125 = "2025-11-25"
	Version20250618 = "2025-06-18"
)

// supported is what server/discover and UnsupportedProtocolVersion list;
// handshake, what initialize negotiates, newest first.
var (
	supported = []string{Version20260728, Version20251125, Version20250618}
	handshake = []string{Version20251125, Version20250618}
)

// The _meta keys of 2026-07-28.
const (
	metaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	metaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	metaClientInfo         = "io.modelcontextprotocol/clientInfo"
	metaSubscriptionID     = "io.modelcontextprotocol/subscriptionId"
	metaLogLevel           = "io.modelcontextprotocol/logLevel"
)

// The error codes MCP defines that a Server answers with.
const (
	// CodeResourceNotFound answers resources/read of an unknown resource
	// up to 2025-11-25; 2026-07-28 answers jsonrpc.CodeInvalidParams.
	CodeResourceNotFound jsonrpc.Code = -32002
	// CodeMissingCapability (MissingRequiredClientCapability, 2026-07-28):
	// the request needs a capability its client did not declare.
	CodeMissingCapability jsonrpc.Code = -32021
	// CodeUnsupportedVersion (UnsupportedProtocolVersion, 2026-07-28):
	// data {"supported": [...], "requested": "..."}.
	CodeUnsupportedVersion jsonrpc.Code = -32022
)

// Which era a method belongs to: those of the handshake alone, and those
// of 2026-07-28 alone; the others are both's.
var (
	handshakeOnly = map[string]bool{"initialize": true, "notifications/initialized": true, "ping": true, "resources/subscribe": true, "resources/unsubscribe": true, "logging/setLevel": true}
	statelessOnly = map[string]bool{"server/discover": true, "subscriptions/listen": true}
)

// A Request is what a Server knows of the MCP request a method serves:
// the revision it is served under, its _meta, and its client's
// capabilities, from its own _meta (2026-07-28) or from the initialize of
// its connection (the earlier revisions). A method finds it with
// RequestOf; it must not be modified.
type Request struct {
	// Version is the revision the request is served under: 2026-07-28
	// for a stateless request, what initialize negotiated for the
	// others ("" for a request before initialize: ping, initialize).
	Version string
	// Stateless reports a request of 2026-07-28, whose _meta names its
	// version; it belongs to no session.
	Stateless bool
	// Meta is the request's params._meta as sent (nil without one):
	// under 2026-07-28 the protocol's fields, and the progressToken
	// and the members of the client's own in every revision.
	Meta json.RawMessage
	// Capabilities are the client's, for this request.
	Capabilities ClientCapabilities

	srv      *Server
	logLevel int            // a stateless request's _meta logLevel, as severity; -1 for none
	err      *jsonrpc.Error // the answer, when refused before its method runs
}

// AtLeast reports whether r is served under revision v or a later one.
func (r *Request) AtLeast(v string) bool { return r.Version >= v }

type requestKey struct{}

// RequestOf returns the Request of a call a Server serves, from the
// context its tool, resource, prompt or method was given; nil for any
// other context.
func RequestOf(ctx context.Context) *Request {
	r, _ := ctx.Value(requestKey{}).(*Request)
	return r
}

// ClientCapabilities are a client's capabilities, as it declared them
// (initialize's capabilities, or 2026-07-28's _meta). The zero value
// declares none.
type ClientCapabilities struct {
	// Raw is the ClientCapabilities object as sent.
	Raw json.RawMessage

	members     map[string]json.RawMessage
	elicitation map[string]json.RawMessage // nil when not declared
}

// Has reports whether the client declared the capability name
// ("sampling", "elicitation", "roots", ...).
func (c ClientCapabilities) Has(name string) bool {
	_, ok := c.members[name]
	return ok
}

// FormElicitation reports whether the client takes elicitation requests
// in form mode: "elicitation": {} (form mode alone, as 2025-06-18 has it)
// or one that names "form".
func (c ClientCapabilities) FormElicitation() bool {
	if c.elicitation == nil {
		return false
	}
	_, form := c.elicitation["form"]
	_, url := c.elicitation["url"]
	return form || !url
}

// parseCapabilities reads a ClientCapabilities object, and reports whether
// raw is one (an object, whose elicitation is an object if present).
func parseCapabilities(raw json.RawMessage) (ClientCapabilities, bool) {
	c := ClientCapabilities{Raw: raw}
	if json.Unmarshal(raw, &c.members) != nil || c.members == nil {
		return ClientCapabilities{}, false
	}
	if e, ok := c.members["elicitation"]; ok {
		if json.Unmarshal(e, &c.elicitation) != nil || c.elicitation == nil {
			return ClientCapabilities{}, false
		}
	}
	return c, true
}

// classify reads a request's _meta and decides how it is served:
//
//   - A request whose _meta names io.modelcontextprotocol/protocolVersion
//     is a 2026-07-28 request, served on its own: another version is
//     answered with UnsupportedProtocolVersion; a version that is not a
//     string, a missing or malformed clientCapabilities, or a malformed
//     clientInfo with -32602; a method of the handshake's era with -32601.
//   - Any other request belongs to the handshake's era: a method of
//     2026-07-28 alone lacks the _meta it requires (-32602), and, but for
//     initialize and ping, so does any request before initialize.
func (s *Server) classify(ctx context.Context, method string, params json.RawMessage, notification bool) *Request {
	r := &Request{srv: s, logLevel: -1}
	var members map[string]json.RawMessage
	if json.Unmarshal(params, &members) != nil {
		members = nil // no params, or not an object: the method's binding answers
	}
	var meta map[string]json.RawMessage
	if raw, ok := members["_meta"]; ok {
		if json.Unmarshal(raw, &meta) != nil || meta == nil && string(raw) != "null" {
			r.err = invalidParams("_meta must be an object")
			return r
		}
		r.Meta = raw
	}
	if raw, ok := meta[metaProtocolVersion]; ok {
		r.Stateless = true
		v, ok := stringOf(raw)
		if !ok {
			r.err = invalidParams("_meta %q must be a string", metaProtocolVersion)
			return r
		}
		if v != Version20260728 {
			r.err = jsonrpc.NewError(CodeUnsupportedVersion, "Unsupported protocol version").
				WithData(map[string]any{"supported": supported, "requested": v})
			return r
		}
		r.Version = v
		caps, ok := meta[metaClientCapabilities]
		if ok {
			r.Capabilities, ok = parseCapabilities(caps)
		}
		if !ok {
			r.err = invalidParams("_meta %q is required, an object", metaClientCapabilities)
			return r
		}
		if info, ok := meta[metaClientInfo]; ok && !isImplementation(info) {
			r.err = invalidParams("_meta %q must be an Implementation, with a name and a version", metaClientInfo)
			return r
		}
		if raw, ok := meta[metaLogLevel]; ok {
			l, _ := stringOf(raw)
			if r.logLevel = Level(l).severity(); r.logLevel < 0 {
				r.err = invalidParams("_meta %q must be a level of logging: debug, info, notice, warning, error, critical, alert or emergency", metaLogLevel)
				return r
			}
		}
		if handshakeOnly[method] {
			r.err = jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "").WithData(method + " is not a method of MCP " + Version20260728)
		}
		return r
	}
	if ss := s.sessionOf(ctx, false); ss != nil {
		ss.mu.Lock()
		r.Version, r.Capabilities = ss.version, ss.caps
		ss.mu.Unlock()
	}
	switch {
	case statelessOnly[method]:
		r.err = invalidParams("%s is a method of MCP %s: its _meta %q is required", method, Version20260728, metaProtocolVersion)
	case r.Version == "" && method != "initialize" && method != "ping" && !notification:
		r.err = invalidParams("no initialize before %s, and no _meta %q (MCP %s)", method, metaProtocolVersion, Version20260728)
	}
	return r
}

// intercept classifies each call once: a request the classification
// refuses is answered with its error without running; the others run
// with their Request in their context, and a call that its context ended
// is answered as ended says.
func (s *Server) intercept(ctx context.Context, c *jsonrpc.Call, next func(context.Context) error) error {
	r := s.classify(ctx, c.Method(), c.Params(), c.IsNotification())
	if r.err != nil {
		return r.err
	}
	return ended(next(context.WithValue(ctx, requestKey{}, r)))
}

// ended answers a call that its context ended without the client's
// cancel (the input ended while it ran: a call the client cancelled gets
// no answer at all) with -32603 instead of the library's answers to a
// context error: jsonrpc.CodeCancelled is LSP's RequestCancelled, and
// MCP 2026-07-28 asks new implementations not to use jsonrpc.CodeDeadline.
func ended(err error) error {
	if code := jsonrpc.ErrorCode(err); code == jsonrpc.CodeCancelled || code == jsonrpc.CodeDeadline {
		return jsonrpc.NewError(jsonrpc.CodeInternalError, "").WithData("the call ended before its result: " + err.Error())
	}
	return err
}

// negotiate returns the version initialize answers a client asking for v
// with: v when it is one of the handshake's, and the newest of them
// otherwise (2026-07-28 has no initialize).
func negotiate(v string) string {
	if slices.Contains(handshake, v) {
		return v
	}
	return handshake[0]
}

// isImplementation reports whether v is an Implementation: an object with
// a string name and a string version.
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
// subscription's id). Under the earlier revisions a result has neither.
type (
	resultMeta struct {
		ServerInfo     *Implementation `json:"io.modelcontextprotocol/serverInfo,omitempty"`
		SubscriptionID json.RawMessage `json:"io.modelcontextprotocol/subscriptionId,omitempty"`
	}
	resultFields struct {
		ResultType string      `json:"resultType,omitempty"`
		Meta       *resultMeta `json:"_meta,omitempty"`
	}
	// cacheFields are the caching hints of 2026-07-28's cacheable
	// results (server/discover, the lists, resources/read).
	cacheFields struct {
		TTLMs      *int64 `json:"ttlMs,omitempty"`
		CacheScope string `json:"cacheScope,omitempty"`
	}
)

// complete returns the fields of a complete result of r.
func (r *Request) complete() resultFields { return r.fields("complete") }

func (r *Request) fields(resultType string) resultFields {
	if !r.Stateless {
		return resultFields{}
	}
	return resultFields{ResultType: resultType, Meta: &resultMeta{ServerInfo: &r.srv.info}}
}

// cache returns the caching hints of a cacheable result of r: fresh for
// ms milliseconds, the same for every client.
func (r *Request) cache(ms int64) cacheFields {
	if !r.Stateless {
		return cacheFields{}
	}
	return cacheFields{TTLMs: &ms, CacheScope: "public"}
}
