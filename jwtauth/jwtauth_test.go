package jwtauth_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/jsonrpc-go/jsonrpc/jwtauth"
	"github.com/jsonrpc-go/jsonrpc/transport"
)

const (
	issuer   = "https://auth.example.com"
	resource = "https://files.example.com/mcp"
)

// A key of the issuer's, with its id.
type key struct {
	jwk jose.JSONWebKey // the private key
}

func newRSAKey(t *testing.T, kid string) key {
	t.Helper()
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	return key{jose.JSONWebKey{Key: k, KeyID: kid, Algorithm: string(jose.RS256), Use: "sig"}}
}

func newECKey(t *testing.T, kid string) key {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return key{jose.JSONWebKey{Key: k, KeyID: kid, Algorithm: string(jose.ES256), Use: "sig"}}
}

// sign returns a JWT of claims signed with k, naming kid in its header.
func (k key) sign(t *testing.T, kid string, claims map[string]any) string {
	t.Helper()
	opts := (&jose.SignerOptions{}).WithType("at+jwt").WithHeader(jose.HeaderKey("kid"), kid)
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.SignatureAlgorithm(k.jwk.Algorithm), Key: k.jwk.Key}, opts)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := jwt.Signed(s).Claims(claims).Serialize()
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func claims(sub string, exp time.Time, scope string, aud ...string) map[string]any {
	return map[string]any{"iss": issuer, "sub": sub, "aud": aud, "exp": exp.Unix(), "iat": time.Now().Unix(), "scope": scope, "client_id": "app"}
}

// issuerServer publishes a key set, which the test may change, and
// counts its fetches.
type issuerServer struct {
	*httptest.Server
	mu    sync.Mutex
	keys  []key
	delay time.Duration
}

func newIssuer(t *testing.T, keys ...key) *issuerServer {
	s := &issuerServer{keys: keys}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		var set jose.JSONWebKeySet
		for _, k := range s.keys {
			set.Keys = append(set.Keys, k.jwk.Public())
		}
		delay := s.delay
		s.mu.Unlock()
		if delay > 0 {
			select {
			case <-time.After(delay):
			case <-r.Context().Done():
				return
			}
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(set)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *issuerServer) publish(keys ...key) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.keys = keys
}

func (s *issuerServer) verifier() *jwtauth.Verifier {
	return &jwtauth.Verifier{Issuer: issuer, Audience: []string{resource}, JWKSURL: s.URL}
}

