// Package jwtauth verifies the bearer tokens of the HTTP hosts (their
// Tokens: httprpc, streamhttp, ws, fasthttprpc) that are JSON Web Tokens
// signed by an authorization server (RFC 9068's JWT access tokens, an
// OpenID provider's, an Ethereum engine API's), by the keys the server
// publishes (a JSON Web Key Set), fetched, cached and rotated. It is a
// module of its own, so that the library's users who take no JWT download
// no JOSE library: it uses github.com/go-jose/go-jose/v4.
//
//	v := &jwtauth.Verifier{
//		Issuer:   "https://auth.example.com",
//		Audience: []string{"https://files.example.com/mcp"},
//		JWKSURL:  "https://auth.example.com/.well-known/jwks.json",
//	}
//	h := &streamhttp.Handler{Server: srv, Tokens: v}
//
// A token's Principal is its "sub" (or else its "client_id") as Subject,
// its "scope" split at spaces (or else its "scp" array) as Scopes, "aud"
// as Audience, "exp" as Expiry, and its whole claims set, a
// map[string]any, as Claims. A token is refused unless it is signed with
// one of the Algorithms by a key of the set, and is of the Issuer, for
// one of the Audience, unexpired, and valid from its "nbf" and "iat" on
// (each within Leeway); a token without "exp" is refused.
//
// # Keys
//
// The key set is fetched from JWKSURL on the first Verify, and again
// when it is older than Refresh (an hour), and when a token names a key
// ("kid") the set does not hold, so that keys the server rotates in are
// taken without a restart: each fetch within Timeout (5 s), of at most 1
// MiB, and at most one per MinRefresh (30 s), however many tokens name
// keys unknown, so that a flood of them cannot make the verifier flood
// the server. A fetch that fails keeps the keys held.
//
// # Cache
//
// The verdicts of tokens are kept, by the token's SHA-256, at most
// CacheSize (1024) of them, each for CacheTTL (a minute) and never past
// the token's exp; one verification of a token runs at a time, however
// many requests bear it. A refusal for a key unknown is not kept: the
// same token is taken once the key is fetched.
package jwtauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/internal/tokencache"
	"github.com/jsonrpc-go/jsonrpc/transport"
)

// The defaults of a Verifier's bounds.
const (
	DefaultTimeout    = 5 * time.Second
	DefaultRefresh    = time.Hour
	DefaultMinRefresh = 30 * time.Second
	DefaultLeeway     = 30 * time.Second
	DefaultCacheSize  = 1024
	DefaultCacheTTL   = time.Minute
)

// maxKeySet bounds the body of a key set fetched.
const maxKeySet = 1 << 20

// DefaultAlgorithms are the signature algorithms a Verifier takes when
// its Algorithms are not set: the asymmetric ones. HMAC is never taken
// unless listed, since with a public key set it would let anyone sign.
var DefaultAlgorithms = []jose.SignatureAlgorithm{
	jose.RS256, jose.RS384, jose.RS512,
	jose.PS256, jose.PS384, jose.PS512,
	jose.ES256, jose.ES384, jose.ES512,
	jose.EdDSA,
}

// Errors of a Verifier's refusals; the error Verify returns wraps one of
// them, go-jose's, or transport.ErrAudience.
var (
	// ErrUnknownKey: the token names a key the set does not hold, even
	// fetched again (or not yet: MinRefresh had not passed).
	ErrUnknownKey = errors.New("jwtauth: token signed by a key not in the key set")
	// ErrSignature: no key of the set verifies the token's signature.
	ErrSignature = errors.New("jwtauth: token's signature not verified")
	// ErrNoExpiry: the token has no "exp".
	ErrNoExpiry = errors.New("jwtauth: token without an expiry (exp)")
	// ErrNoKeys: the Verifier has no keys: no JWKSURL nor Keys, or the
	// set could not be fetched.
	ErrNoKeys = errors.New("jwtauth: no key set")
)

