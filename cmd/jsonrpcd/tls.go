package main

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"os"
)

// loadTLS returns the TLS configuration of -tls-cert, -tls-key and
// -tls-client-ca: the certificate of certFile (a chain, leaf first) with
// the key of keyFile, TLS 1.2 at least, and, with caFile, the client
// certificates required and verified against its authorities (mutual
// TLS), so that the subject of each reaches the calls
// (jsonrpc.PrincipalOf).
func loadTLS(certFile, keyFile, caFile string) (*tls.Config, error) {
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return nil, fmt.Errorf("-tls-cert %s, -tls-key %s: %w", certFile, keyFile, err)
	}
	c := &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	if caFile != "" {
		pem, err := os.ReadFile(caFile)
		if err != nil {
			return nil, fmt.Errorf("-tls-client-ca: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("-tls-client-ca %s: no PEM certificate in it", caFile)
		}
		c.ClientCAs = pool
		c.ClientAuth = tls.RequireAndVerifyClientCert
	}
	return c, nil
}
