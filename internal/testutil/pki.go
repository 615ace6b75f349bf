package testutil

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// A PKI is a certificate authority made for one test, and the server
// certificate it issued for 127.0.0.1 (and localhost). Its keys are ECDSA
// P-256, made anew by NewPKI.
type PKI struct {
	CA     *x509.Certificate
	Pool   *x509.CertPool // holds CA alone
	Server tls.Certificate
	key    *ecdsa.PrivateKey
	serial int64
}

// NewPKI makes a certificate authority and its server certificate.
func NewPKI(t testing.TB) *PKI {
	t.Helper()
	p, err := MakePKI()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// MakePKI is NewPKI for an example, which has no testing.TB.
func MakePKI() (*PKI, error) {
	key, err := newKey()
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "test CA", Organization: []string{"jsonrpc-go tests"}},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, err
	}
	ca, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	p := &PKI{CA: ca, Pool: x509.NewCertPool(), key: key, serial: 1}
	p.Pool.AddCert(ca)
	p.Server, err = p.issue(&x509.Certificate{
		Subject:     pkix.Name{CommonName: "127.0.0.1"},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		DNSNames:    []string{"localhost"},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	})
	if err != nil {
		return nil, err
	}
	return p, nil
}

// Client returns a client certificate for the common name cn.
func (p *PKI) Client(t testing.TB, cn string) tls.Certificate {
	t.Helper()
	c, err := p.MakeClient(cn)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// MakeClient is Client for an example, which has no testing.TB.
func (p *PKI) MakeClient(cn string) (tls.Certificate, error) {
	return p.issue(&x509.Certificate{
		Subject:     pkix.Name{CommonName: cn, Organization: []string{"jsonrpc-go tests"}},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	})
}

// ServerConfig returns the configuration of a server that presents
// p.Server and takes client certificates issued by p's CA as auth says.
func (p *PKI) ServerConfig(auth tls.ClientAuthType) *tls.Config {
	return &tls.Config{Certificates: []tls.Certificate{p.Server}, ClientCAs: p.Pool, ClientAuth: auth}
}

// ClientConfig returns the configuration of a client that trusts p's CA
// and presents certs.
func (p *PKI) ClientConfig(certs ...tls.Certificate) *tls.Config {
	return &tls.Config{RootCAs: p.Pool, Certificates: certs}
}

// WriteFiles writes the server's certificate and key, and the CA's
// certificate, as PEM files in a temporary directory of t, and returns
// their names.
func (p *PKI) WriteFiles(t testing.TB) (certFile, keyFile, caFile string) {
	t.Helper()
	dir := t.TempDir()
	keyDER, err := x509.MarshalPKCS8PrivateKey(p.Server.PrivateKey)
	if err != nil {
		t.Fatal(err)
	}
	certFile = filepath.Join(dir, "server.crt")
	keyFile = filepath.Join(dir, "server.key")
	caFile = filepath.Join(dir, "ca.crt")
	for _, f := range []struct {
		name, kind string
		der        []byte
	}{
		{certFile, "CERTIFICATE", p.Server.Certificate[0]},
		{keyFile, "PRIVATE KEY", keyDER},
		{caFile, "CERTIFICATE", p.CA.Raw},
	} {
		if err := os.WriteFile(f.name, pem.EncodeToMemory(&pem.Block{Type: f.kind, Bytes: f.der}), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return certFile, keyFile, caFile
}

// issue signs tmpl, valid for a day, with a new key.
func (p *PKI) issue(tmpl *x509.Certificate) (tls.Certificate, error) {
	key, err := newKey()
	if err != nil {
		return tls.Certificate{}, err
	}
	p.serial++
	tmpl.SerialNumber = big.NewInt(p.serial)
	tmpl.NotBefore = time.Now().Add(-time.Hour)
	tmpl.NotAfter = time.Now().Add(24 * time.Hour)
	tmpl.KeyUsage = x509.KeyUsageDigitalSignature
	der, err := x509.CreateCertificate(rand.Reader, tmpl, p.CA, &key.PublicKey, p.key)
	if err != nil {
		return tls.Certificate{}, err
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return tls.Certificate{}, err
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, nil
}

func newKey() (*ecdsa.PrivateKey, error) {
	return ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
}
