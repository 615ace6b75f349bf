package oauth_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jsonrpc-go/jsonrpc/oauth"
	"github.com/jsonrpc-go/jsonrpc/transport"
)

const resource = "https://files.example.com/mcp"

// authServer is an introspection endpoint: it answers the tokens of
// answers (the JSON of each) and any other as inactive, after delay,
// checking the resource server's credentials; asked counts its requests.
type authServer struct {
	*httptest.Server
	mu      sync.Mutex
	answers map[string]map[string]any
	delay   time.Duration
	status  int
	asked   atomic.Int32
}

func newAuthServer(t *testing.T) *authServer {
	a := &authServer{answers: map[string]map[string]any{}}
	a.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.asked.Add(1)
		a.mu.Lock()
		delay, status := a.delay, a.status
		answer, ok := a.answers[r.PostFormValue("token")]
		a.mu.Unlock()
		if delay > 0 {
			select {
			case <-time.After(delay):
			case <-r.Context().Done():
				return
			}
		}
		// RFC 6749, section 2.3.1: each of the credentials form-encoded.
		id, secret, _ := r.BasicAuth()
		id, _ = url.QueryUnescape(id)
		secret, _ = url.QueryUnescape(secret)
		if r.Method != "POST" || id != "files api" || secret != "s3cret%" || r.PostFormValue("token_type_hint") != "access_token" {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		if status != 0 {
			http.Error(w, "down", status)
			return
		}
		if !ok {
			answer = map[string]any{"active": false}
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(answer)
	}))
	t.Cleanup(a.Close)
	return a
}

func (a *authServer) set(token string, answer map[string]any) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.answers[token] = answer
}

func (a *authServer) verifier() *oauth.Introspection {
	return &oauth.Introspection{Endpoint: a.URL, ClientID: "files api", ClientSecret: "s3cret%", Audience: []string{resource}, Issuer: "https://auth.example.com"}
}

// A fake clock for the cache's times.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }

func (c *clock) Add(d time.Duration) { c.mu.Lock(); c.now = c.now.Add(d); c.mu.Unlock() }

func active(sub, scope string, exp time.Time) map[string]any {
	return map[string]any{"active": true, "sub": sub, "scope": scope, "aud": []string{"other", resource}, "iss": "https://auth.example.com", "exp": exp.Unix(), "client_id": "app"}
}

// TestIntrospection: an active token's answer is its Principal; an
// inactive token, one of another audience, of another issuer, or expired
// is refused; the resource server authenticates with HTTP Basic.
func TestIntrospection(t *testing.T) {
	a := newAuthServer(t)
	exp := time.Now().Add(time.Hour).Truncate(time.Second)
	a.set("good", active("alice", "files:read files:write", exp))
	other := active("alice", "files:read", exp)
	other["aud"] = "https://other.example.com/mcp"
	a.set("other-audience", other)
	foreign := active("alice", "files:read", exp)
	foreign["iss"] = "https://evil.example.com"
	a.set("other-issuer", foreign)
	a.set("expired", active("alice", "files:read", time.Now().Add(-time.Minute)))
	v := a.verifier()
	ctx := context.Background()

	p, err := v.Verify(ctx, "good")
	if err != nil {
		t.Fatal(err)
	}
	if p.Subject != "alice" || strings.Join(p.Scopes, " ") != "files:read files:write" || !p.Expiry.Equal(exp) || len(p.Audience) != 2 {
		t.Errorf("Principal %+v", p)
	}
	if claims, _ := p.Claims.(map[string]any); claims["client_id"] != "app" {
		t.Errorf("Claims %v", p.Claims)
	}
	for token, want := range map[string]error{
		"unknown":        oauth.ErrInactive,
		"other-audience": transport.ErrAudience,
		"other-issuer":   oauth.ErrIssuer,
		"expired":        oauth.ErrExpired,
	} {
		if p, err := v.Verify(ctx, token); p != nil || !errors.Is(err, want) {
			t.Errorf("%s: %v, %v; want %v", token, p, err, want)
		}
	}
	bad := a.verifier()
	bad.ClientSecret = "wrong"
	if _, err := bad.Verify(ctx, "good"); err == nil || !strings.Contains(err.Error(), "401") {
		t.Errorf("with the wrong credentials: %v", err)
	}
}

