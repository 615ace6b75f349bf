package streamhttp_test

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/internal/leaktest"
	"github.com/jsonrpc-go/jsonrpc/internal/testutil"
	"github.com/jsonrpc-go/jsonrpc/streamhttp"
	"github.com/jsonrpc-go/jsonrpc/transport"
)

// tokens accepts the tokens "bob" and "carol" as those subjects.
var tokens = transport.TokenVerifierFunc(func(ctx context.Context, token string) (*jsonrpc.Principal, error) {
	switch token {
	case "bob", "carol":
		return &jsonrpc.Principal{Subject: token}, nil
	}
	return nil, errors.New("unknown token")
})

// send posts body to url with c and the headers (pairs of name and
// value), and returns the status, the headers and the body.
func send(t *testing.T, c *http.Client, url, body string, header ...string) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, string(b)
}

// TestClientCertificatePrincipal: over HTTPS, the subject of the client's
// verified certificate reaches the method.
func TestClientCertificatePrincipal(t *testing.T) {
	leaktest.Check(t)
	pki := testutil.NewPKI(t)
	h := &streamhttp.Handler{Server: testutil.WhoamiServer("begin")}
	ts := httptest.NewUnstartedServer(h)
	ts.TLS = pki.ServerConfig(tls.RequireAndVerifyClientCert)
	ts.StartTLS()
	defer ts.Close()
	c := &http.Client{Transport: &http.Transport{TLSClientConfig: pki.ClientConfig(pki.Client(t, "alice"))}}
	defer c.CloseIdleConnections()
	if status, _, body := send(t, c, ts.URL, `{"jsonrpc":"2.0","method":"whoami","id":1}`); body != `{"jsonrpc":"2.0","result":"alice","id":1}` {
		t.Errorf("%d %s", status, body)
	}
}

// TestBearerTokenSessions: with Tokens, a request's bearer token gives its
// calls their Principal; a session's calls are those of the Principal
// that began it, and a request of another subject that names it finds
// none (404); a request without a token, or with one refused, is
// answered 401 with the Bearer challenge, GET and DELETE included.
func TestBearerTokenSessions(t *testing.T) {
	leaktest.Check(t)
	h := &streamhttp.Handler{Server: testutil.WhoamiServer("begin"), Tokens: tokens, SessionMethod: "begin"}
	ts := httptest.NewServer(h)
	defer func() {
		h.Shutdown(context.Background())
		ts.Close()
	}()
	c := ts.Client()
	const whoami = `{"jsonrpc":"2.0","method":"whoami","id":2}`

	if status, _, body := send(t, c, ts.URL, whoami, "Authorization", "Bearer carol"); status != 200 || body != `{"jsonrpc":"2.0","result":"carol","id":2}` {
		t.Errorf("without a session: %d %s", status, body)
	}
	status, hd, body := send(t, c, ts.URL, `{"jsonrpc":"2.0","method":"begin","id":1}`, "Authorization", "Bearer bob")
	id := hd.Get("Mcp-Session-Id")
	if status != 200 || id == "" || body != `{"jsonrpc":"2.0","result":"bob","id":1}` {
		t.Fatalf("begin: %d %q %s", status, id, body)
	}
	if status, _, body := send(t, c, ts.URL, whoami, "Authorization", "Bearer bob", "Mcp-Session-Id", id); status != 200 || body != `{"jsonrpc":"2.0","result":"bob","id":2}` {
		t.Errorf("in bob's session, as bob: %d %s", status, body)
	}
	if status, _, body := send(t, c, ts.URL, whoami, "Authorization", "Bearer carol", "Mcp-Session-Id", id); status != http.StatusNotFound {
		t.Errorf("in bob's session, as carol: %d %s, want 404", status, body)
	}
	for _, tc := range []struct{ method, auth, challenge string }{
		{http.MethodPost, "", "Bearer"},
		{http.MethodPost, "Bearer mallory", `Bearer error="invalid_token"`},
		{http.MethodGet, "", "Bearer"},
		{http.MethodDelete, "Bearer mallory", `Bearer error="invalid_token"`},
	} {
		req, _ := http.NewRequest(tc.method, ts.URL, strings.NewReader(whoami))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Session-Id", id)
		if tc.auth != "" {
			req.Header.Set("Authorization", tc.auth)
		}
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("WWW-Authenticate") != tc.challenge {
			t.Errorf("%s with %q: %d %q, want 401 %q", tc.method, tc.auth, resp.StatusCode, resp.Header.Get("WWW-Authenticate"), tc.challenge)
		}
	}
	// The session lives on for bob, whom a DELETE of carol's could not end.
	req, _ := http.NewRequest(http.MethodDelete, ts.URL, nil)
	req.Header.Set("Mcp-Session-Id", id)
	req.Header.Set("Authorization", "Bearer carol")
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("DELETE of bob's session as carol: %d, want 404", resp.StatusCode)
	}
	if status, _, body := send(t, c, ts.URL, whoami, "Authorization", "Bearer bob", "Mcp-Session-Id", id); status != 200 || body != `{"jsonrpc":"2.0","result":"bob","id":2}` {
		t.Errorf("in bob's session after carol's DELETE: %d %s", status, body)
	}
}

