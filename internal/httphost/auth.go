package httphost

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/transport"
)

// The WWW-Authenticate challenges of a request refused for its
// credentials (RFC 6750, section 3): none given, and a token refused.
const (
	ChallengeNoToken      = `Bearer`
	ChallengeInvalidToken = `Bearer error="invalid_token"`
)

// Authenticate decides who makes a request of an HTTP host whose bearer
// tokens tokens verifies (nil: none), from its Authorization header's
// value and its TLS connection's state (nil: not TLS). The Principal is
// that of the bearer token when the request has one, else that of its
// verified client certificate (transport.TLSPrincipal), else nil.
//
// err is nil when the request may go on; otherwise the host answers it
// with Unauthorized(w, challenge) and logs err, which says why (with the
// verifier's error, which the client is not told): with tokens set, a
// request with neither a bearer token nor a verified certificate, unless
// anonymous is set (it then goes on without a Principal, for the server's
// policies to decide), or whose token tokens refuses (or that is not of
// the form of one, or whose Principal has expired: a verifier's cache may
// outlive a token).
func Authenticate(ctx context.Context, tokens transport.TokenVerifier, anonymous bool, authorization string, cs *tls.ConnectionState) (p *jsonrpc.Principal, challenge string, err error) {
	if tokens == nil {
		return transport.TLSPrincipal(cs), "", nil
	}
	token, ok := transport.BearerToken(authorization)
	switch {
	case ok:
	case bearerScheme(authorization):
		return nil, ChallengeInvalidToken, errMalformed
	default:
		if p := transport.TLSPrincipal(cs); p != nil || anonymous {
			return p, "", nil
		}
		return nil, ChallengeNoToken, errNoToken
	}
	p, err = tokens.Verify(ctx, token)
	switch {
	case err != nil:
		return nil, ChallengeInvalidToken, fmt.Errorf("jsonrpc: bearer token refused: %w", err)
	case p == nil:
		return nil, ChallengeInvalidToken, errRefused
	case p.Expired(time.Now()):
		return nil, ChallengeInvalidToken, errExpired
	}
	return p, "", nil
}

var (
	errNoToken   = errors.New("jsonrpc: no bearer token")
	errMalformed = errors.New("jsonrpc: malformed bearer token")
	errRefused   = errors.New("jsonrpc: bearer token refused")
	errExpired   = errors.New("jsonrpc: bearer token refused: its Principal has expired")
)

// Unauthorized answers a request that Authenticate refused: 401 with
// challenge as its WWW-Authenticate header, with the resource_metadata
// attribute when metadata (the URL of the resource's metadata) is not "",
// and a line of text that says which of the two challenges it is, no
// more.
func Unauthorized(w http.ResponseWriter, challenge, metadata string) {
	w.Header().Set("WWW-Authenticate", WithMetadata(challenge, metadata))
	http.Error(w, UnauthorizedText(challenge), http.StatusUnauthorized)
}

// WithMetadata returns the Bearer challenge challenge with the attribute
// resource_metadata (RFC 9728, section 5.1) of the URL metadata, or
// challenge itself when metadata is "".
func WithMetadata(challenge, metadata string) string {
	switch {
	case metadata == "":
		return challenge
	case challenge == ChallengeNoToken:
		return Challenge("", "", metadata)
	}
	return challenge + ", " + Challenge("", "", metadata)[len("Bearer "):]
}

// Metadata returns the URL of m, "" for a nil m.
func Metadata(m *transport.ResourceMetadata) string {
	if m == nil {
		return ""
	}
	return m.URL()
}

// UnauthorizedText is the text of Unauthorized's answer.
func UnauthorizedText(challenge string) string {
	if challenge == ChallengeNoToken {
		return "jsonrpc: bearer token required"
	}
	return "jsonrpc: bearer token refused"
}

// bearerScheme reports whether the Authorization value authorization is
// of the Bearer scheme, well formed or not.
func bearerScheme(authorization string) bool {
	const scheme = "bearer"
	return len(authorization) >= len(scheme) && strings.EqualFold(authorization[:len(scheme)], scheme) &&
		(len(authorization) == len(scheme) || authorization[len(scheme)] == ' ')
}
