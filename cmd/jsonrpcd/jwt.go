package main

import (
	"github.com/jsonrpc-go/jsonrpc/jwtauth"
	"github.com/jsonrpc-go/jsonrpc/transport"
)

// tokens returns the verifier of the bearer tokens of -jwt-issuer,
// -jwt-audience and -jwt-jwks, and the metadata of the resource they
// protect; nil and nil without -jwt-issuer.
func tokens(cfg config) (transport.TokenVerifier, *transport.ResourceMetadata) {
	if cfg.jwtIssuer == "" {
		return nil, nil
	}
	v := &jwtauth.Verifier{Issuer: cfg.jwtIssuer, Audience: cfg.jwtAudience, JWKSURL: cfg.jwtJWKS}
	m := &transport.ResourceMetadata{
		Resource:               cfg.jwtAudience[0],
		AuthorizationServers:   []string{cfg.jwtIssuer},
		BearerMethodsSupported: []string{"header"},
	}
	return v, m
}
