package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/internal/tokencache"
	"github.com/jsonrpc-go/jsonrpc/transport"
)

// The defaults of an Introspection's bounds.
const (
	DefaultTimeout     = 5 * time.Second
	DefaultCacheSize   = 1024
	DefaultCacheTTL    = time.Minute
	DefaultMaxInFlight = 16
)

// maxResponse bounds the body of an introspection response read.
const maxResponse = 64 << 10

// Errors of an Introspection's refusals; the error Verify returns wraps
// one of them, or says why the authorization server was not asked.
var (
	// ErrInactive: the authorization server says the token is not active
	// (expired, revoked, unknown, or not for this caller to know).
	ErrInactive = errors.New("oauth: token not active")
	// ErrExpired: the token's exp has passed, or its nbf has not come.
	ErrExpired = errors.New("oauth: token expired or not yet valid")
	// ErrIssuer: the token's issuer is not Issuer.
	ErrIssuer = errors.New("oauth: token of another issuer")
	// ErrBusy: MaxInFlight introspections were running, and none ended
	// within Timeout.
	ErrBusy = errors.New("oauth: too many introspections at once")
)

// Introspection is a transport.TokenVerifier that asks an authorization
// server about each token (OAuth 2.0 Token Introspection, RFC 7662): for
// opaque tokens, or to learn at once of a token revoked. The answer of an
// active token is its Principal: "sub" (or else "username", or else
// "client_id") as Subject, "scope" split at spaces as Scopes, "aud" as
// Audience, "exp" as Expiry, and the whole answer, a map[string]any, as
// Claims. A token the server says is inactive is refused (ErrInactive),
// as is one of another audience (transport.ErrAudience) or issuer.
//
// Verdicts are cached, bounded: at most CacheSize tokens (by their
// SHA-256, never the tokens themselves), each for CacheTTL and never past
// the token's exp; refusals for CacheTTL too, so that a token refused is
// not asked about again at each request. One introspection of a token
// runs at a time, however many requests bear it; at most MaxInFlight run
// at once, each within Timeout, so that a flood of unknown tokens holds
// the authorization server to that many requests. An answer that is not
// 200, not JSON, or over 64 KiB refuses the token without being cached.
//
// Set its fields before its first Verify and change none afterwards. It
// is safe for concurrent use by multiple goroutines.
type Introspection struct {
	// Endpoint is the URL of the authorization server's introspection
	// endpoint (its metadata's introspection_endpoint). Required.
	Endpoint string
	// ClientID and ClientSecret, when ClientID is set, authenticate the
	// resource server to the authorization server with HTTP Basic
	// (client_secret_basic, each URL-encoded as RFC 6749 asks).
	ClientID, ClientSecret string
	// Header, when set, is called on each introspection request before it
	// is sent, for another way to authenticate it (a bearer token of the
	// resource server's own).
	Header func(http.Header)
	// Audience names this resource (transport.ResourceMetadata's
	// Resource): a token whose "aud" names none of them is refused
	// (transport.CheckAudience). Empty checks no audience, which MCP's
	// authorization forbids: a token issued for another server would be
	// taken.
	Audience []string
	// Issuer, when set, is the only "iss" taken; a token whose answer
	// names another issuer, or none, is refused.
	Issuer string

	// Client sends the introspection requests; nil: a client of its own
	// (http.DefaultTransport's connections).
	Client *http.Client
	// Timeout bounds each introspection, and the wait for one of
	// MaxInFlight: DefaultTimeout (5 s) when 0.
	Timeout time.Duration
	// MaxInFlight is how many introspections run at once:
	// DefaultMaxInFlight (16) when 0.
	MaxInFlight int
	// CacheSize is how many tokens' verdicts are kept: DefaultCacheSize
	// (1024) when 0; a negative CacheSize keeps none.
	CacheSize int
	// CacheTTL is how long a verdict is kept, at most: DefaultCacheTTL (a
	// minute) when 0. A token's is never kept past its exp; a token
	// revoked is taken until its verdict is dropped.
	CacheTTL time.Duration

	once  sync.Once
	cache tokencache.Cache
	slots chan struct{}
	now   func() time.Time // time.Now; tests set another
}

var _ transport.TokenVerifier = (*Introspection)(nil)

func (v *Introspection) init() {
	v.cache.Max = orDefault(v.CacheSize, DefaultCacheSize)
	v.slots = make(chan struct{}, orDefault(v.MaxInFlight, DefaultMaxInFlight))
	if v.now == nil {
		v.now = time.Now
	}
}

