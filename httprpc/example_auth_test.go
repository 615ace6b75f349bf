package httprpc_test

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/httprpc"
	"github.com/jsonrpc-go/jsonrpc/internal/testutil"
	"github.com/jsonrpc-go/jsonrpc/transport"
)

// A Handler with Tokens serves the requests whose bearer token the
// verifier accepts, each call with the Principal it returns, and answers
// the others 401 with a Bearer challenge.
func ExampleHandler_tokens() {
	srv := jsonrpc.NewServer()
	srv.MustRegister("whoami", func(ctx context.Context) string {
		p := jsonrpc.PrincipalOf(ctx)
		return fmt.Sprintf("%s %v", p.Subject, p.Scopes)
	})
	verify := transport.TokenVerifierFunc(func(ctx context.Context, token string) (*jsonrpc.Principal, error) {
		if token == "s3cret" { // a real verifier checks a JWT's signature, or asks the issuer
			return &jsonrpc.Principal{Subject: "alice", Scopes: []string{"read"}}, nil
		}
		return nil, errors.New("unknown token")
	})
	ts := httptest.NewServer(&httprpc.Handler{Server: srv, Tokens: verify})
	defer ts.Close()

	for _, token := range []string{"s3cret", "guess", ""} {
		req, _ := http.NewRequest("POST", ts.URL, strings.NewReader(`{"jsonrpc":"2.0","method":"whoami","id":1}`))
		req.Header.Set("Content-Type", "application/json")
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			panic(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		fmt.Printf("%d %q %s\n", resp.StatusCode, resp.Header.Get("WWW-Authenticate"), strings.TrimSpace(string(body)))
	}
	// Output:
	// 200 "" {"jsonrpc":"2.0","result":"alice [read]","id":1}
	// 401 "Bearer error=\"invalid_token\"" jsonrpc: bearer token refused
	// 401 "Bearer" jsonrpc: bearer token required
}

// Over HTTPS with client certificates (the http.Server's TLSConfig), the
// subject of a client's verified certificate is the Principal of its
// calls. (The certificates here are made for the example.)
func ExampleHandler_clientCertificate() {
	pki, err := testutil.MakePKI()
	if err != nil {
		panic(err)
	}
	alice, err := pki.MakeClient("alice")
	if err != nil {
		panic(err)
	}
	srv := jsonrpc.NewServer()
	srv.MustRegister("whoami", func(ctx context.Context) string { return jsonrpc.PrincipalOf(ctx).Subject })

	ts := httptest.NewUnstartedServer(&httprpc.Handler{Server: srv})
	ts.TLS = &tls.Config{
		Certificates: []tls.Certificate{pki.Server},
		ClientCAs:    pki.Pool, // the authority of the clients' certificates
		ClientAuth:   tls.RequireAndVerifyClientCert,
	}
	ts.StartTLS()
	defer ts.Close()

	c := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{
		RootCAs:      pki.Pool, // the authority of the server's certificate
		Certificates: []tls.Certificate{alice},
	}}}
	resp, err := c.Post(ts.URL, "application/json", strings.NewReader(`{"jsonrpc":"2.0","method":"whoami","id":1}`))
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	fmt.Println(string(body))
	// Output: {"jsonrpc":"2.0","result":"alice","id":1}
}

// A server that fails closed, behind a Handler that lets requests
// without credentials reach it: a public method answers anybody, and a
// request whose call the policy refuses is answered 401, or 403 naming
// the scope it needs, the error object as the body.
func ExampleHandler_policies() {
	srv := jsonrpc.NewServer(jsonrpc.RequireAuth())
	srv.MustRegister("version", func() string { return "1.0" }, jsonrpc.Public())
	srv.MustRegister("remove", func(name string) bool { return true }, jsonrpc.RequireScopes("files:write"))
	verify := transport.TokenVerifierFunc(func(ctx context.Context, token string) (*jsonrpc.Principal, error) {
		if token == "s3cret" {
			return &jsonrpc.Principal{Subject: "alice", Scopes: []string{"files:read"}}, nil
		}
		return nil, errors.New("unknown token")
	})
	ts := httptest.NewServer(&httprpc.Handler{Server: srv, Tokens: verify, AllowAnonymous: true})
	defer ts.Close()

	for _, call := range []struct{ token, req string }{
		{"", `{"jsonrpc":"2.0","method":"version","id":1}`},
		{"", `{"jsonrpc":"2.0","method":"remove","params":["a.txt"],"id":2}`},
		{"s3cret", `{"jsonrpc":"2.0","method":"remove","params":["a.txt"],"id":3}`},
	} {
		req, _ := http.NewRequest("POST", ts.URL, strings.NewReader(call.req))
		req.Header.Set("Content-Type", "application/json")
		if call.token != "" {
			req.Header.Set("Authorization", "Bearer "+call.token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			panic(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		fmt.Printf("%d %q\n\t%s\n", resp.StatusCode, resp.Header.Get("WWW-Authenticate"), body)
	}
	// Output:
	// 200 ""
	// 	{"jsonrpc":"2.0","result":"1.0","id":1}
	// 401 "Bearer"
	// 	{"jsonrpc":"2.0","error":{"code":-32012,"message":"Authentication required"},"id":2}
	// 403 "Bearer error=\"insufficient_scope\", scope=\"files:write\""
	// 	{"jsonrpc":"2.0","error":{"code":-32013,"message":"Insufficient scope","data":{"scope":"files:write"}},"id":3}
}
