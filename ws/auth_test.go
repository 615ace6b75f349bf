//go:build !js

package ws_test

import (
	"context"
	"crypto/tls"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/client"
	"github.com/jsonrpc-go/jsonrpc/internal/leaktest"
	"github.com/jsonrpc-go/jsonrpc/internal/testutil"
	"github.com/jsonrpc-go/jsonrpc/transport"
	"github.com/jsonrpc-go/jsonrpc/ws"
)

// callWhoami dials url with opts and calls whoami.
func callWhoami(t *testing.T, url string, opts *websocket.DialOptions) (string, *http.Response, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, resp, err := websocket.Dial(ctx, url, opts)
	if err != nil {
		return "", resp, err
	}
	conn.CloseNow()
	ch, err := ws.Dial(ctx, url, opts)
	if err != nil {
		return "", nil, err
	}
	c := client.New(ch)
	defer c.Close()
	who, err := client.Call[string](ctx, c, "whoami", nil)
	return who, nil, err
}

// TestClientCertificatePrincipal: over wss, the subject of the client's
// verified certificate reaches the methods of its connection.
func TestClientCertificatePrincipal(t *testing.T) {
	leaktest.Check(t)
	pki := testutil.NewPKI(t)
	h := &ws.Handler{Server: testutil.WhoamiServer()}
	ts := httptest.NewUnstartedServer(h)
	ts.TLS = pki.ServerConfig(tls.VerifyClientCertIfGiven)
	ts.StartTLS()
	defer func() {
		h.Shutdown(context.Background())
		ts.Close()
	}()
	url := "wss" + strings.TrimPrefix(ts.URL, "https")
	dialer := func(certs ...tls.Certificate) *websocket.DialOptions {
		return &websocket.DialOptions{HTTPClient: &http.Client{Transport: &http.Transport{TLSClientConfig: pki.ClientConfig(certs...)}}}
	}
	if who, _, err := callWhoami(t, url, dialer(pki.Client(t, "alice"))); who != "alice" || err != nil {
		t.Errorf("with a certificate: %q, %v; want alice", who, err)
	}
	if who, _, err := callWhoami(t, url, dialer()); who != "" || err != nil {
		t.Errorf("without a certificate: %q, %v; want anonymous", who, err)
	}
}

// TestBearerToken: with Tokens, the upgrade's bearer token gives the
// connection its Principal; an upgrade without one, or with one refused,
// is answered 401 with the Bearer challenge.
func TestBearerToken(t *testing.T) {
	leaktest.Check(t)
	tokens := transport.TokenVerifierFunc(func(ctx context.Context, token string) (*jsonrpc.Principal, error) {
		if token == "good" {
			return &jsonrpc.Principal{Subject: "bob"}, nil
		}
		return nil, errors.New("unknown token")
	})
	h := &ws.Handler{Server: testutil.WhoamiServer(), Tokens: tokens}
	ts := httptest.NewServer(h)
	defer func() {
		h.Shutdown(context.Background())
		ts.Close()
	}()
	url := "ws" + strings.TrimPrefix(ts.URL, "http")
	withAuth := func(auth string) *websocket.DialOptions {
		if auth == "" {
			return nil
		}
		return &websocket.DialOptions{HTTPHeader: http.Header{"Authorization": {auth}}}
	}
	if who, _, err := callWhoami(t, url, withAuth("Bearer good")); who != "bob" || err != nil {
		t.Errorf("with a token: %q, %v; want bob", who, err)
	}
	for auth, challenge := range map[string]string{"": "Bearer", "Bearer bad": `Bearer error="invalid_token"`} {
		_, resp, err := callWhoami(t, url, withAuth(auth))
		if err == nil || resp == nil {
			t.Errorf("%q: %v, want a refused upgrade", auth, err)
			continue
		}
		if resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("WWW-Authenticate") != challenge {
			t.Errorf("%q: %d %q, want 401 %q", auth, resp.StatusCode, resp.Header.Get("WWW-Authenticate"), challenge)
		}
	}
}

