package transport

import (
	"context"
	"crypto/tls"

	"github.com/jsonrpc-go/jsonrpc"
)

// A TokenVerifier checks the bearer tokens (RFC 6750) of the requests of
// an HTTP host: httprpc.Handler, streamhttp.Handler, ws.Handler (at the
// upgrade) and fasthttprpc.Handler take one as their Tokens. Verify
// returns who the token stands for, or an error when it refuses the
// token: one that is malformed, expired, not issued by an issuer it
// trusts, or not issued for this resource (its audience). A nil Principal
// with a nil error is a refusal too. ctx is the request's.
//
// Verify is called for every request that bears a token, from as many
// goroutines at once: it must be safe for concurrent use by multiple
// goroutines, and should cache what it learns of a token (bounded). The
// Principal it returns must not be modified afterwards; it may return the
// same one for every request bearing the same token.
type TokenVerifier interface {
	Verify(ctx context.Context, token string) (*jsonrpc.Principal, error)
}

// TokenVerifierFunc is a function that is a TokenVerifier.
type TokenVerifierFunc func(ctx context.Context, token string) (*jsonrpc.Principal, error)

// Verify returns f(ctx, token).
func (f TokenVerifierFunc) Verify(ctx context.Context, token string) (*jsonrpc.Principal, error) {
	return f(ctx, token)
}

var _ TokenVerifier = TokenVerifierFunc(nil)

// BearerToken returns the token of an Authorization header's value of the
// Bearer scheme (RFC 6750, section 2.1: the scheme's name in any case, one
// space, and a token68 of letters, digits and -._~+/ with trailing '=');
// ok is false for another scheme and for a value that is not of that form.
// The token shares authorization's memory.
func BearerToken[T ~[]byte | ~string](authorization T) (token T, ok bool) {
	const scheme = "bearer"
	if len(authorization) <= len(scheme)+1 || authorization[len(scheme)] != ' ' {
		return token, false
	}
	for i := range len(scheme) {
		if authorization[i]|0x20 != scheme[i] {
			return token, false
		}
	}
	token = authorization[len(scheme)+1:]
	end := len(token)
	for end > 0 && token[end-1] == '=' {
		end--
	}
	if end == 0 {
		return token[:0], false
	}
	for i := range end {
		switch c := token[i]; {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case c == '-', c == '.', c == '_', c == '~', c == '+', c == '/':
		default:
			return token[:0], false
		}
	}
	return token, true
}

// TLSPrincipal returns the Principal of the verified client certificate of
// a TLS connection, as the hosts of this module set it: the leaf of the
// first chain that crypto/tls verified (cs.VerifiedChains; with
// tls.Config.ClientAuth at tls.VerifyClientCertIfGiven or
// tls.RequireAndVerifyClientCert and the ClientCAs to verify with), its
// subject's common name as Subject (or else its first URI, such as a
// SPIFFE ID, or else its whole subject as a distinguished name), its
// NotAfter as Expiry, and the *x509.Certificate itself as Claims. It
// returns nil when cs is nil or holds no verified chain: a certificate
// that crypto/tls did not verify (tls.RequireAnyClientCert) authenticates
// nobody.
func TLSPrincipal(cs *tls.ConnectionState) *jsonrpc.Principal {
	if cs == nil || len(cs.VerifiedChains) == 0 || len(cs.VerifiedChains[0]) == 0 {
		return nil
	}
	leaf := cs.VerifiedChains[0][0]
	p := &jsonrpc.Principal{Subject: leaf.Subject.CommonName, Expiry: leaf.NotAfter, Claims: leaf}
	switch {
	case p.Subject != "":
	case len(leaf.URIs) > 0:
		p.Subject = leaf.URIs[0].String()
	default:
		p.Subject = leaf.Subject.String()
	}
	return p
}
