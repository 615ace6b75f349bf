package stream_test

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/jsonrpc-go/jsonrpc/client"
	"github.com/jsonrpc-go/jsonrpc/framing"
	"github.com/jsonrpc-go/jsonrpc/internal/leaktest"
	"github.com/jsonrpc-go/jsonrpc/internal/testutil"
	"github.com/jsonrpc-go/jsonrpc/stream"
)

// serveTLS serves s on a TCP listener of 127.0.0.1 and returns its
// address; the cleanup closes s and waits for Serve.
func serveTLS(t *testing.T, s *stream.Server) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Serve(l) }()
	t.Cleanup(func() {
		s.Close()
		if err := <-done; !errors.Is(err, stream.ErrServerClosed) {
			t.Errorf("Serve: %v", err)
		}
	})
	return l.Addr().String()
}

func whoami(t *testing.T, ch client.Channel) (string, error) {
	t.Helper()
	c := client.New(ch)
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return client.Call[string](ctx, c, "whoami", nil)
}

// TestTLSClientCertificate: over TLS TCP, the subject of the client's
// verified certificate reaches the method; a client without a
// certificate is refused where one is required, and anonymous where it
// is optional; a client that does not speak TLS is refused.
func TestTLSClientCertificate(t *testing.T) {
	leaktest.Check(t)
	pki := testutil.NewPKI(t)
	alice := pki.Client(t, "alice")
	ctx := context.Background()
	for _, f := range []struct {
		name string
		f    framing.Framing
	}{{"Line", framing.Line}, {"Header", framing.Header}} {
		t.Run(f.name, func(t *testing.T) {
			required := serveTLS(t, &stream.Server{Server: testutil.WhoamiServer(), Framing: f.f, TLSConfig: pki.ServerConfig(tls.RequireAndVerifyClientCert)})
			ch, err := client.DialTLS(ctx, "tcp", required, pki.ClientConfig(alice), f.f)
			if err != nil {
				t.Fatal(err)
			}
			if got, err := whoami(t, ch); got != "alice" || err != nil {
				t.Errorf("with a certificate: %q, %v; want alice", got, err)
			}

			// TLS 1.3 completes the client's handshake before the server
			// has checked its certificate: the call fails.
			ch, err = client.DialTLS(ctx, "tcp", required, pki.ClientConfig(), f.f)
			if err == nil {
				got, err := whoami(t, ch)
				if !errors.Is(err, client.ErrClosed) {
					t.Errorf("without a certificate where one is required: %q, %v; want ErrClosed", got, err)
				}
			}

			optional := serveTLS(t, &stream.Server{Server: testutil.WhoamiServer(), Framing: f.f, TLSConfig: pki.ServerConfig(tls.VerifyClientCertIfGiven)})
			ch, err = client.DialTLS(ctx, "tcp", optional, pki.ClientConfig(), f.f)
			if err != nil {
				t.Fatal(err)
			}
			if got, err := whoami(t, ch); got != "" || err != nil {
				t.Errorf("without a certificate where it is optional: %q, %v; want anonymous", got, err)
			}
			ch, err = client.DialTLS(ctx, "tcp", optional, pki.ClientConfig(alice), f.f)
			if err != nil {
				t.Fatal(err)
			}
			if got, err := whoami(t, ch); got != "alice" || err != nil {
				t.Errorf("with a certificate where it is optional: %q, %v; want alice", got, err)
			}

			// A plain client gets no answer: its request is no TLS record.
			ch, err = client.Dial(ctx, "tcp", optional, f.f)
			if err != nil {
				t.Fatal(err)
			}
			if got, err := whoami(t, ch); err == nil {
				t.Errorf("a plain client: %q, want a failure", got)
			}
		})
	}
}

// TestTLSListener: a *tls.Conn that a tls.Listen listener accepts is
// served over its TLS, its client certificate's subject the Principal,
// without TLSConfig.
func TestTLSListener(t *testing.T) {
	leaktest.Check(t)
	pki := testutil.NewPKI(t)
	l, err := tls.Listen("tcp", "127.0.0.1:0", pki.ServerConfig(tls.RequireAndVerifyClientCert))
	if err != nil {
		t.Fatal(err)
	}
	s := &stream.Server{Server: testutil.WhoamiServer()}
	done := make(chan error, 1)
	go func() { done <- s.Serve(l) }()
	defer func() {
		s.Close()
		<-done
	}()
	ch, err := client.DialTLS(context.Background(), "tcp", l.Addr().String(), pki.ClientConfig(pki.Client(t, "bob")), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := whoami(t, ch); got != "bob" || err != nil {
		t.Errorf("%q, %v; want bob", got, err)
	}
}

// TestTLSHandshakeBounds: a connection that never begins its handshake is
// closed after ReadTimeout, and at Close; ServeConn refuses a connection
// that is not a net.Conn under TLSConfig.
func TestTLSHandshakeBounds(t *testing.T) {
	leaktest.Check(t)
	pki := testutil.NewPKI(t)
	s := &stream.Server{Server: testutil.WhoamiServer(), TLSConfig: pki.ServerConfig(tls.NoClientCert)}
	s.ReadTimeout = 50 * time.Millisecond
	cc, sc := net.Pipe()
	defer cc.Close()
	start := time.Now()
	err := s.ServeConn(context.Background(), sc)
	if err == nil || !strings.Contains(err.Error(), "TLS handshake") {
		t.Errorf("ServeConn of a silent client: %v, want a handshake error", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the handshake took %v past a ReadTimeout of 50ms", d)
	}

	s2 := &stream.Server{Server: testutil.WhoamiServer(), TLSConfig: pki.ServerConfig(tls.NoClientCert)}
	cc2, sc2 := net.Pipe()
	defer cc2.Close()
	done := make(chan error, 1)
	go func() { done <- s2.ServeConn(context.Background(), sc2) }()
	s2.Close()
	select {
	case err := <-done:
		if !errors.Is(err, stream.ErrServerClosed) {
			t.Errorf("ServeConn after Close: %v, want ErrServerClosed", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not end a handshake waiting for its client")
	}

	if err := s.ServeConn(context.Background(), stream.ReadWriteCloser(strings.NewReader(""), nopWriter{})); err == nil {
		t.Error("ServeConn of a pipe that is no net.Conn, under TLSConfig: no error")
	}
}

type nopWriter struct{}

func (nopWriter) Write(b []byte) (int, error) { return len(b), nil }
