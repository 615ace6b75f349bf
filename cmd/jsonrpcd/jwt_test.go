package main

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/client"
)

// TestJWTFlags (issue 35): with -jwt-issuer, -jwt-audience and -jwt-jwks,
// jsonrpcd answers the HTTP requests bearing a JWT of the issuer for its
// audience, and answers 401 with the Bearer challenge, naming its
// metadata, those without one, with a token for another audience, or
// expired; it publishes the metadata; every method needs a caller, so a
// TCP client without a certificate is refused each call.
func TestJWTFlags(t *testing.T) {
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	jwks := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &priv.PublicKey, KeyID: "k1", Algorithm: "ES256", Use: "sig"}}})
	}))
	defer jwks.Close()
	const issuer, audience = "https://auth.example.com", "https://rpc.example.com/"
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: priv}, (&jose.SignerOptions{}).WithHeader("kid", "k1"))
	if err != nil {
		t.Fatal(err)
	}
	token := func(aud string, exp time.Duration) string {
		tok, err := jwt.Signed(signer).Claims(map[string]any{"iss": issuer, "sub": "alice", "aud": aud, "exp": time.Now().Add(exp).Unix()}).Serialize()
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}

	r := startRun(t, "-jwt-issuer", issuer, "-jwt-audience", audience, "-jwt-jwks", jwks.URL)
	url := r.addr["http"]
	const rm = `resource_metadata="https://rpc.example.com/.well-known/oauth-protected-resource"`
	for _, tc := range []struct {
		name, token string
		status      int
		challenge   string
	}{
		{"a token", token(audience, time.Hour), 200, ""},
		{"none", "", 401, "Bearer " + rm},
		{"another audience", token("https://other.example.com/", time.Hour), 401, `Bearer error="invalid_token", ` + rm},
		{"expired", token(audience, -time.Hour), 401, `Bearer error="invalid_token", ` + rm},
	} {
		req, _ := http.NewRequest("POST", url, strings.NewReader(addReq))
		req.Header.Set("Content-Type", "application/json")
		if tc.token != "" {
			req.Header.Set("Authorization", "Bearer "+tc.token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.status || resp.Header.Get("WWW-Authenticate") != tc.challenge {
			t.Errorf("%s: %d %q %s; want %d %q", tc.name, resp.StatusCode, resp.Header.Get("WWW-Authenticate"), body, tc.status, tc.challenge)
		}
	}
	resp, err := http.Get(url + "/.well-known/oauth-protected-resource")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if want := `{"resource":"https://rpc.example.com/","authorization_servers":["https://auth.example.com"],"bearer_methods_supported":["header"]}`; string(body) != want {
		t.Errorf("the metadata: %d %s, want %s", resp.StatusCode, body, want)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ch, err := client.Dial(ctx, "tcp", r.addr["tcp"], nil)
	if err != nil {
		t.Fatal(err)
	}
	c := client.New(ch)
	defer c.Close()
	if _, err := client.Call[float64](ctx, c, "add", []int{1, 2}); jsonrpc.ErrorCode(err) != jsonrpc.CodeUnauthenticated {
		t.Errorf("TCP without a certificate: %v, want code %d", err, jsonrpc.CodeUnauthenticated)
	}

	for _, args := range [][]string{
		{"-jwt-issuer", issuer},
		{"-jwt-issuer", issuer, "-jwt-audience", audience},
		{"-jwt-audience", audience, "-jwt-jwks", jwks.URL},
		{"-jwt-issuer", issuer, "-jwt-audience", audience, "-jwt-jwks", jwks.URL, "-stdio"},
	} {
		var stderr bytes.Buffer
		if status := run(context.Background(), args, strings.NewReader(""), io.Discard, &stderr); status != 2 || !strings.Contains(stderr.String(), "-jwt-issuer") {
			t.Errorf("%q: status %d, %q; want 2 and an error naming -jwt-issuer", args, status, stderr.String())
		}
	}
}