func orDefault(n, d int) int {
	if n == 0 {
		return d
	}
	return n
}

func (v *Introspection) timeout() time.Duration {
	if v.Timeout <= 0 {
		return DefaultTimeout
	}
	return v.Timeout
}

func (v *Introspection) ttl() time.Duration {
	if v.CacheTTL <= 0 {
		return DefaultCacheTTL
	}
	return v.CacheTTL
}

// Verify returns the Principal of token, from the cache or from the
// authorization server (see Introspection).
func (v *Introspection) Verify(ctx context.Context, token string) (*jsonrpc.Principal, error) {
	v.once.Do(v.init)
	return v.cache.Verify(ctx, token, v.now, func(ctx context.Context) (*jsonrpc.Principal, error, time.Time, bool) {
		p, err, cached := v.introspect(ctx, token)
		until := v.now().Add(v.ttl())
		if p != nil && !p.Expiry.IsZero() && p.Expiry.Before(until) {
			until = p.Expiry
		}
		return p, err, until, cached
	})
}

// introspect asks the authorization server about token, and reports
// whether its verdict may be kept: not when the server could not be
// asked or did not answer as it should.
func (v *Introspection) introspect(ctx context.Context, token string) (*jsonrpc.Principal, error, bool) {
	ctx, cancel := context.WithTimeout(ctx, v.timeout())
	defer cancel()
	select {
	case v.slots <- struct{}{}:
		defer func() { <-v.slots }()
	case <-ctx.Done():
		return nil, ErrBusy, false
	}
	form := url.Values{"token": {token}, "token_type_hint": {"access_token"}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, v.Endpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, fmt.Errorf("oauth: introspection: %w", err), false
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	if v.ClientID != "" {
		req.SetBasicAuth(url.QueryEscape(v.ClientID), url.QueryEscape(v.ClientSecret))
	}
	if v.Header != nil {
		v.Header(req.Header)
	}
	c := v.Client
	if c == nil {
		c = http.DefaultClient
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, fmt.Errorf("oauth: introspection: %w", err), false
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		io.Copy(io.Discard, io.LimitReader(resp.Body, maxResponse))
		return nil, fmt.Errorf("oauth: introspection: %s", resp.Status), false
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxResponse+1))
	switch {
	case err != nil:
		return nil, fmt.Errorf("oauth: introspection: %w", err), false
	case len(body) > maxResponse:
		return nil, fmt.Errorf("oauth: introspection: answer over %d bytes", maxResponse), false
	}
	var claims map[string]any
	if err := json.Unmarshal(body, &claims); err != nil {
		return nil, fmt.Errorf("oauth: introspection: %w", err), false
	}
	p, err := v.principal(claims)
	return p, err, true
}

// principal returns the Principal of an introspection's answer, or why
// its token is refused.
func (v *Introspection) principal(claims map[string]any) (*jsonrpc.Principal, error) {
	if active, _ := claims["active"].(bool); !active {
		return nil, ErrInactive
	}
	p := &jsonrpc.Principal{Claims: claims}
	for _, name := range []string{"sub", "username", "client_id"} {
		if s, _ := claims[name].(string); s != "" {
			p.Subject = s
			break
		}
	}
	if s, _ := claims["scope"].(string); s != "" {
		p.Scopes = strings.Fields(s)
	}
	switch aud := claims["aud"].(type) {
	case string:
		p.Audience = []string{aud}
	case []any:
		for _, a := range aud {
			if s, ok := a.(string); ok {
				p.Audience = append(p.Audience, s)
			}
		}
	}
	now := v.now()
	if exp, ok := numericDate(claims["exp"]); ok {
		p.Expiry = exp
		if !now.Before(exp) {
			return nil, ErrExpired
		}
	}
	if nbf, ok := numericDate(claims["nbf"]); ok && now.Before(nbf) {
		return nil, ErrExpired
	}
	if v.Issuer != "" {
		if iss, _ := claims["iss"].(string); iss != v.Issuer {
			return nil, fmt.Errorf("%w: %q", ErrIssuer, iss)
		}
	}
	if len(v.Audience) > 0 {
		if err := transport.CheckAudience(p, v.Audience...); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// numericDate returns the time of a NumericDate claim (seconds since the
// epoch, as JSON decodes a number).
func numericDate(v any) (time.Time, bool) {
	f, ok := v.(float64)
	if !ok {
		return time.Time{}, false
	}
	sec := int64(f)
	return time.Unix(sec, int64((f-float64(sec))*1e9)), true
}