// TestPolicyStatus (issue 35): a request of one call that the server
// refuses for who is calling is answered as MCP's authorization asks,
// in the codes of the handler's protocol (MCP's), the error as its
// body: 401 with the Bearer challenge when the call needs a Principal
// and the request (let through by AllowAnonymous) has none, 403 with
// error="insufficient_scope" and the scopes when its Principal lacks
// one; on a connection of its own and in a session alike; a refused
// notification with its status and no body; a batch 200.
func TestPolicyStatus(t *testing.T) {
	leaktest.Check(t)
	srv := jsonrpc.NewServer(jsonrpc.RequireAuth())
	srv.MustRegister("begin", func() string { return "begun" })
	srv.MustRegister("ping", func() string { return "pong" }, jsonrpc.Public())
	srv.MustRegister("remove", func() bool { return true }, jsonrpc.RequireScopes("files:write"))
	scoped := transport.TokenVerifierFunc(func(ctx context.Context, token string) (*jsonrpc.Principal, error) {
		if token == "bob" {
			return &jsonrpc.Principal{Subject: "bob", Scopes: []string{"files:read"}}, nil
		}
		return nil, errors.New("unknown token")
	})
	h := &streamhttp.Handler{Server: srv, Tokens: scoped, AllowAnonymous: true, SessionMethod: "begin"}
	ts := httptest.NewServer(h)
	defer func() {
		h.Shutdown(context.Background())
		ts.Close()
	}()
	c := ts.Client()
	const (
		unauthenticated = `{"jsonrpc":"2.0","error":{"code":-31011,"message":"Authentication required"},"id":1}`
		forbidden       = `{"jsonrpc":"2.0","error":{"code":-31012,"message":"Insufficient scope","data":{"scope":"files:write"}},"id":1}`
		insufficient    = `Bearer error="insufficient_scope", scope="files:write"`
	)
	check := func(name string, status int, hd http.Header, body string, wantStatus int, wantChallenge, wantBody string) {
		t.Helper()
		if status != wantStatus || hd.Get("WWW-Authenticate") != wantChallenge || body != wantBody {
			t.Errorf("%s: %d %q %s\nwant %d %q %s", name, status, hd.Get("WWW-Authenticate"), body, wantStatus, wantChallenge, wantBody)
		}
	}
	status, hd, body := send(t, c, ts.URL, `{"jsonrpc":"2.0","method":"remove","id":1}`)
	check("anonymous", status, hd, body, 401, "Bearer", unauthenticated)
	status, hd, body = send(t, c, ts.URL, `{"jsonrpc":"2.0","method":"ping","id":1}`)
	check("anonymous, public", status, hd, body, 200, "", `{"jsonrpc":"2.0","result":"pong","id":1}`)
	status, hd, body = send(t, c, ts.URL, `{"jsonrpc":"2.0","method":"remove","id":1}`, "Authorization", "Bearer bob")
	check("a scope missing", status, hd, body, 403, insufficient, forbidden)
	status, hd, body = send(t, c, ts.URL, `{"jsonrpc":"2.0","method":"remove"}`, "Authorization", "Bearer bob")
	check("a notification, a scope missing", status, hd, body, 403, insufficient, "")
	status, hd, body = send(t, c, ts.URL, `[{"jsonrpc":"2.0","method":"remove","id":1}]`, "Authorization", "Bearer bob")
	check("a batch", status, hd, body, 200, "", "["+forbidden+"]")

	status, hd, _ = send(t, c, ts.URL, `{"jsonrpc":"2.0","method":"begin","id":1}`, "Authorization", "Bearer bob")
	id := hd.Get("Mcp-Session-Id")
	if status != 200 || id == "" {
		t.Fatalf("begin: %d %q", status, id)
	}
	status, hd, body = send(t, c, ts.URL, `{"jsonrpc":"2.0","method":"remove","id":1}`, "Authorization", "Bearer bob", "Mcp-Session-Id", id)
	check("in a session, a scope missing", status, hd, body, 403, insufficient, forbidden)
	status, hd, body = send(t, c, ts.URL, `{"jsonrpc":"2.0","method":"ping","id":1}`, "Authorization", "Bearer bob", "Mcp-Session-Id", id)
	check("in a session, allowed", status, hd, body, 200, "", `{"jsonrpc":"2.0","result":"pong","id":1}`)
}

