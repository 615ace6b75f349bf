package jsonrpc

import (
	"context"
	"slices"
	"time"

	"github.com/jsonrpc-go/jsonrpc/internal/keys"
)

// A Principal is who is calling: the identity that authenticated the
// connection or the request a call came over. A host sets it once per
// connection or request, from what authenticated it: the verified client
// certificate of a TLS connection, or the bearer token that its
// transport.TokenVerifier accepted (see the hosts' documentation). Over a
// transport that authenticates nothing, such as standard input and output,
// a call has no Principal unless the program gives one (WithPrincipal on
// the context it serves with). Methods, interceptors and protocol layers
// read it alike, with PrincipalOf.
//
// The Principal in a context is shared by every call of its connection or
// request, read from as many goroutines at once: once it is in a context,
// neither it nor what its fields refer to may be modified. An interceptor
// that maps a Principal to another (a certificate's subject to the scopes
// of an account, say) passes a new one to its next through WithPrincipal.
type Principal struct {
	// Subject names who is calling: a token's "sub" claim; for a client
	// certificate, its subject's common name, or else its first URI
	// name (a SPIFFE ID), or else its whole subject as a distinguished
	// name (transport.TLSPrincipal).
	Subject string
	// Scopes are what the credential allows, such as a token's "scope"
	// claim split at spaces; none for a client certificate.
	Scopes []string
	// Audience names the resources the credential was issued for (a
	// token's "aud" claim); none for a client certificate.
	Audience []string
	// Expiry is when the credential stops being valid: a token's "exp",
	// a certificate's NotAfter; the zero Time for none. A host checks it
	// when it authenticates, not at every call of a connection that
	// outlives it.
	Expiry time.Time
	// Claims is what the credential said, as its verifier decoded it: a
	// token verifier's claims (the decoded claims set of a JWT, say); for
	// a client certificate, the verified leaf *x509.Certificate. nil for
	// none.
	Claims any
}

// HasScope reports whether p holds scope, compared byte for byte. A nil
// Principal holds none.
func (p *Principal) HasScope(scope string) bool {
	return p != nil && slices.Contains(p.Scopes, scope)
}

// Expired reports whether p's credential is no longer valid at now: it
// has an Expiry, and now is not before it. A nil Principal has none.
func (p *Principal) Expired(now time.Time) bool {
	return p != nil && !p.Expiry.IsZero() && !now.Before(p.Expiry)
}

// PrincipalOf returns the Principal of the calls under ctx, or nil when
// they are anonymous: their host authenticated nothing, or nobody set
// one. It is the one accessor of who is calling, for methods (declare a
// leading context.Context), interceptors, and the protocol layers above
// them.
func PrincipalOf(ctx context.Context) *Principal {
	p, _ := ctx.Value(keys.Principal{}).(*Principal)
	return p
}

// WithPrincipal returns a copy of ctx whose calls are made by p (nil:
// anonymous, whatever ctx carried): how a host, or a program serving a
// transport that authenticates nothing, says who is calling, and how an
// interceptor gives its next another Principal. p must not be modified
// afterwards (see Principal).
func WithPrincipal(ctx context.Context, p *Principal) context.Context {
	return context.WithValue(ctx, keys.Principal{}, p)
}