// A Verifier is a transport.TokenVerifier of JWTs (see the package
// documentation). Set its fields before its first Verify and change none
// afterwards. It is safe for concurrent use by multiple goroutines.
type Verifier struct {
	// Issuer is the "iss" every token must carry: the authorization
	// server's issuer identifier. Required: "" refuses every token.
	Issuer string
	// Audience names this resource (transport.ResourceMetadata's
	// Resource): a token whose "aud" names none of them is refused
	// (transport.CheckAudience). Empty checks no audience, which MCP's
	// authorization forbids: a token issued for another server of the
	// same issuer would be taken.
	Audience []string
	// JWKSURL is where the issuer publishes its key set (its metadata's
	// jwks_uri).
	JWKSURL string
	// Keys is a key set of one's own, used when JWKSURL is "": never
	// fetched nor rotated.
	Keys *jose.JSONWebKeySet
	// Algorithms are the signature algorithms taken: DefaultAlgorithms
	// when nil.
	Algorithms []jose.SignatureAlgorithm
	// Leeway is the clock skew allowed for exp, nbf and iat:
	// DefaultLeeway (30 s) when 0; a negative Leeway allows none.
	Leeway time.Duration

	// Client fetches the key set; nil: http.DefaultClient.
	Client *http.Client
	// Timeout bounds each fetch of the key set: DefaultTimeout (5 s)
	// when 0.
	Timeout time.Duration
	// Refresh is the age past which the key set is fetched again:
	// DefaultRefresh (an hour) when 0.
	Refresh time.Duration
	// MinRefresh is the least time between two fetches of the key set:
	// DefaultMinRefresh (30 s) when 0.
	MinRefresh time.Duration
	// CacheSize is how many tokens' verdicts are kept: DefaultCacheSize
	// (1024) when 0; a negative CacheSize keeps none.
	CacheSize int
	// CacheTTL is how long a verdict is kept, at most: DefaultCacheTTL (a
	// minute) when 0, and never past the token's exp.
	CacheTTL time.Duration

	once  sync.Once
	cache tokencache.Cache
	now   func() time.Time // time.Now; tests set another

	keys    atomic.Pointer[keySet] // the keys held; nil before the first fetch
	fetchMu sync.Mutex             // held while the key set is fetched
	fetches atomic.Int64           // the fetches tried, for tests
}

var _ transport.TokenVerifier = (*Verifier)(nil)

// A keySet is a key set as fetched at a time.
type keySet struct {
	set     *jose.JSONWebKeySet
	fetched time.Time // when it was fetched, or last tried
}

func (v *Verifier) init() {
	v.cache.Max = v.CacheSize
	if v.CacheSize == 0 {
		v.cache.Max = DefaultCacheSize
	}
	if v.now == nil {
		v.now = time.Now
	}
}

func or(d, def time.Duration) time.Duration {
	if d == 0 {
		return def
	}
	return d
}

// Verify returns the Principal of token, from the cache or verified (see
// the package documentation).
func (v *Verifier) Verify(ctx context.Context, token string) (*jsonrpc.Principal, error) {
	v.once.Do(v.init)
	return v.cache.Verify(ctx, token, v.now, func(ctx context.Context) (*jsonrpc.Principal, error, time.Time, bool) {
		p, err := v.verify(ctx, token)
		until := v.now().Add(or(v.CacheTTL, DefaultCacheTTL))
		if p != nil && p.Expiry.Before(until) {
			until = p.Expiry
		}
		keep := !errors.Is(err, ErrUnknownKey) && !errors.Is(err, ErrNoKeys)
		return p, err, until, keep
	})
}

// verify verifies token.
func (v *Verifier) verify(ctx context.Context, token string) (*jsonrpc.Principal, error) {
	if v.Issuer == "" {
		return nil, errors.New("jwtauth: the Verifier has no Issuer")
	}
	algs := v.Algorithms
	if algs == nil {
		algs = DefaultAlgorithms
	}
	tok, err := jwt.ParseSigned(token, algs)
	if err != nil {
		return nil, fmt.Errorf("jwtauth: %w", err)
	}
	if len(tok.Headers) != 1 {
		return nil, errors.New("jwtauth: token with more than one signature")
	}
	kid := tok.Headers[0].KeyID
	keys, err := v.keysFor(ctx, kid)
	if err != nil {
		return nil, err
	}
	var (
		std    jwt.Claims
		claims map[string]any
	)
	verified := false
	for _, k := range keys {
		if k.IsPublic() || isSymmetric(k) {
			if tok.Claims(k.Key, &std, &claims) == nil {
				verified = true
				break
			}
		}
	}
	if !verified {
		return nil, ErrSignature
	}
	if std.Expiry == nil {
		return nil, ErrNoExpiry
	}
	leeway := or(v.Leeway, DefaultLeeway)
	if leeway < 0 {
		leeway = 0
	}
	if err := std.ValidateWithLeeway(jwt.Expected{Issuer: v.Issuer, Time: v.now()}, leeway); err != nil {
		return nil, fmt.Errorf("jwtauth: %w", err)
	}
	p := &jsonrpc.Principal{Subject: std.Subject, Audience: std.Audience, Expiry: std.Expiry.Time(), Claims: claims}
	if p.Subject == "" {
		p.Subject, _ = claims["client_id"].(string)
	}
	switch scope := claims["scope"].(type) {
	case string:
		p.Scopes = strings.Fields(scope)
	default:
		if scp, ok := claims["scp"].([]any); ok {
			for _, s := range scp {
				if s, ok := s.(string); ok {
					p.Scopes = append(p.Scopes, s)
				}
			}
		}
	}
	if len(v.Audience) > 0 {
		if err := transport.CheckAudience(p, v.Audience...); err != nil {
			return nil, err
		}
	}
	return p, nil
}

