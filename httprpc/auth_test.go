package httprpc_test

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/httprpc"
	"github.com/jsonrpc-go/jsonrpc/internal/testutil"
	"github.com/jsonrpc-go/jsonrpc/transport"
)

const whoamiReq = `{"jsonrpc":"2.0","method":"whoami","id":1}`

// post sends whoamiReq to url with c, with the Authorization header auth
// when it is not empty.
func post(t *testing.T, c *http.Client, url, auth string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest("POST", url, strings.NewReader(whoamiReq))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if auth != "" {
		req.Header.Set("Authorization", auth)
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
	return resp, string(b)
}

// httpsServer serves h over HTTPS on 127.0.0.1 with the certificates of
// pki, taking client certificates as auth says.
func httpsServer(t *testing.T, pki *testutil.PKI, h http.Handler, auth tls.ClientAuthType) *httptest.Server {
	ts := httptest.NewUnstartedServer(h)
	ts.TLS = pki.ServerConfig(auth)
	ts.StartTLS()
	t.Cleanup(ts.Close)
	return ts
}

func httpsClient(pki *testutil.PKI, certs ...tls.Certificate) *http.Client {
	return &http.Client{Transport: &http.Transport{TLSClientConfig: pki.ClientConfig(certs...)}}
}

// TestClientCertificatePrincipal: the subject of a verified client
// certificate reaches the method over HTTPS; a client without one is
// refused where one is required, anonymous where it is optional.
func TestClientCertificatePrincipal(t *testing.T) {
	pki := testutil.NewPKI(t)
	h := &httprpc.Handler{Server: testutil.WhoamiServer()}
	alice := pki.Client(t, "alice")

	required := httpsServer(t, pki, h, tls.RequireAndVerifyClientCert)
	if _, body := post(t, httpsClient(pki, alice), required.URL, ""); body != `{"jsonrpc":"2.0","result":"alice","id":1}` {
		t.Errorf("with a certificate: %s", body)
	}
	req, _ := http.NewRequest("POST", required.URL, strings.NewReader(whoamiReq))
	req.Header.Set("Content-Type", "application/json")
	if resp, err := httpsClient(pki).Do(req); err == nil {
		resp.Body.Close()
		t.Errorf("without a certificate where one is required: %s, want a refused handshake", resp.Status)
	}

	optional := httpsServer(t, pki, h, tls.VerifyClientCertIfGiven)
	if _, body := post(t, httpsClient(pki), optional.URL, ""); body != `{"jsonrpc":"2.0","result":"","id":1}` {
		t.Errorf("without a certificate where it is optional: %s, want anonymous", body)
	}
	if _, body := post(t, httpsClient(pki, alice), optional.URL, ""); body != `{"jsonrpc":"2.0","result":"alice","id":1}` {
		t.Errorf("with a certificate where it is optional: %s", body)
	}

	// A certificate of another authority is refused at the handshake.
	other := testutil.NewPKI(t).Client(t, "mallory")
	req, _ = http.NewRequest("POST", optional.URL, strings.NewReader(whoamiReq))
	req.Header.Set("Content-Type", "application/json")
	if resp, err := httpsClient(pki, other).Do(req); err == nil {
		resp.Body.Close()
		t.Errorf("a certificate of another authority: %s, want a refused handshake", resp.Status)
	}
}

// tokens accepts the token "good" as bob, with the scope "read".
var tokens = transport.TokenVerifierFunc(func(ctx context.Context, token string) (*jsonrpc.Principal, error) {
	if token == "good" {
		return bob, nil
	}
	return nil, errors.New("unknown token")
})

var bob = &jsonrpc.Principal{Subject: "bob", Scopes: []string{"read"}}

// TestBearerToken: with Tokens, a request's bearer token gives its calls
// their Principal; a request without one, or with one refused, is
// answered 401 with the Bearer challenge, before its path is routed.
func TestBearerToken(t *testing.T) {
	ts := httptest.NewServer(&httprpc.Handler{Server: testutil.WhoamiServer(), Tokens: tokens})
	defer ts.Close()
	for _, tc := range []struct {
		name, auth, challenge string
	}{
		{"none", "", "Bearer"},
		{"refused", "Bearer bad", `Bearer error="invalid_token"`},
		{"malformed", "Bearer a b", `Bearer error="invalid_token"`},
		{"empty", "Bearer ", `Bearer error="invalid_token"`},
		{"another scheme", "Basic Ym9iOmJvYg==", "Bearer"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := post(t, http.DefaultClient, ts.URL, tc.auth)
			if resp.StatusCode != http.StatusUnauthorized {
				t.Fatalf("status %d, want 401: %s", resp.StatusCode, body)
			}
			if got := resp.Header.Get("WWW-Authenticate"); got != tc.challenge {
				t.Errorf("WWW-Authenticate %q, want %q", got, tc.challenge)
			}
			if strings.Contains(body, "unknown token") {
				t.Errorf("the body tells the verifier's error: %q", body)
			}
		})
	}
	for _, auth := range []string{"Bearer good", "bearer good", "BEARER good"} {
		resp, body := post(t, http.DefaultClient, ts.URL, auth)
		if resp.StatusCode != http.StatusOK || body != `{"jsonrpc":"2.0","result":"bob","id":1}` {
			t.Errorf("%s: %d %s", auth, resp.StatusCode, body)
		}
	}
}

