package transport

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/jsonrpc-go/jsonrpc"
)

// WellKnownResourcePath is the path under which a protected resource's
// metadata is found (RFC 9728, section 3): the resource's own path follows
// it, as ResourceMetadata.Path gives it.
const WellKnownResourcePath = "/.well-known/oauth-protected-resource"

// ResourceMetadata is the metadata of an OAuth 2.0 protected resource
// (RFC 9728): what a client reads to learn which authorization servers
// issue tokens for the resource, and which scopes it knows, before it
// asks one for a token. MCP's authorization makes every HTTP server of
// the protocol publish it, and name it in the challenge of each 401.
//
// The HTTP hosts of this module take one as their ResourceMetadata: they
// answer a GET of its Path (and of WellKnownResourcePath) with it, and
// add its URL to each WWW-Authenticate challenge they send, as
// resource_metadata. A host mounted elsewhere than at the root of its
// server's paths does not see those requests: mount the metadata itself
// there too (mux.Handle(m.Path(), m)).
//
// A ResourceMetadata is safe for concurrent use by multiple goroutines;
// it must not be modified once it serves.
type ResourceMetadata struct {
	// Resource is the resource's identifier: the URL of the server's
	// endpoint as clients know it (https://example.com/mcp), which the
	// tokens for it name as their audience (RFC 8707). Required.
	Resource string `json:"resource"`
	// AuthorizationServers are the issuer identifiers of the
	// authorization servers whose tokens the resource takes.
	AuthorizationServers []string `json:"authorization_servers,omitempty"`
	// JWKSURI is the URL of the resource's own signing keys, if it
	// signs its answers; not the authorization servers'.
	JWKSURI string `json:"jwks_uri,omitempty"`
	// ScopesSupported are the scopes the resource's methods require.
	ScopesSupported []string `json:"scopes_supported,omitempty"`
	// BearerMethodsSupported are the ways a token may be sent: the hosts
	// of this module read the Authorization header alone, "header".
	BearerMethodsSupported []string `json:"bearer_methods_supported,omitempty"`
	// ResourceName is a name of the resource for people to read.
	ResourceName string `json:"resource_name,omitempty"`
	// ResourceDocumentation, ResourcePolicyURI and ResourceTOSURI are the
	// URLs of the resource's documentation, of its data policy and of its
	// terms of service.
	ResourceDocumentation string `json:"resource_documentation,omitempty"`
	ResourcePolicyURI     string `json:"resource_policy_uri,omitempty"`
	ResourceTOSURI        string `json:"resource_tos_uri,omitempty"`
	// TLSClientCertificateBoundAccessTokens says that the resource takes
	// only tokens bound to the client's certificate (RFC 8705).
	TLSClientCertificateBoundAccessTokens bool `json:"tls_client_certificate_bound_access_tokens,omitempty"`
}

// URL returns the URL at which m is published (RFC 9728, section 3.1):
// WellKnownResourcePath inserted between the host of m.Resource and its
// path, without the path's trailing slash, and its query after them. It
// returns "" when m is nil or m.Resource is not an absolute URL.
func (m *ResourceMetadata) URL() string {
	u := m.wellKnown()
	if u == nil {
		return ""
	}
	return u.String()
}

// Path returns the path of m's URL: WellKnownResourcePath followed by the
// path of m.Resource ("/.well-known/oauth-protected-resource/mcp" for
// https://example.com/mcp); WellKnownResourcePath when m is nil or its
// Resource is not an absolute URL.
func (m *ResourceMetadata) Path() string {
	u := m.wellKnown()
	if u == nil {
		return WellKnownResourcePath
	}
	return u.Path
}

func (m *ResourceMetadata) wellKnown() *url.URL {
	if m == nil {
		return nil
	}
	u, err := url.Parse(m.Resource)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return nil
	}
	return &url.URL{Scheme: u.Scheme, Host: u.Host, Path: WellKnownResourcePath + strings.TrimSuffix(u.Path, "/"), RawQuery: u.RawQuery}
}

// Serves reports whether m is published at path, a request's URL path:
// m.Path(), or WellKnownResourcePath, where clients look when the first
// is not found. It is false for a nil m.
func (m *ResourceMetadata) Serves(path string) bool {
	return m != nil && strings.HasPrefix(path, WellKnownResourcePath) && (path == WellKnownResourcePath || path == m.Path())
}

// ServeHTTP answers a GET or HEAD with m as JSON, readable by the pages
// of any origin (Access-Control-Allow-Origin: *; an OPTIONS preflight is
// answered 204), and any other method with 405.
func (m *ResourceMetadata) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Access-Control-Allow-Origin", "*")
	switch r.Method {
	case http.MethodGet, http.MethodHead:
	case http.MethodOptions:
		h.Set("Access-Control-Allow-Methods", "GET, HEAD, OPTIONS")
		h.Set("Access-Control-Allow-Headers", "*")
		w.WriteHeader(http.StatusNoContent)
		return
	default:
		h.Set("Allow", "GET, HEAD, OPTIONS")
		http.Error(w, "jsonrpc: method not allowed; use GET", http.StatusMethodNotAllowed)
		return
	}
	b, err := json.Marshal(m)
	if err != nil {
		http.Error(w, "jsonrpc: "+err.Error(), http.StatusInternalServerError)
		return
	}
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "max-age=300")
	if r.Method == http.MethodGet {
		w.Write(b)
	}
}

// ErrAudience is the error of a token that was not issued for the
// resource that checks it (CheckAudience).
var ErrAudience = errors.New("jsonrpc: token not issued for this resource")

// CheckAudience returns nil when p's Audience names one of accepted, the
// identifiers of the resource that checks it, and an error wrapping
// ErrAudience otherwise (for a nil p, and for a p with no Audience too).
// A TokenVerifier calls it, so that a token issued for another resource,
// however valid, is refused (RFC 8707; MCP's authorization forbids taking
// a token meant for another server, or passing one on). Identifiers that
// are URLs match as URLs: their scheme and host in any case, a default
// port written or not, a trailing slash or not; others match byte for
// byte.
func CheckAudience(p *jsonrpc.Principal, accepted ...string) error {
	if p != nil {
		for _, a := range p.Audience {
			for _, r := range accepted {
				if sameResource(a, r) {
					return nil
				}
			}
		}
	}
	var aud []string
	if p != nil {
		aud = p.Audience
	}
	return fmt.Errorf("%w: its audience %q names none of %q", ErrAudience, aud, accepted)
}

// sameResource reports whether a and b identify one resource.
func sameResource(a, b string) bool {
	if a == b {
		return true
	}
	ua, ea := url.Parse(a)
	ub, eb := url.Parse(b)
	if ea != nil || eb != nil || ua.Scheme == "" || ua.Host == "" || ub.Scheme == "" || ub.Host == "" {
		return false
	}
	return strings.EqualFold(ua.Scheme, ub.Scheme) && strings.EqualFold(hostPort(ua), hostPort(ub)) &&
		strings.TrimSuffix(ua.EscapedPath(), "/") == strings.TrimSuffix(ub.EscapedPath(), "/") &&
		ua.RawQuery == ub.RawQuery && ua.User.String() == ub.User.String()
}

// hostPort returns u's host with its port, without the scheme's default.
func hostPort(u *url.URL) string {
	switch port := u.Port(); {
	case port == "",
		port == "443" && strings.EqualFold(u.Scheme, "https"),
		port == "80" && strings.EqualFold(u.Scheme, "http"):
		return u.Hostname()
	}
	return u.Host
}
