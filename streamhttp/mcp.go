package streamhttp

import (
	"encoding/base64"
	"net/http"
	"slices"
	"strings"

	"github.com/jsonrpc-go/jsonrpc/internal/wire"
)

// The error codes of MCP 2026-07-28 that the MCP profile answers with.
const (
	// CodeHeaderMismatch (HeaderMismatch): a header that mirrors the
	// body (MCP-Protocol-Version, Mcp-Method, Mcp-Name) is missing,
	// malformed, or does not match it.
	CodeHeaderMismatch = -32020
	// CodeMissingCapability (MissingRequiredClientCapability).
	CodeMissingCapability = -32021
	// CodeUnsupportedVersion (UnsupportedProtocolVersion): data
	// {"supported": [...], "requested": "..."}.
	CodeUnsupportedVersion = -32022
)

// sessionVersions are the revisions of MCP whose Streamable HTTP has
// sessions (2025-03-26 to 2025-11-25): a request whose
// MCP-Protocol-Version header names one, or that names none, is of the
// handshake era unless its _meta names a version.
var sessionVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26"}

// MCP is the Model Context Protocol's profile of a Handler
// (Handler.MCP): both eras of MCP's Streamable HTTP on one endpoint,
// decided for each request, as MCP 2026-07-28 asks of a server that
// speaks both.
//
// A request whose params._meta names a protocol version
// (io.modelcontextprotocol/protocolVersion), or whose MCP-Protocol-Version
// header names a version other than the handshake era's (2025-11-25,
// 2025-06-18, 2025-03-26), is a request of 2026-07-28, served on its own,
// without a session (an Mcp-Session-Id header is ignored, none is minted):
//
//   - POST only: GET and DELETE with such a header are answered 405.
//   - One message per POST: a batch is answered 400 with -32600, and so is
//     a response, which the client of 2026-07-28 never sends.
//   - A request whose MCP-Protocol-Version header names a version of
//     2026-07-28's era, and whose _meta names none, lacks what that
//     revision requires: 400 with -32602 (invalid params); so does one
//     whose _meta has no io.modelcontextprotocol/clientCapabilities
//     object.
//   - A request carries the headers that mirror its body, compared as
//     HTTP says (names without regard to case, values exactly):
//     MCP-Protocol-Version, equal to the _meta version; Mcp-Method, equal
//     to its method; and, for tools/call and prompts/get, Mcp-Name equal
//     to params.name, for resources/read to params.uri, decoded first
//     when it is Base64 in MCP's sentinel form ("=?base64?...?="). One
//     that is missing, repeated, malformed or different is answered 400
//     with HeaderMismatch (-32020) and the request's id, without running.
//   - A version that is not one of Versions is answered 400 with
//     UnsupportedProtocolVersion (-32022), its data the Supported list
//     and the version requested.
//   - An answer with a JSON body whose error is -32601 (method not found)
//     has status 404, and one whose error is -32020, -32021 or -32022 has
//     400, so that a client tells this server from one of the older
//     transport.
//   - Closing the event stream of a request cancels its method, which
//     sends nothing more.
//
// Any other request belongs to the handshake era (2025-11-25 and before):
// an initialize request without Mcp-Session-Id begins a session, whose
// id the answer carries in Mcp-Session-Id; every other request must carry
// it (400 without, 404 for a session that has ended or never was), a
// DELETE ends the session, a GET opens its stream for the server's
// messages that belong to no call, and a GET with Last-Event-ID resumes a
// stream (see Handler). A batch is answered 400 with -32600 in this era
// too: MCP has had one message per POST since 2025-06-18.
//
// The zero MCP is ready to use.
type MCP struct {
	// Versions are the versions of 2026-07-28's era this endpoint
	// serves; nil means ["2026-07-28"].
	Versions []string
	// Supported lists every version the server speaks, newest first, for
	// the data of UnsupportedProtocolVersion; nil means Versions followed
	// by 2025-11-25 and 2025-06-18.
	Supported []string
}

func (m *MCP) versions() []string {
	if m.Versions == nil {
		return []string{"2026-07-28"}
	}
	return m.Versions
}

func (m *MCP) supported() []string {
	if m.Supported == nil {
		return append(slices.Clone(m.versions()), "2025-11-25", "2025-06-18")
	}
	return m.Supported
}

// modernHeader reports whether r's MCP-Protocol-Version names a version
// outside the handshake era: a request of 2026-07-28's.
func modernHeader(r *http.Request) bool {
	vs := r.Header.Values("Mcp-Protocol-Version")
	return len(vs) > 0 && !(len(vs) == 1 && slices.Contains(sessionVersions, vs[0]))
}

// A refusal is an answer the profile makes without running the request.
type refusal struct {
	status int
	body   []byte // a JSON-RPC error response
}