// TestIntrospectionCache: a token is asked about once while its verdict
// is kept, for CacheTTL and never past its exp; refusals are kept too;
// errors of the moment are not; at most CacheSize verdicts are kept.
func TestIntrospectionCache(t *testing.T) {
	a := newAuthServer(t)
	clk := &clock{now: time.Now()}
	soon := clk.Now().Add(10 * time.Second)
	a.set("short", active("alice", "files:read", soon))
	a.set("long", active("bob", "files:read", clk.Now().Add(time.Hour)))
	v := a.verifier()
	v.CacheTTL = time.Minute
	v.CacheSize = 2
	oauth.SetNow(v, clk.Now)
	ctx := context.Background()
	verify := func(token string, wantAsked int32) {
		t.Helper()
		before := a.asked.Load()
		v.Verify(ctx, token)
		if got := a.asked.Load() - before; got != wantAsked {
			t.Errorf("%s: asked %d times, want %d", token, got, wantAsked)
		}
	}
	verify("short", 1)
	verify("short", 0)
	verify("long", 1)
	clk.Add(11 * time.Second) // past short's exp, within the TTL
	if _, err := v.Verify(ctx, "short"); err == nil {
		t.Error("short taken past its exp")
	}
	verify("long", 0)
	clk.Add(time.Minute) // past the TTL
	verify("long", 1)

	// Refusals are kept; at most CacheSize verdicts.
	verify("unknown", 1)
	verify("unknown", 0)
	verify("unknown2", 1)
	if n := oauth.Cached(v); n != 2 {
		t.Errorf("%d verdicts kept, want CacheSize, 2", n)
	}
	verify("long", 1) // pushed out

	// A server that fails: not kept.
	a.mu.Lock()
	a.status = http.StatusBadGateway
	a.mu.Unlock()
	verify("new", 1)
	verify("new", 1)

	none := a.verifier()
	none.CacheSize = -1
	before := a.asked.Load()
	none.Verify(ctx, "long")
	none.Verify(ctx, "long")
	if a.asked.Load()-before != 2 {
		t.Error("CacheSize -1 keeps verdicts")
	}
}

// TestIntrospectionBounds: an introspection ends within Timeout; the
// requests bearing one token at once ask once; at most MaxInFlight
// introspections run at once, the others waiting for their turn within
// Timeout (ErrBusy past it).
func TestIntrospectionBounds(t *testing.T) {
	a := newAuthServer(t)
	a.set("good", active("alice", "files:read", time.Now().Add(time.Hour)))
	a.mu.Lock()
	a.delay = time.Hour
	a.mu.Unlock()
	v := a.verifier()
	v.Timeout = 50 * time.Millisecond
	start := time.Now()
	if _, err := v.Verify(context.Background(), "good"); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a slow server: %v, want the deadline", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("a server that never answers held Verify %v, Timeout 50 ms", d)
	}

	a.mu.Lock()
	a.delay = 100 * time.Millisecond
	a.mu.Unlock()
	a.asked.Store(0)
	v = a.verifier()
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			if p, err := v.Verify(context.Background(), "good"); err != nil || p.Subject != "alice" {
				t.Errorf("%v %v", p, err)
			}
		})
	}
	wg.Wait()
	if n := a.asked.Load(); n != 1 {
		t.Errorf("20 requests bearing one token asked %d times, want 1", n)
	}

	// A flood of tokens the server is slow to answer: at most
	// MaxInFlight are asked about at once, and each request is answered
	// within Timeout, having waited for its turn or asked.
	a.mu.Lock()
	a.delay = time.Hour
	a.mu.Unlock()
	v = a.verifier()
	v.MaxInFlight = 2
	v.Timeout = 200 * time.Millisecond
	rt := &countingTransport{}
	v.Client = &http.Client{Transport: rt}
	start = time.Now()
	for i := range 8 {
		wg.Go(func() {
			_, err := v.Verify(context.Background(), "flood-"+string(rune('a'+i)))
			if !errors.Is(err, oauth.ErrBusy) && !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("a flood: %v", err)
			}
		})
	}
	wg.Wait()
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("a flood of 8 held Verify %v, Timeout 200 ms", d)
	}
	if n := rt.most.Load(); n != 2 {
		t.Errorf("a flood, MaxInFlight 2: %d introspections at once", n)
	}

	// A request that goes away stops waiting; the introspection goes on
	// for the others.
	v = a.verifier()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := v.Verify(ctx, "good"); !errors.Is(err, context.Canceled) {
		t.Errorf("a request gone: %v", err)
	}
}

// countingTransport counts the requests it is sending at once.
type countingTransport struct {
	running, most atomic.Int32
}

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	n := c.running.Add(1)
	defer c.running.Add(-1)
	for m := c.most.Load(); n > m && !c.most.CompareAndSwap(m, n); m = c.most.Load() {
	}
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err == nil {
		resp.Body.Close() // the body is not read: the count ends with the request
		return nil, errors.New("unexpected answer")
	}
	return resp, err
}