func isSymmetric(k jose.JSONWebKey) bool {
	_, ok := k.Key.([]byte)
	return ok
}

// keysFor returns the keys that may have signed a token naming kid ("":
// none named, every key of the set), fetching the set first when it is
// missing, old, or holds no key of kid, as MinRefresh lets it.
func (v *Verifier) keysFor(ctx context.Context, kid string) ([]jose.JSONWebKey, error) {
	if v.JWKSURL == "" {
		if v.Keys == nil {
			return nil, ErrNoKeys
		}
		return pick(v.Keys, kid)
	}
	ks := v.keys.Load()
	now := v.now()
	switch {
	case ks == nil || now.Sub(ks.fetched) >= or(v.Refresh, DefaultRefresh):
		ks = v.fetch(ctx, ks)
	case now.Sub(ks.fetched) < or(v.MinRefresh, DefaultMinRefresh):
	case ks.set == nil:
		ks = v.fetch(ctx, ks) // the last fetch failed
	default:
		if _, err := pick(ks.set, kid); err != nil {
			ks = v.fetch(ctx, ks) // a key rotated in since
		}
	}
	if ks == nil || ks.set == nil {
		return nil, ErrNoKeys
	}
	return pick(ks.set, kid)
}

// pick returns the keys of set that kid names, or every key when kid is
// "".
func pick(set *jose.JSONWebKeySet, kid string) ([]jose.JSONWebKey, error) {
	if kid == "" {
		if len(set.Keys) == 0 {
			return nil, ErrUnknownKey
		}
		return set.Keys, nil
	}
	keys := set.Key(kid)
	if len(keys) == 0 {
		return nil, fmt.Errorf("%w: %q", ErrUnknownKey, kid)
	}
	return keys, nil
}

// fetch fetches the key set, unless another fetch did since seen was
// loaded (the fetches wait for one another), and returns the keys held
// then. A fetch that fails keeps the keys held, with the time it was
// tried, so that the next waits MinRefresh.
func (v *Verifier) fetch(ctx context.Context, seen *keySet) *keySet {
	v.fetchMu.Lock()
	defer v.fetchMu.Unlock()
	if ks := v.keys.Load(); ks != seen {
		return ks // another fetch came first
	}
	v.fetches.Add(1)
	set, err := v.get(ctx)
	next := &keySet{set: set, fetched: v.now()}
	if err != nil {
		next.set = nil
		if seen != nil {
			next.set = seen.set
		}
	}
	v.keys.Store(next)
	return next
}

// get fetches the key set from JWKSURL.
func (v *Verifier) get(ctx context.Context) (*jose.JSONWebKeySet, error) {
	ctx, cancel := context.WithTimeout(ctx, or(v.Timeout, DefaultTimeout))
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, v.JWKSURL, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	c := v.Client
	if c == nil {
		c = http.DefaultClient
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("jwtauth: key set: %s", resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxKeySet+1))
	switch {
	case err != nil:
		return nil, err
	case len(body) > maxKeySet:
		return nil, fmt.Errorf("jwtauth: key set over %d bytes", maxKeySet)
	}
	var set jose.JSONWebKeySet
	if err := json.Unmarshal(body, &set); err != nil {
		return nil, fmt.Errorf("jwtauth: key set: %w", err)
	}
	return &set, nil
}