// check decides the era of a POST whose message is of kind, with the
// members req: modern reports a request of 2026-07-28, to be served on its
// own; a refusal, the answer to write instead.
func (m *MCP) check(r *http.Request, kind wire.MsgKind, req *wire.Request) (modern bool, ref *refusal) {
	if kind == wire.MsgBatch || kind == wire.MsgResponses {
		return false, &refusal{http.StatusBadRequest, wire.AppendError(nil, -32600, "Invalid Request", wire.AppendQuote(nil, "MCP takes one JSON-RPC message per POST, not a batch"), nil)}
	}
	var meta, metaVersion []byte
	if kind == wire.MsgRequest || kind == wire.MsgNotification {
		meta = wire.Member(req.Params, "_meta")
		metaVersion = wire.Member(meta, "io.modelcontextprotocol/protocolVersion")
	}
	if metaVersion == nil && !modernHeader(r) {
		return false, nil
	}
	if hv, _ := single(r.Header, "Mcp-Protocol-Version"); metaVersion == nil && kind == wire.MsgRequest && !slices.Contains(m.versions(), hv) {
		// A version of neither era: what the server speaks.
		return true, m.unsupported(hv, req.ID)
	}
	switch kind {
	case wire.MsgNotification:
		return true, nil
	case wire.MsgRequest:
	default:
		return true, &refusal{http.StatusBadRequest, wire.AppendError(nil, -32600, "Invalid Request", wire.AppendQuote(nil, "MCP 2026-07-28: a client POSTs a request or a notification"), nil)}
	}
	mismatch := func(why string) (bool, *refusal) {
		return true, &refusal{http.StatusBadRequest, wire.AppendError(nil, CodeHeaderMismatch, "Header mismatch: "+why, nil, req.ID)}
	}
	hv, ok := single(r.Header, "Mcp-Protocol-Version")
	if !ok {
		return mismatch("MCP-Protocol-Version header missing or repeated")
	}
	mv, isString := wire.Unquote(metaVersion, false)
	switch {
	case metaVersion == nil:
		// The _meta 2026-07-28 requires is missing: invalid params.
		return true, &refusal{http.StatusBadRequest, wire.AppendError(nil, -32602, "Invalid params", wire.AppendQuote(nil, "MCP-Protocol-Version header names "+hv+", and the request's _meta names no io.modelcontextprotocol/protocolVersion"), req.ID)}
	case !isString:
		return mismatch("the _meta io.modelcontextprotocol/protocolVersion is not a string")
	case hv != mv:
		return mismatch("MCP-Protocol-Version header value '" + hv + "' does not match body value '" + mv + "'")
	}
	if !slices.Contains(m.versions(), mv) {
		return true, m.unsupported(mv, req.ID)
	}
	if caps := wire.Member(meta, "io.modelcontextprotocol/clientCapabilities"); len(caps) == 0 || caps[0] != '{' {
		return true, &refusal{http.StatusBadRequest, wire.AppendError(nil, -32602, "Invalid params", wire.AppendQuote(nil, "the request's _meta has no io.modelcontextprotocol/clientCapabilities object, which MCP 2026-07-28 requires"), req.ID)}
	}
	method, _ := wire.Unquote(req.Method, false)
	hm, ok := single(r.Header, "Mcp-Method")
	switch {
	case !ok:
		return mismatch("Mcp-Method header missing or repeated")
	case hm != method:
		return mismatch("Mcp-Method header value '" + hm + "' does not match body value '" + method + "'")
	}
	var field string
	switch method {
	case "tools/call", "prompts/get":
		field = "name"
	case "resources/read":
		field = "uri"
	default:
		return true, nil
	}
	hn, ok := single(r.Header, "Mcp-Name")
	if !ok {
		return mismatch("Mcp-Name header missing or repeated")
	}
	name, ok := decodeHeader(hn)
	if !ok {
		return mismatch("Mcp-Name header value is not valid")
	}
	raw := wire.Member(req.Params, field)
	body, isString := wire.Unquote(raw, false)
	if !isString || body != name {
		return mismatch("Mcp-Name header value '" + hn + "' does not match body value of params." + field)
	}
	return true, nil
}

// unsupported is the refusal of a request for version v, with id.
func (m *MCP) unsupported(v string, id []byte) *refusal {
	data := []byte(`{"supported":[`)
	for i, s := range m.supported() {
		if i > 0 {
			data = append(data, ',')
		}
		data = wire.AppendQuote(data, s)
	}
	data = append(wire.AppendQuote(append(data, `],"requested":`...), v), '}')
	return &refusal{http.StatusBadRequest, wire.AppendError(nil, CodeUnsupportedVersion, "Unsupported protocol version", data, id)}
}

// single returns the one value of header key in h.
func single(h http.Header, key string) (string, bool) {
	vs := h.Values(key)
	if len(vs) != 1 {
		return "", false
	}
	return vs[0], true
}

// decodeHeader returns the value a header of MCP's carries: the UTF-8
// text of its Base64 in the sentinel form "=?base64?...?=", or itself.
func decodeHeader(v string) (string, bool) {
	const pre, post = "=?base64?", "?="
	if !strings.HasPrefix(v, pre) || !strings.HasSuffix(v, post) || len(v) < len(pre)+len(post) {
		return v, true
	}
	b, err := base64.StdEncoding.DecodeString(v[len(pre) : len(v)-len(post)])
	if err != nil {
		return "", false
	}
	return string(b), true
}

// statusOf returns the status of a modern request's JSON answer resp.
func statusOf(resp []byte) int {
	var r wire.Request
	kind, err := (wire.Scanner{}).Classify(resp, &r)
	if err != nil || kind != wire.MsgResponse || r.Error == nil {
		return http.StatusOK
	}
	code, _ := wire.ParseInt(wire.Member(r.Error, "code"), 64)
	switch code {
	case -32601:
		return http.StatusNotFound
	case CodeHeaderMismatch, CodeMissingCapability, CodeUnsupportedVersion:
		return http.StatusBadRequest
	}
	return http.StatusOK
}
