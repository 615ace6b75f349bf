// Package oauth is the OAuth 2.0 resource server's side of the HTTP hosts
// (httprpc, streamhttp, ws, fasthttprpc): verifiers of the bearer tokens
// an authorization server issues, for their Tokens. Introspection asks
// the authorization server about each token (RFC 7662), with a bounded
// cache; the module github.com/jsonrpc-go/jsonrpc/jwtauth verifies JWTs
// by the server's published keys, without asking it.
//
// The rest of a resource server is in package transport: the metadata
// clients discover the authorization server by (ResourceMetadata, RFC
// 9728), which the hosts publish and name in their challenges, and the
// audience check of a token (CheckAudience, RFC 8707). Who may call what
// is declared on the jsonrpc.Server (RequireScopes, RequireAuth, Public).
//
//	verifier := &oauth.Introspection{
//		Endpoint:     "https://auth.example.com/oauth2/introspect",
//		ClientID:     "files-api",
//		ClientSecret: secret,
//		Audience:     []string{"https://files.example.com/mcp"},
//	}
//	h := &streamhttp.Handler{
//		Server:           srv,
//		Tokens:           verifier,
//		ResourceMetadata: &transport.ResourceMetadata{Resource: "https://files.example.com/mcp", AuthorizationServers: []string{"https://auth.example.com"}},
//	}
package oauth