// TestVerify: a token signed by a key of the set, of the issuer, for
// this resource and unexpired is taken, its Principal from its claims;
// an expired one, a wrongly-signed one, one for another audience or of
// another issuer, one without exp, one of an algorithm not taken (HMAC
// with the public key, none) are refused.
func TestVerify(t *testing.T) {
	k1 := newRSAKey(t, "k1")
	iss := newIssuer(t, k1)
	v := iss.verifier()
	ctx := context.Background()
	exp := time.Now().Add(time.Hour).Truncate(time.Second)

	p, err := v.Verify(ctx, k1.sign(t, "k1", claims("alice", exp, "files:read files:write", "other", resource)))
	if err != nil {
		t.Fatal(err)
	}
	if p.Subject != "alice" || strings.Join(p.Scopes, " ") != "files:read files:write" || !p.Expiry.Equal(exp) || len(p.Audience) != 2 {
		t.Errorf("Principal %+v", p)
	}
	if c, _ := p.Claims.(map[string]any); c["client_id"] != "app" {
		t.Errorf("Claims %v", p.Claims)
	}

	forger := newRSAKey(t, "k1") // a key of another, under the id of the issuer's
	noExp := claims("alice", exp, "files:read", resource)
	delete(noExp, "exp")
	otherIssuer := claims("alice", exp, "files:read", resource)
	otherIssuer["iss"] = "https://evil.example.com"
	scp := claims("bob", exp, "", resource)
	delete(scp, "scope")
	scp["scp"] = []string{"files:read"}
	for _, tc := range []struct {
		name  string
		token string
		want  error // nil: taken
	}{
		{"expired", k1.sign(t, "k1", claims("alice", time.Now().Add(-time.Hour), "files:read", resource)), jwt.ErrExpired},
		{"expired within the leeway", k1.sign(t, "k1", claims("alice", time.Now().Add(-10*time.Second), "files:read", resource)), nil},
		{"not yet valid", k1.sign(t, "k1", func() map[string]any {
			c := claims("alice", exp, "files:read", resource)
			c["nbf"] = time.Now().Add(time.Hour).Unix()
			return c
		}()), jwt.ErrNotValidYet},
		{"wrongly signed", forger.sign(t, "k1", claims("alice", exp, "files:read", resource)), jwtauth.ErrSignature},
		{"another audience", k1.sign(t, "k1", claims("alice", exp, "files:read", "https://other.example.com/mcp")), transport.ErrAudience},
		{"another issuer", k1.sign(t, "k1", otherIssuer), jwt.ErrInvalidIssuer},
		{"no exp", k1.sign(t, "k1", noExp), jwtauth.ErrNoExpiry},
		{"scp", k1.sign(t, "k1", scp), nil},
		{"not a JWT", "opaque-token", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := v.Verify(ctx, tc.token)
			switch {
			case tc.name == "not a JWT":
				if err == nil {
					t.Errorf("taken: %+v", p)
				}
			case tc.want == nil:
				if err != nil || p == nil {
					t.Errorf("refused: %v", err)
				}
			case !errors.Is(err, tc.want) || p != nil:
				t.Errorf("%v, %v; want %v", p, err, tc.want)
			}
		})
	}

	// HMAC signed with the public key's bytes, and alg none, are not
	// among the algorithms taken.
	pub, _ := k1.jwk.Public().MarshalJSON()
	hs, _ := jose.NewSigner(jose.SigningKey{Algorithm: jose.HS256, Key: pub}, (&jose.SignerOptions{}).WithHeader("kid", "k1"))
	hsTok, _ := jwt.Signed(hs).Claims(claims("mallory", exp, "files:write", resource)).Serialize()
	if p, err := v.Verify(ctx, hsTok); err == nil {
		t.Errorf("HS256 taken: %+v", p)
	}
	parts := strings.Split(k1.sign(t, "k1", claims("mallory", exp, "files:write", resource)), ".")
	none := "eyJhbGciOiJub25lIiwia2lkIjoiazEifQ." + parts[1] + "."
	if p, err := v.Verify(ctx, none); err == nil {
		t.Errorf("alg none taken: %+v", p)
	}

	// A Verifier without an Issuer takes nothing.
	if _, err := (&jwtauth.Verifier{JWKSURL: iss.URL}).Verify(ctx, k1.sign(t, "k1", claims("alice", exp, "", resource))); err == nil {
		t.Error("a Verifier without Issuer took a token")
	}
}

// clock is a time the test moves.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time      { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *clock) Add(d time.Duration) { c.mu.Lock(); c.now = c.now.Add(d); c.mu.Unlock() }

