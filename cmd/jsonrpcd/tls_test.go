package main

import (
	"context"
	"crypto/tls"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/jsonrpc-go/jsonrpc/client"
	"github.com/jsonrpc-go/jsonrpc/internal/testutil"
)

// httpsPost posts req to url with c and returns the status and body.
func httpsPost(c *http.Client, url, req string) (int, string, error) {
	resp, err := c.Post(url, "application/json", strings.NewReader(req))
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body), err
}

// TestTLSFlags: with -tls-cert and -tls-key, jsonrpcd answers HTTPS and
// TLS TCP clients that trust its authority (as curl --cacert does), and
// refuses plain ones; with -tls-client-ca, only the clients with a
// certificate of that authority.
func TestTLSFlags(t *testing.T) {
	pki := testutil.NewPKI(t)
	certFile, keyFile, caFile := pki.WriteFiles(t)
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	client4 := func(certs ...tls.Certificate) *http.Client {
		c := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: pki.ClientConfig(certs...)}}
		t.Cleanup(c.CloseIdleConnections)
		return c
	}
	tcpAdd := func(addr string, config *tls.Config) (float64, error) {
		var ch client.Channel
		var err error
		if config == nil {
			ch, err = client.Dial(ctx, "tcp", addr, nil)
		} else {
			ch, err = client.DialTLS(ctx, "tcp", addr, config, nil)
		}
		if err != nil {
			return 0, err
		}
		c := client.New(ch)
		defer c.Close()
		callCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		return client.Call[float64](callCtx, c, "add", []int{1, 2})
	}

	t.Run("server", func(t *testing.T) {
		r := startRun(t, "-tls-cert", certFile, "-tls-key", keyFile)
		url := r.addr["http"]
		if !strings.HasPrefix(url, "https://") || !strings.Contains(r.stdout.String(), "over TLS") {
			t.Fatalf("jsonrpcd says:\n%s", r.stdout)
		}
		if status, body, err := httpsPost(client4(), url, addReq); err != nil || status != 200 || body != `{"jsonrpc":"2.0","result":3,"id":1}` {
			t.Errorf("HTTPS: %d %s %v", status, body, err)
		}
		plain := "http://" + strings.TrimPrefix(url, "https://")
		if status, body, err := httpsPost(&http.Client{Timeout: 5 * time.Second}, plain, addReq); err == nil && (status != http.StatusBadRequest || strings.Contains(body, "result")) {
			t.Errorf("plain HTTP to the TLS listener: %d %s, want 400", status, body)
		}
		if _, _, err := httpsPost(&http.Client{Timeout: 5 * time.Second}, url, addReq); err == nil {
			t.Error("a client that does not trust the authority was answered")
		}
		if sum, err := tcpAdd(r.addr["tcp"], pki.ClientConfig()); sum != 3 || err != nil {
			t.Errorf("TLS TCP: %v, %v", sum, err)
		}
		if sum, err := tcpAdd(r.addr["tcp"], nil); err == nil {
			t.Errorf("plain TCP to the TLS listener: %v, want a failure", sum)
		}
	})

	t.Run("mutual", func(t *testing.T) {
		r := startRun(t, "-tls-cert", certFile, "-tls-key", keyFile, "-tls-client-ca", caFile)
		url := r.addr["http"]
		alice := pki.Client(t, "alice")
		if status, body, err := httpsPost(client4(alice), url, addReq); err != nil || status != 200 || body != `{"jsonrpc":"2.0","result":3,"id":1}` {
			t.Errorf("HTTPS with a client certificate: %d %s %v", status, body, err)
		}
		if status, body, err := httpsPost(client4(), url, addReq); err == nil {
			t.Errorf("HTTPS without a client certificate: %d %s, want a refused handshake", status, body)
		}
		if sum, err := tcpAdd(r.addr["tcp"], pki.ClientConfig(alice)); sum != 3 || err != nil {
			t.Errorf("TLS TCP with a client certificate: %v, %v", sum, err)
		}
		if sum, err := tcpAdd(r.addr["tcp"], pki.ClientConfig()); err == nil {
			t.Errorf("TLS TCP without a client certificate: %v, want a failure", sum)
		}
	})
}

func TestTLSFlagErrors(t *testing.T) {
	pki := testutil.NewPKI(t)
	certFile, keyFile, caFile := pki.WriteFiles(t)
	for _, args := range [][]string{
		{"-tls-cert", certFile},
		{"-tls-key", keyFile},
		{"-tls-client-ca", caFile},
		{"-tls-cert", certFile, "-tls-key", keyFile, "-stdio"},
	} {
		if _, status, ok := parseFlags(args, io.Discard); ok || status != 2 {
			t.Errorf("%q: ok %v, status %d; want status 2", args, ok, status)
		}
	}
	var stderr strings.Builder
	if status := run(context.Background(), []string{"-http", "127.0.0.1:0", "-tcp", "", "-tls-cert", keyFile, "-tls-key", keyFile}, strings.NewReader(""), io.Discard, &stderr); status != 1 || !strings.Contains(stderr.String(), "-tls-cert") {
		t.Errorf("a key as certificate: status %d, %q; want 1 and an error naming -tls-cert", status, stderr.String())
	}
	stderr.Reset()
	if status := run(context.Background(), []string{"-http", "127.0.0.1:0", "-tcp", "", "-tls-cert", certFile, "-tls-key", keyFile, "-tls-client-ca", keyFile}, strings.NewReader(""), io.Discard, &stderr); status != 1 || !strings.Contains(stderr.String(), "-tls-client-ca") {
		t.Errorf("a key as client CA: status %d, %q; want 1 and an error naming -tls-client-ca", status, stderr.String())
	}
}