// TestBearerTokenOrCertificate: with Tokens over HTTPS, a verified client
// certificate authenticates a request without a token; a token, when
// given, says who calls.
func TestBearerTokenOrCertificate(t *testing.T) {
	pki := testutil.NewPKI(t)
	ts := httpsServer(t, pki, &httprpc.Handler{Server: testutil.WhoamiServer(), Tokens: tokens}, tls.VerifyClientCertIfGiven)
	alice := httpsClient(pki, pki.Client(t, "alice"))
	if _, body := post(t, alice, ts.URL, ""); body != `{"jsonrpc":"2.0","result":"alice","id":1}` {
		t.Errorf("certificate alone: %s", body)
	}
	if _, body := post(t, alice, ts.URL, "Bearer good"); body != `{"jsonrpc":"2.0","result":"bob","id":1}` {
		t.Errorf("certificate and token: %s", body)
	}
	if resp, _ := post(t, alice, ts.URL, "Bearer bad"); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("certificate and a refused token: %d, want 401", resp.StatusCode)
	}
	if resp, _ := post(t, httpsClient(pki), ts.URL, ""); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("neither: %d, want 401", resp.StatusCode)
	}
}

// TestNoCredentials: a handler without Tokens over plain HTTP serves
// anonymous calls, whatever Authorization header they carry.
func TestNoCredentials(t *testing.T) {
	ts := httptest.NewServer(&httprpc.Handler{Server: testutil.WhoamiServer()})
	defer ts.Close()
	if _, body := post(t, http.DefaultClient, ts.URL, "Bearer good"); body != `{"jsonrpc":"2.0","result":"","id":1}` {
		t.Errorf("%s, want anonymous", body)
	}
}

// TestExpiredPrincipal: a Principal that Tokens returns expired (from a
// cache that outlived its token) is refused as an invalid token.
func TestExpiredPrincipal(t *testing.T) {
	expired := transport.TokenVerifierFunc(func(ctx context.Context, token string) (*jsonrpc.Principal, error) {
		return &jsonrpc.Principal{Subject: "bob", Expiry: time.Now().Add(-time.Second)}, nil
	})
	ts := httptest.NewServer(&httprpc.Handler{Server: testutil.WhoamiServer(), Tokens: expired})
	defer ts.Close()
	resp, body := post(t, http.DefaultClient, ts.URL, "Bearer old")
	if resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("WWW-Authenticate") != `Bearer error="invalid_token"` {
		t.Errorf("%d %q %s, want 401 with invalid_token", resp.StatusCode, resp.Header.Get("WWW-Authenticate"), body)
	}
}

// scopedServer requires authentication: whoami needs a Principal, health
// is public, remove needs the scope files:write.
func scopedServer() *jsonrpc.Server {
	srv := jsonrpc.NewServer(jsonrpc.RequireAuth())
	srv.MustRegister("whoami", func(ctx context.Context) string { return jsonrpc.PrincipalOf(ctx).Subject })
	srv.MustRegister("health", func() string { return "ok" }, jsonrpc.Public())
	srv.MustRegister("remove", func() bool { return true }, jsonrpc.RequireScopes("files:read", "files:write"))
	return srv
}

// bobTokens verifies the token "bob", whose Principal has the scope
// files:read only.
var bobTokens = transport.TokenVerifierFunc(func(_ context.Context, token string) (*jsonrpc.Principal, error) {
	if token != "bob" {
		return nil, errors.New("unknown token")
	}
	return &jsonrpc.Principal{Subject: "bob", Scopes: []string{"files:read"}}, nil
})