// TestStepUp (issue 35): in a session, the calls are those of the
// subject that began it, with the Principal of that subject's latest
// request: a token with more scopes, sent after a 403, takes effect in
// the session without a new one; another subject's token finds no
// session.
func TestStepUp(t *testing.T) {
	leaktest.Check(t)
	srv := jsonrpc.NewServer()
	srv.MustRegister("begin", func() string { return "begun" })
	srv.MustRegister("remove", func() bool { return true }, jsonrpc.RequireScopes("files:write"))
	scoped := transport.TokenVerifierFunc(func(ctx context.Context, token string) (*jsonrpc.Principal, error) {
		switch token {
		case "bob-read":
			return &jsonrpc.Principal{Subject: "bob", Scopes: []string{"files:read"}}, nil
		case "bob-write":
			return &jsonrpc.Principal{Subject: "bob", Scopes: []string{"files:read", "files:write"}}, nil
		case "carol-write":
			return &jsonrpc.Principal{Subject: "carol", Scopes: []string{"files:write"}}, nil
		}
		return nil, errors.New("unknown token")
	})
	h := &streamhttp.Handler{Server: srv, Tokens: scoped, SessionMethod: "begin"}
	ts := httptest.NewServer(h)
	defer func() {
		h.Shutdown(context.Background())
		ts.Close()
	}()
	c := ts.Client()
	_, hd, _ := send(t, c, ts.URL, `{"jsonrpc":"2.0","method":"begin","id":1}`, "Authorization", "Bearer bob-read")
	id := hd.Get("Mcp-Session-Id")
	const remove = `{"jsonrpc":"2.0","method":"remove","id":2}`
	if status, _, body := send(t, c, ts.URL, remove, "Authorization", "Bearer bob-read", "Mcp-Session-Id", id); status != 403 {
		t.Errorf("remove with files:read: %d %s, want 403", status, body)
	}
	if status, _, body := send(t, c, ts.URL, remove, "Authorization", "Bearer carol-write", "Mcp-Session-Id", id); status != 404 {
		t.Errorf("remove as carol in bob's session: %d %s, want 404", status, body)
	}
	if status, _, body := send(t, c, ts.URL, remove, "Authorization", "Bearer bob-write", "Mcp-Session-Id", id); status != 200 || body != `{"jsonrpc":"2.0","result":true,"id":2}` {
		t.Errorf("remove after the step up: %d %s", status, body)
	}
}

