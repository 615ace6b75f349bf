package stream_test

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/client"
	"github.com/jsonrpc-go/jsonrpc/internal/testutil"
	"github.com/jsonrpc-go/jsonrpc/stream"
)

// A Server with a TLSConfig that verifies client certificates serves
// mutual TLS: a method learns the subject of its caller's certificate
// from jsonrpc.PrincipalOf. (The certificates here are made for the
// example: a certificate authority, the server's certificate for
// 127.0.0.1 and a client's, alice's.)
func ExampleServer_TLSConfig() {
	pki, err := testutil.MakePKI()
	if err != nil {
		panic(err)
	}
	alice, err := pki.MakeClient("alice")
	if err != nil {
		panic(err)
	}

	srv := jsonrpc.NewServer()
	srv.MustRegister("whoami", func(ctx context.Context) string {
		return jsonrpc.PrincipalOf(ctx).Subject
	})
	s := &stream.Server{Server: srv, TLSConfig: &tls.Config{
		Certificates: []tls.Certificate{pki.Server},
		ClientCAs:    pki.Pool, // the authority of the clients' certificates
		ClientAuth:   tls.RequireAndVerifyClientCert,
	}}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	go s.Serve(l)
	defer s.Close()

	ch, err := client.DialTLS(context.Background(), "tcp", l.Addr().String(), &tls.Config{
		RootCAs:      pki.Pool, // the authority of the server's certificate
		Certificates: []tls.Certificate{alice},
	}, nil)
	if err != nil {
		panic(err)
	}
	c := client.New(ch)
	defer c.Close()
	who, err := client.Call[string](context.Background(), c, "whoami", nil)
	fmt.Println(who, err)
	// Output: alice <nil>
}