// postDoc posts doc to url, with the Authorization header auth when it
// is not empty, and returns the answer's status, challenge and body.
func postDoc(t *testing.T, url, auth, doc string) (int, string, string) {
	t.Helper()
	req, err := http.NewRequest("POST", url, strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header.Get("WWW-Authenticate"), string(b)
}

// TestPolicyStatus (issue 35): a request of one call that the server
// refuses for who is calling is answered as RFC 6750 asks, the error
// object as its body: 401 with the Bearer challenge when the call needs a
// Principal and the request (let through by AllowAnonymous) has none, 403
// with error="insufficient_scope" and the scopes when its Principal lacks
// one; a public method answers anybody; a batch is answered 200, element
// by element. Without AllowAnonymous the host refuses a request without
// credentials itself.
func TestPolicyStatus(t *testing.T) {
	ts := httptest.NewServer(&httprpc.Handler{Server: scopedServer(), Tokens: bobTokens, AllowAnonymous: true})
	defer ts.Close()
	const (
		unauthenticated = `{"jsonrpc":"2.0","error":{"code":-32012,"message":"Authentication required"},"id":1}`
		forbidden       = `{"jsonrpc":"2.0","error":{"code":-32013,"message":"Insufficient scope","data":{"scope":"files:read files:write"}},"id":1}`
	)
	for _, tc := range []struct {
		name, auth, doc   string
		status            int
		challenge, answer string
	}{
		{"anonymous", "", `{"jsonrpc":"2.0","method":"whoami","id":1}`, 401, `Bearer`, unauthenticated},
		{"anonymous, public", "", `{"jsonrpc":"2.0","method":"health","id":1}`, 200, "", `{"jsonrpc":"2.0","result":"ok","id":1}`},
		{"anonymous notification", "", `{"jsonrpc":"2.0","method":"whoami"}`, 401, `Bearer`, ""},
		{"a Principal", "Bearer bob", `{"jsonrpc":"2.0","method":"whoami","id":1}`, 200, "", `{"jsonrpc":"2.0","result":"bob","id":1}`},
		{"a scope missing", "Bearer bob", ` {"jsonrpc":"2.0","method":"remove","id":1}`, 403, `Bearer error="insufficient_scope", scope="files:read files:write"`, forbidden},
		{"batch", "Bearer bob", `[{"jsonrpc":"2.0","method":"remove","id":1},{"jsonrpc":"2.0","method":"whoami","id":2}]`, 200, "",
			`[` + forbidden + `,{"jsonrpc":"2.0","result":"bob","id":2}]`},
		{"anonymous batch", "", `[{"jsonrpc":"2.0","method":"whoami","id":1}]`, 200, "", `[` + unauthenticated + `]`},
		{"a token refused", "Bearer eve", `{"jsonrpc":"2.0","method":"health","id":1}`, 401, `Bearer error="invalid_token"`, "jsonrpc: bearer token refused\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, challenge, answer := postDoc(t, ts.URL, tc.auth, tc.doc)
			if status != tc.status || challenge != tc.challenge || answer != tc.answer {
				t.Errorf("%d %q %s\nwant %d %q %s", status, challenge, answer, tc.status, tc.challenge, tc.answer)
			}
		})
	}

	closed := httptest.NewServer(&httprpc.Handler{Server: scopedServer(), Tokens: bobTokens})
	defer closed.Close()
	if status, challenge, _ := postDoc(t, closed.URL, "", `{"jsonrpc":"2.0","method":"health","id":1}`); status != 401 || challenge != "Bearer" {
		t.Errorf("without AllowAnonymous, anonymous: %d %q, want the host's 401", status, challenge)
	}
}

// TestResourceMetadata (issue 35): with ResourceMetadata the handler
// publishes it at its well-known path (RFC 9728), before any check of
// credentials, and names its URL in every challenge: the host's 401 and
// the 401 and 403 of the server's policies.
func TestResourceMetadata(t *testing.T) {
	meta := &transport.ResourceMetadata{Resource: "https://files.example.com/rpc", AuthorizationServers: []string{"https://auth.example.com"}}
	const rm = `resource_metadata="https://files.example.com/.well-known/oauth-protected-resource/rpc"`
	for _, anonymous := range []bool{false, true} {
		ts := httptest.NewServer(&httprpc.Handler{Server: scopedServer(), Tokens: bobTokens, AllowAnonymous: anonymous, ResourceMetadata: meta})
		for _, path := range []string{meta.Path(), transport.WellKnownResourcePath} {
			resp, err := http.Get(ts.URL + path)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 || string(b) != `{"resource":"https://files.example.com/rpc","authorization_servers":["https://auth.example.com"]}` {
				t.Errorf("GET %s: %d %s", path, resp.StatusCode, b)
			}
		}
		for _, tc := range []struct {
			auth, doc string
			status    int
			challenge string
		}{
			{"", `{"jsonrpc":"2.0","method":"whoami","id":1}`, 401, `Bearer ` + rm}, // the host's, or the policy's
			{"Bearer eve", `{"jsonrpc":"2.0","method":"whoami","id":1}`, 401, `Bearer error="invalid_token", ` + rm},
			{"Bearer bob", `{"jsonrpc":"2.0","method":"remove","id":1}`, 403, `Bearer error="insufficient_scope", scope="files:read files:write", ` + rm},
		} {
			status, challenge, _ := postDoc(t, ts.URL, tc.auth, tc.doc)
			if status != tc.status || challenge != tc.challenge {
				t.Errorf("anonymous %v, %q %s: %d %q, want %d %q", anonymous, tc.auth, tc.doc, status, challenge, tc.status, tc.challenge)
			}
		}
		ts.Close()
	}
}
