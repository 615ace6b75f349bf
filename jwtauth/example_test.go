package jwtauth_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/httprpc"
	"github.com/jsonrpc-go/jsonrpc/jwtauth"
)

// An HTTP host whose bearer tokens are JWTs of an issuer, verified by the
// keys it publishes: a token for this resource is taken, one issued for
// another resource, or expired, is answered 401. The issuer here is a
// stand-in that publishes one key.
func ExampleVerifier() {
	priv, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	jwks := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &priv.PublicKey, KeyID: "k1", Algorithm: "ES256", Use: "sig"}}})
	}))
	defer jwks.Close()
	signer, _ := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: priv}, (&jose.SignerOptions{}).WithHeader("kid", "k1"))
	token := func(aud string, exp time.Duration) string {
		t, _ := jwt.Signed(signer).Claims(map[string]any{
			"iss": "https://auth.example.com", "sub": "alice", "aud": aud, "scope": "files:read",
			"exp": time.Now().Add(exp).Unix(),
		}).Serialize()
		return t
	}

	srv := jsonrpc.NewServer()
	srv.MustRegister("whoami", func(ctx context.Context) string {
		p := jsonrpc.PrincipalOf(ctx)
		return fmt.Sprintf("%s %v", p.Subject, p.Scopes)
	}, jsonrpc.RequireScopes("files:read"))
	rpc := httptest.NewServer(&httprpc.Handler{Server: srv, Tokens: &jwtauth.Verifier{
		Issuer:   "https://auth.example.com",
		Audience: []string{"https://files.example.com/rpc"},
		JWKSURL:  jwks.URL,
	}})
	defer rpc.Close()

	for _, tok := range []string{
		token("https://files.example.com/rpc", time.Hour),
		token("https://other.example.com/rpc", time.Hour),
		token("https://files.example.com/rpc", -time.Hour),
	} {
		req, _ := http.NewRequest("POST", rpc.URL, strings.NewReader(`{"jsonrpc":"2.0","method":"whoami","id":1}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+tok)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			panic(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		fmt.Println(resp.StatusCode, strings.TrimSpace(string(body)))
	}
	// Output:
	// 200 {"jsonrpc":"2.0","result":"alice [files:read]","id":1}
	// 401 jsonrpc: bearer token refused
	// 401 jsonrpc: bearer token refused
}