// TestCredentialsExpire: a connection whose Principal expires is closed
// then, with 1008 and "credentials expired".
func TestCredentialsExpire(t *testing.T) {
	leaktest.Check(t)
	tokens := transport.TokenVerifierFunc(func(ctx context.Context, token string) (*jsonrpc.Principal, error) {
		return &jsonrpc.Principal{Subject: "bob", Expiry: time.Now().Add(100 * time.Millisecond)}, nil
	})
	h := &ws.Handler{Server: testutil.WhoamiServer(), Tokens: tokens}
	ts := httptest.NewServer(h)
	defer func() {
		h.Shutdown(context.Background())
		ts.Close()
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(ts.URL, "http"), &websocket.DialOptions{HTTPHeader: http.Header{"Authorization": {"Bearer t"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.CloseNow()
	if got := exchange(t, conn, `{"jsonrpc":"2.0","method":"whoami","id":1}`); got != `{"jsonrpc":"2.0","result":"bob","id":1}` {
		t.Errorf("before the expiry: %s", got)
	}
	_, _, err = conn.Read(ctx)
	var ce websocket.CloseError
	if !errors.As(err, &ce) || ce.Code != websocket.StatusPolicyViolation || ce.Reason != "credentials expired" {
		t.Errorf("after the expiry: %v, want a close with 1008 and credentials expired", err)
	}
}

// TestAllowAnonymous (issue 35): with AllowAnonymous, an upgrade without
// credentials is a connection without a Principal, whose calls the
// server's policies decide: a public method answers, one that needs a
// Principal answers Codes.Unauthenticated; a token refused is still 401.
func TestAllowAnonymous(t *testing.T) {
	leaktest.Check(t)
	srv := jsonrpc.NewServer(jsonrpc.RequireAuth())
	srv.MustRegister("ping", func() string { return "pong" }, jsonrpc.Public())
	srv.MustRegister("whoami", func(ctx context.Context) string { return jsonrpc.PrincipalOf(ctx).Subject })
	tokens := transport.TokenVerifierFunc(func(ctx context.Context, token string) (*jsonrpc.Principal, error) {
		if token == "good" {
			return &jsonrpc.Principal{Subject: "bob"}, nil
		}
		return nil, errors.New("unknown token")
	})
	h := &ws.Handler{Server: srv, Tokens: tokens, AllowAnonymous: true}
	ts := httptest.NewServer(h)
	defer func() {
		h.Shutdown(context.Background())
		ts.Close()
	}()
	url := "ws" + strings.TrimPrefix(ts.URL, "http")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ch, err := ws.Dial(ctx, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := client.New(ch)
	defer c.Close()
	if pong, err := client.Call[string](ctx, c, "ping", nil); pong != "pong" || err != nil {
		t.Errorf("ping, anonymous: %q, %v", pong, err)
	}
	if _, err := client.Call[string](ctx, c, "whoami", nil); jsonrpc.ErrorCode(err) != jsonrpc.CodeUnauthenticated {
		t.Errorf("whoami, anonymous: %v, want code %d", err, jsonrpc.CodeUnauthenticated)
	}
	if who, _, err := callWhoami(t, url, &websocket.DialOptions{HTTPHeader: http.Header{"Authorization": {"Bearer good"}}}); who != "bob" || err != nil {
		t.Errorf("whoami with a token: %q, %v", who, err)
	}
	if _, resp, err := callWhoami(t, url, &websocket.DialOptions{HTTPHeader: http.Header{"Authorization": {"Bearer bad"}}}); err == nil || resp == nil || resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("a token refused: %v", err)
	}
}

// TestResourceMetadata (issue 35): the handler publishes its metadata
// (RFC 9728) and names it in the challenge of a refused upgrade.
func TestResourceMetadata(t *testing.T) {
	leaktest.Check(t)
	meta := &transport.ResourceMetadata{Resource: "https://chat.example.com/ws"}
	tokens := transport.TokenVerifierFunc(func(ctx context.Context, token string) (*jsonrpc.Principal, error) { return nil, errors.New("no") })
	h := &ws.Handler{Server: testutil.WhoamiServer(), Tokens: tokens, ResourceMetadata: meta}
	ts := httptest.NewServer(h)
	defer func() {
		h.Shutdown(context.Background())
		ts.Close()
	}()
	resp, err := http.Get(ts.URL + meta.Path())
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("the metadata: %d", resp.StatusCode)
	}
	_, resp, err = callWhoami(t, "ws"+strings.TrimPrefix(ts.URL, "http"), nil)
	if want := `Bearer resource_metadata="https://chat.example.com/.well-known/oauth-protected-resource/ws"`; err == nil || resp == nil || resp.Header.Get("WWW-Authenticate") != want {
		t.Errorf("no token: %v, want 401 %q", err, want)
	}
}
