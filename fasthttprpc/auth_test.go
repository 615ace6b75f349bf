package fasthttprpc_test

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/fasthttprpc"
	"github.com/jsonrpc-go/jsonrpc/internal/testutil"
	"github.com/jsonrpc-go/jsonrpc/transport"
)

// serveTLS starts a fasthttp.Server for h over TLS with config on
// loopback and returns its URL; it is shut down when the test ends.
func serveTLS(t *testing.T, h fasthttp.RequestHandler, config *tls.Config) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &fasthttp.Server{Handler: h, ReadTimeout: 10 * time.Second, Logger: quiet{}}
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.Serve(tls.NewListener(ln, config))
	}()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		s.ShutdownWithContext(ctx)
		<-done
	})
	return "https://" + ln.Addr().String()
}

// whoami posts a whoami call to url with c, and the Authorization header
// auth when it is not empty.
func whoami(t *testing.T, c *http.Client, url, auth string) (*http.Response, string, error) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","method":"whoami","id":1}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp, string(b), err
}

// TestClientCertificatePrincipal: over HTTPS, the subject of the client's
// verified certificate reaches the method; a client without one is
// refused where one is required.
func TestClientCertificatePrincipal(t *testing.T) {
	pki := testutil.NewPKI(t)
	h := &fasthttprpc.Handler{Server: testutil.WhoamiServer()}
	url := serveTLS(t, h.ServeFastHTTP, pki.ServerConfig(tls.RequireAndVerifyClientCert))
	alice := &http.Client{Transport: &http.Transport{TLSClientConfig: pki.ClientConfig(pki.Client(t, "alice"))}}
	defer alice.CloseIdleConnections()
	if _, body, err := whoami(t, alice, url, ""); err != nil || body != `{"jsonrpc":"2.0","result":"alice","id":1}` {
		t.Errorf("with a certificate: %s, %v", body, err)
	}
	nobody := &http.Client{Transport: &http.Transport{TLSClientConfig: pki.ClientConfig()}}
	defer nobody.CloseIdleConnections()
	if resp, body, err := whoami(t, nobody, url, ""); err == nil {
		t.Errorf("without a certificate where one is required: %d %s, want a refused handshake", resp.StatusCode, body)
	}
}

// TestBearerToken: with Tokens, a request's bearer token gives its calls
// their Principal; a request without one, or with one refused, is
// answered 401 with the Bearer challenge.
func TestBearerToken(t *testing.T) {
	tokens := transport.TokenVerifierFunc(func(ctx context.Context, token string) (*jsonrpc.Principal, error) {
		if token == "good" {
			return &jsonrpc.Principal{Subject: "bob"}, nil
		}
		return nil, errors.New("unknown token")
	})
	h := &fasthttprpc.Handler{Server: testutil.WhoamiServer(), Tokens: tokens}
	url := serve(t, h.ServeFastHTTP)
	if _, body, err := whoami(t, http.DefaultClient, url, "Bearer good"); err != nil || body != `{"jsonrpc":"2.0","result":"bob","id":1}` {
		t.Errorf("with a token: %s, %v", body, err)
	}
	for auth, challenge := range map[string]string{"": "Bearer", "Bearer bad": `Bearer error="invalid_token"`} {
		resp, body, err := whoami(t, http.DefaultClient, url, auth)
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("WWW-Authenticate") != challenge {
			t.Errorf("%q: %d %q %q, want 401 %q", auth, resp.StatusCode, resp.Header.Get("WWW-Authenticate"), body, challenge)
		}
		if strings.Contains(body, "unknown token") {
			t.Errorf("%q: the body tells the verifier's error: %q", auth, body)
		}
	}
}