// TestResourceMetadata (issue 35): the handler publishes its metadata
// (RFC 9728) and names it in its challenges, as MCP's authorization asks:
// the 401 of a request without a token, and the 403 of a call without a
// scope, in a session too.
func TestResourceMetadata(t *testing.T) {
	leaktest.Check(t)
	meta := &transport.ResourceMetadata{Resource: "https://mcp.example.com/mcp", AuthorizationServers: []string{"https://auth.example.com"}, ScopesSupported: []string{"files:write"}}
	const rm = `resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp"`
	srv := jsonrpc.NewServer()
	srv.MustRegister("begin", func() string { return "begun" })
	srv.MustRegister("remove", func() bool { return true }, jsonrpc.RequireScopes("files:write"))
	h := &streamhttp.Handler{Server: srv, Tokens: tokens, SessionMethod: "begin", ResourceMetadata: meta}
	ts := httptest.NewServer(h)
	defer func() {
		h.Shutdown(context.Background())
		ts.Close()
	}()
	c := ts.Client()
	resp, err := c.Get(ts.URL + "/.well-known/oauth-protected-resource/mcp")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(b) != `{"resource":"https://mcp.example.com/mcp","authorization_servers":["https://auth.example.com"],"scopes_supported":["files:write"]}` {
		t.Errorf("the metadata: %d %s", resp.StatusCode, b)
	}
	if status, hd, _ := send(t, c, ts.URL, `{"jsonrpc":"2.0","method":"remove","id":1}`); status != 401 || hd.Get("WWW-Authenticate") != "Bearer "+rm {
		t.Errorf("no token: %d %q", status, hd.Get("WWW-Authenticate"))
	}
	want := `Bearer error="insufficient_scope", scope="files:write", ` + rm
	if status, hd, _ := send(t, c, ts.URL, `{"jsonrpc":"2.0","method":"remove","id":1}`, "Authorization", "Bearer bob"); status != 403 || hd.Get("WWW-Authenticate") != want {
		t.Errorf("no scope: %d %q", status, hd.Get("WWW-Authenticate"))
	}
	_, hd, _ := send(t, c, ts.URL, `{"jsonrpc":"2.0","method":"begin","id":1}`, "Authorization", "Bearer bob")
	if status, hd, _ := send(t, c, ts.URL, `{"jsonrpc":"2.0","method":"remove","id":2}`, "Authorization", "Bearer bob", "Mcp-Session-Id", hd.Get("Mcp-Session-Id")); status != 403 || hd.Get("WWW-Authenticate") != want {
		t.Errorf("no scope, in a session: %d %q", status, hd.Get("WWW-Authenticate"))
	}
}

// TestSessionOwnerAcrossReplicas (issue 35): the subject that began a
// session is kept with it in the SessionStore: on another replica, the
// requests of another subject, or of none, find no session (404), and
// the subject's own revive it, with their Principal.
func TestSessionOwnerAcrossReplicas(t *testing.T) {
	leaktest.Check(t)
	sessions := &streamhttp.MemorySessions{}
	newReplica := func(name string) (*streamhttp.Handler, string) {
		srv := testutil.WhoamiServer("begin")
		srv.MustRegister("initialize", func(struct{}) map[string]string { return map[string]string{"protocolVersion": "2025-11-25"} })
		h := &streamhttp.Handler{Server: srv, Tokens: tokens, SessionMethod: "initialize", Replica: name, SessionStore: sessions}
		ts := httptest.NewServer(h)
		t.Cleanup(func() {
			h.Shutdown(context.Background())
			ts.Close()
		})
		return h, ts.URL
	}
	_, urlA := newReplica("a")
	hb, urlB := newReplica("b")
	_, hd, body := send(t, http.DefaultClient, urlA, `{"jsonrpc":"2.0","method":"initialize","params":{},"id":1}`, "Authorization", "Bearer bob")
	id := hd.Get("Mcp-Session-Id")
	if id == "" {
		t.Fatalf("initialize: %s", body)
	}
	if st, ok, _ := sessions.Load(id); !ok || st.Subject != "bob" {
		t.Fatalf("stored: %+v %v, want bob's", st, ok)
	}
	const whoami = `{"jsonrpc":"2.0","method":"whoami","id":2}`
	if status, _, body := send(t, http.DefaultClient, urlB, whoami, "Authorization", "Bearer carol", "Mcp-Session-Id", id); status != http.StatusNotFound {
		t.Errorf("carol on b: %d %s, want 404", status, body)
	}
	if hb.Sessions() != 0 {
		t.Errorf("carol's request revived bob's session on b")
	}
	if status, _, body := send(t, http.DefaultClient, urlB, whoami, "Authorization", "Bearer bob", "Mcp-Session-Id", id); status != 200 || body != `{"jsonrpc":"2.0","result":"bob","id":2}` {
		t.Errorf("bob on b: %d %s", status, body)
	}
	if status, _, body := send(t, http.DefaultClient, urlB, whoami, "Authorization", "Bearer carol", "Mcp-Session-Id", id); status != http.StatusNotFound {
		t.Errorf("carol on b, once revived: %d %s, want 404", status, body)
	}
	// A stream resumed with Last-Event-ID checks it too.
	req, _ := http.NewRequest(http.MethodGet, urlB, nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Authorization", "Bearer carol")
	req.Header.Set("Mcp-Session-Id", id)
	req.Header.Set("Last-Event-ID", "1-1")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("carol resuming a stream of bob's session: %d, want 404", resp.StatusCode)
	}
}
