package transport_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"net/url"
	"testing"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/transport"
)

func TestBearerToken(t *testing.T) {
	for _, tc := range []struct {
		in, token string
		ok        bool
	}{
		{"Bearer abc", "abc", true},
		{"bearer abc", "abc", true},
		{"BeArEr a-b.c_d~e+f/g==", "a-b.c_d~e+f/g==", true},
		{"Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln", true},
		{"", "", false},
		{"Bearer", "", false},
		{"Bearer ", "", false},
		{"Bearer =", "", false},
		{"Bearer  abc", "", false}, // two spaces
		{"Bearer a b", "", false},
		{"Bearer a=b", "", false},
		{"Bearer\tabc", "", false},
		{"Bearer\x00abc", "", false},
		{"Basic YWxhZGRpbjpvcGVuc2VzYW1l", "", false},
		{"Bearerabc", "", false},
		{"Bearer é", "", false},
	} {
		token, ok := transport.BearerToken(tc.in)
		if token != tc.token || ok != tc.ok {
			t.Errorf("BearerToken(%q) = %q, %v; want %q, %v", tc.in, token, ok, tc.token, tc.ok)
		}
		btoken, bok := transport.BearerToken([]byte(tc.in))
		if string(btoken) != tc.token || bok != tc.ok {
			t.Errorf("BearerToken([]byte(%q)) = %q, %v; want %q, %v", tc.in, btoken, bok, tc.token, tc.ok)
		}
	}
	if n := testing.AllocsPerRun(100, func() { transport.BearerToken([]byte("Bearer abc")) }); n != 0 {
		t.Errorf("BearerToken of bytes allocates %v times", n)
	}
}

func TestTLSPrincipal(t *testing.T) {
	expiry := time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)
	spiffe, _ := url.Parse("spiffe://example.org/ns/default/sa/api")
	for _, tc := range []struct {
		name string
		cert *x509.Certificate
		want string
	}{
		{"common name", &x509.Certificate{Subject: pkix.Name{CommonName: "alice", Organization: []string{"Example"}}, URIs: []*url.URL{spiffe}}, "alice"},
		{"URI", &x509.Certificate{Subject: pkix.Name{Organization: []string{"Example"}}, URIs: []*url.URL{spiffe}}, "spiffe://example.org/ns/default/sa/api"},
		{"distinguished name", &x509.Certificate{Subject: pkix.Name{Organization: []string{"Example"}, Country: []string{"FR"}}}, "O=Example,C=FR"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.cert.NotAfter = expiry
			cs := &tls.ConnectionState{PeerCertificates: []*x509.Certificate{tc.cert}, VerifiedChains: [][]*x509.Certificate{{tc.cert}}}
			p := transport.TLSPrincipal(cs)
			if p == nil || p.Subject != tc.want || !p.Expiry.Equal(expiry) || p.Claims != any(tc.cert) {
				t.Fatalf("TLSPrincipal = %+v, want subject %q, expiry %v and the certificate", p, tc.want, expiry)
			}
			// Not verified: nobody.
			cs.VerifiedChains = nil
			if p := transport.TLSPrincipal(cs); p != nil {
				t.Errorf("TLSPrincipal of a certificate not verified = %+v, want nil", p)
			}
		})
	}
	if p := transport.TLSPrincipal(nil); p != nil {
		t.Errorf("TLSPrincipal(nil) = %+v", p)
	}
}

// TestWithContextValues: the Principal a host gives the calls' context,
// or, when it gives none, the one the context it serves with carries.
func TestWithContextValues(t *testing.T) {
	alice := &jsonrpc.Principal{Subject: "alice"}
	bob := &jsonrpc.Principal{Subject: "bob"}
	base := jsonrpc.WithPrincipal(context.Background(), alice)
	ctx := transport.WithContextValues(base, "conn", "10.0.0.1", nil)
	if p := jsonrpc.PrincipalOf(ctx); p != alice {
		t.Errorf("with no Principal of the host: %v, want the base context's", p)
	}
	ctx = transport.WithContextValues(base, "conn", "10.0.0.1", bob)
	if p := jsonrpc.PrincipalOf(ctx); p != bob {
		t.Errorf("with the host's Principal: %v, want it", p)
	}
	if p := jsonrpc.PrincipalOf(transport.WithContextValues(context.Background(), nil, "", nil)); p != nil {
		t.Errorf("none at all: %v", p)
	}
	srv := jsonrpc.NewServer()
	srv.MustRegister("who", func(ctx context.Context) string {
		return jsonrpc.CallOf(ctx).ContextValue().(string) + " " + jsonrpc.PrincipalOf(ctx).Subject
	})
	if got := srv.ProcessString(ctx, `{"jsonrpc":"2.0","method":"who","id":1}`); got != `{"jsonrpc":"2.0","result":"conn bob","id":1}` {
		t.Errorf("the method sees %s", got)
	}
}

// BearerToken reads the token of an Authorization header of the Bearer
// scheme, as the hosts do before they give it to their TokenVerifier.
func ExampleBearerToken() {
	for _, h := range []string{"Bearer mF_9.B5f-4.1JqM", "bearer mF_9.B5f-4.1JqM", "Basic YWxhZGRpbjpvcGVuc2VzYW1l", "Bearer two words"} {
		token, ok := transport.BearerToken(h)
		fmt.Printf("%q %v\n", token, ok)
	}
	// Output:
	// "mF_9.B5f-4.1JqM" true
	// "mF_9.B5f-4.1JqM" true
	// "" false
	// "" false
}
