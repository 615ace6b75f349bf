package oauth_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/httprpc"
	"github.com/jsonrpc-go/jsonrpc/oauth"
	"github.com/jsonrpc-go/jsonrpc/transport"
)

// An HTTP host whose bearer tokens the authorization server vouches for,
// asked once per token (RFC 7662), and which publishes where clients get
// them (RFC 9728). The authorization server here is a stand-in that knows
// one token.
func ExampleIntrospection() {
	auth := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.PostFormValue("token") == "t0k3n" {
			io.WriteString(w, `{"active":true,"sub":"alice","scope":"files:read","aud":"https://files.example.com/rpc"}`)
			return
		}
		io.WriteString(w, `{"active":false}`)
	}))
	defer auth.Close()

	srv := jsonrpc.NewServer(jsonrpc.RequireAuth())
	srv.MustRegister("whoami", func(ctx context.Context) string { return jsonrpc.PrincipalOf(ctx).Subject })
	rpc := httptest.NewServer(&httprpc.Handler{
		Server: srv,
		Tokens: &oauth.Introspection{Endpoint: auth.URL, Audience: []string{"https://files.example.com/rpc"}},
		ResourceMetadata: &transport.ResourceMetadata{
			Resource:             "https://files.example.com/rpc",
			AuthorizationServers: []string{auth.URL},
		},
	})
	defer rpc.Close()

	for _, token := range []string{"t0k3n", "stolen"} {
		req, _ := http.NewRequest("POST", rpc.URL, strings.NewReader(`{"jsonrpc":"2.0","method":"whoami","id":1}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			panic(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		fmt.Printf("%d %q\n\t%s\n", resp.StatusCode, resp.Header.Get("WWW-Authenticate"), strings.TrimSpace(string(body)))
	}
	// Output:
	// 200 ""
	// 	{"jsonrpc":"2.0","result":"alice","id":1}
	// 401 "Bearer error=\"invalid_token\", resource_metadata=\"https://files.example.com/.well-known/oauth-protected-resource/rpc\""
	// 	jsonrpc: bearer token refused
}