// TestPolicyStatus (issue 35): a request of one call that the server
// refuses for who is calling is answered as httprpc answers it: 401 with
// the Bearer challenge for none (let through by AllowAnonymous), 403 with
// error="insufficient_scope" and the scopes for a Principal without one,
// the error object as the body; a batch 200, element by element.
func TestPolicyStatus(t *testing.T) {
	srv := jsonrpc.NewServer(jsonrpc.RequireAuth())
	srv.MustRegister("whoami", func(ctx context.Context) string { return jsonrpc.PrincipalOf(ctx).Subject })
	srv.MustRegister("health", func() string { return "ok" }, jsonrpc.Public())
	srv.MustRegister("remove", func() bool { return true }, jsonrpc.RequireScopes("files:write"))
	tokens := transport.TokenVerifierFunc(func(ctx context.Context, token string) (*jsonrpc.Principal, error) {
		if token == "bob" {
			return &jsonrpc.Principal{Subject: "bob", Scopes: []string{"files:read"}}, nil
		}
		return nil, errors.New("unknown token")
	})
	url := serve(t, (&fasthttprpc.Handler{Server: srv, Tokens: tokens, AllowAnonymous: true}).ServeFastHTTP)
	forbidden := `{"jsonrpc":"2.0","error":{"code":-32013,"message":"Insufficient scope","data":{"scope":"files:write"}},"id":1}`
	for _, tc := range []struct {
		auth, doc         string
		status            int
		challenge, answer string
	}{
		{"", `{"jsonrpc":"2.0","method":"whoami","id":1}`, 401, "Bearer", `{"jsonrpc":"2.0","error":{"code":-32012,"message":"Authentication required"},"id":1}`},
		{"", `{"jsonrpc":"2.0","method":"health","id":1}`, 200, "", `{"jsonrpc":"2.0","result":"ok","id":1}`},
		{"Bearer bob", `{"jsonrpc":"2.0","method":"remove","id":1}`, 403, `Bearer error="insufficient_scope", scope="files:write"`, forbidden},
		{"Bearer bob", `[{"jsonrpc":"2.0","method":"remove","id":1}]`, 200, "", "[" + forbidden + "]"},
		{"Bearer bob", `{"jsonrpc":"2.0","method":"whoami","id":1}`, 200, "", `{"jsonrpc":"2.0","result":"bob","id":1}`},
	} {
		req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(tc.doc))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		if tc.auth != "" {
			req.Header.Set("Authorization", tc.auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.status || resp.Header.Get("WWW-Authenticate") != tc.challenge || string(b) != tc.answer {
			t.Errorf("%s %s: %d %q %s\nwant %d %q %s", tc.auth, tc.doc, resp.StatusCode, resp.Header.Get("WWW-Authenticate"), b, tc.status, tc.challenge, tc.answer)
		}
	}
}

// TestResourceMetadata (issue 35): the handler publishes its metadata
// (RFC 9728) and names it in the challenge of its 401.
func TestResourceMetadata(t *testing.T) {
	meta := &transport.ResourceMetadata{Resource: "https://files.example.com/", AuthorizationServers: []string{"https://auth.example.com"}}
	tokens := transport.TokenVerifierFunc(func(ctx context.Context, token string) (*jsonrpc.Principal, error) { return nil, errors.New("no") })
	url := serve(t, (&fasthttprpc.Handler{Server: testutil.WhoamiServer(), Tokens: tokens, ResourceMetadata: meta}).ServeFastHTTP)
	resp, err := http.Get(url + transport.WellKnownResourcePath)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json" || string(b) != `{"resource":"https://files.example.com/","authorization_servers":["https://auth.example.com"]}` {
		t.Errorf("the metadata: %d %q %s", resp.StatusCode, resp.Header.Get("Content-Type"), b)
	}
	resp, _, err = whoami(t, http.DefaultClient, url, "")
	if err != nil {
		t.Fatal(err)
	}
	if want := `Bearer resource_metadata="https://files.example.com/.well-known/oauth-protected-resource"`; resp.StatusCode != 401 || resp.Header.Get("WWW-Authenticate") != want {
		t.Errorf("no token: %d %q, want 401 %q", resp.StatusCode, resp.Header.Get("WWW-Authenticate"), want)
	}
}