// TestRotation (issue 35): keys the issuer rotates in are taken without a
// restart: a token naming a key the set does not hold fetches the set
// again, at most once per MinRefresh however many such tokens come; the
// set is fetched again past Refresh; a fetch that fails keeps the keys.
func TestRotation(t *testing.T) {
	k1, k2, k3 := newRSAKey(t, "k1"), newECKey(t, "k2"), newRSAKey(t, "k3")
	iss := newIssuer(t, k1)
	v := iss.verifier()
	clk := &clock{now: time.Now()}
	jwtauth.SetNow(v, clk.Now)
	ctx := context.Background()
	exp := time.Now().Add(24 * time.Hour) // past the clock's moves
	if _, err := v.Verify(ctx, k1.sign(t, "k1", claims("alice", exp, "", resource))); err != nil {
		t.Fatal(err)
	}
	if n := jwtauth.Fetches(v); n != 1 {
		t.Fatalf("%d fetches, want 1", n)
	}

	// The issuer rotates k2 in: a token of k2 within MinRefresh of the
	// last fetch is refused, uncached; past it, the set is fetched again
	// and the same token taken.
	iss.publish(k1, k2)
	tok2 := k2.sign(t, "k2", claims("bob", exp, "", resource))
	if _, err := v.Verify(ctx, tok2); !errors.Is(err, jwtauth.ErrUnknownKey) {
		t.Errorf("a key rotated in, within MinRefresh: %v", err)
	}
	clk.Add(jwtauth.DefaultMinRefresh)
	if p, err := v.Verify(ctx, tok2); err != nil || p.Subject != "bob" {
		t.Errorf("a key rotated in, past MinRefresh: %v, %v", p, err)
	}
	if n := jwtauth.Fetches(v); n != 2 {
		t.Errorf("%d fetches, want 2", n)
	}

	// A flood of tokens naming keys unknown fetches at most once per
	// MinRefresh.
	clk.Add(jwtauth.DefaultMinRefresh)
	for i := range 50 {
		v.Verify(ctx, k3.sign(t, "unknown-"+string(rune('a'+i%26))+string(rune('a'+i/26)), claims("mallory", exp, "", resource)))
	}
	if n := jwtauth.Fetches(v); n != 3 {
		t.Errorf("50 tokens of unknown keys: %d fetches, want 3", n)
	}

	// The issuer drops k1: its tokens are refused once the set is fetched
	// again past Refresh (and their kept verdicts past CacheTTL).
	iss.publish(k2)
	clk.Add(jwtauth.DefaultRefresh)
	if _, err := v.Verify(ctx, k1.sign(t, "k1", claims("carol", exp, "", resource))); !errors.Is(err, jwtauth.ErrUnknownKey) {
		t.Errorf("a key rotated out: %v", err)
	}

	// A fetch that fails keeps the keys.
	iss.Close()
	clk.Add(jwtauth.DefaultRefresh)
	if p, err := v.Verify(ctx, k2.sign(t, "k2", claims("dave", exp, "", resource))); err != nil || p.Subject != "dave" {
		t.Errorf("with the issuer gone: %v, %v", p, err)
	}
}

// TestFetchBounds: a fetch of the key set ends within Timeout; a set
// that cannot be fetched refuses every token, and is fetched again after
// MinRefresh.
func TestFetchBounds(t *testing.T) {
	k1 := newRSAKey(t, "k1")
	iss := newIssuer(t, k1)
	iss.delay = time.Hour
	v := iss.verifier()
	v.Timeout = 100 * time.Millisecond
	clk := &clock{now: time.Now()}
	jwtauth.SetNow(v, clk.Now)
	tok := k1.sign(t, "k1", claims("alice", time.Now().Add(time.Hour), "", resource))
	start := time.Now()
	if _, err := v.Verify(context.Background(), tok); !errors.Is(err, jwtauth.ErrNoKeys) {
		t.Errorf("a slow issuer: %v", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("an issuer that never answers held Verify %v, Timeout 100 ms", d)
	}
	iss.mu.Lock()
	iss.delay = 0
	iss.mu.Unlock()
	if _, err := v.Verify(context.Background(), tok); !errors.Is(err, jwtauth.ErrNoKeys) {
		t.Errorf("within MinRefresh of the failed fetch: %v", err)
	}
	clk.Add(jwtauth.DefaultMinRefresh)
	if _, err := v.Verify(context.Background(), tok); err != nil {
		t.Errorf("past MinRefresh: %v", err)
	}
}

// TestStaticKeys: Keys of one's own verify without fetching.
func TestStaticKeys(t *testing.T) {
	k1 := newECKey(t, "k1")
	v := &jwtauth.Verifier{Issuer: issuer, Audience: []string{resource}, Keys: &jose.JSONWebKeySet{Keys: []jose.JSONWebKey{k1.jwk.Public()}}}
	if p, err := v.Verify(context.Background(), k1.sign(t, "", claims("alice", time.Now().Add(time.Hour), "", resource))); err != nil || p.Subject != "alice" {
		t.Errorf("%v, %v", p, err)
	}
}
