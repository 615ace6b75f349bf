package transport_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/httprpc"
	"github.com/jsonrpc-go/jsonrpc/transport"
)

// counted is middleware: a transport.Handler that counts the messages it
// passes to the handler it wraps.
type counted struct {
	next transport.Handler
	n    atomic.Int64
}

func (c *counted) ProcessAsync(ctx context.Context, dst, req []byte, reply func([]byte)) {
	c.n.Add(1)
	c.next.ProcessAsync(ctx, dst, req, reply)
}

// A host serves any transport.Handler: here an HTTP handler serves a
// server wrapped in middleware that counts its messages.
func ExampleHandler() {
	srv := jsonrpc.NewServer()
	srv.MustRegister("add", func(a, b int) int { return a + b })
	c := &counted{next: srv}
	ts := httptest.NewServer(&httprpc.Handler{Server: c})
	defer ts.Close()

	for range 2 {
		resp, err := http.Post(ts.URL, "application/json", strings.NewReader(`{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`))
		if err != nil {
			fmt.Println(err)
			return
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		fmt.Println(string(body))
	}
	fmt.Println("messages:", c.n.Load())
	// Output:
	// {"jsonrpc":"2.0","result":3,"id":1}
	// {"jsonrpc":"2.0","result":3,"id":1}
	// messages: 2
}

// SessionRouter routes each HTTP request to a session by its path.
func ExampleSessionRouter() {
	srv := jsonrpc.NewServer()
	srv.MustRegister("who", func() string { return "the default server" })
	sessions := &jsonrpc.Sessions{}
	alice, _ := sessions.Create("alice")
	alice.MustRegister("who", func() string { return "alice's session" })
	ts := httptest.NewServer(&httprpc.Handler{Server: transport.SessionRouter(srv, sessions, "/rpc/")})
	defer ts.Close()

	for _, path := range []string{"/rpc/", "/rpc/alice", "/rpc/bob"} {
		resp, err := http.Post(ts.URL+path, "application/json", strings.NewReader(`{"jsonrpc":"2.0","method":"who","id":1}`))
		if err != nil {
			fmt.Println(err)
			return
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		fmt.Printf("%s: %d %s\n", path, resp.StatusCode, strings.TrimSpace(string(body)))
	}
	// Output:
	// /rpc/: 200 {"jsonrpc":"2.0","result":"the default server","id":1}
	// /rpc/alice: 200 {"jsonrpc":"2.0","result":"alice's session","id":1}
	// /rpc/bob: 404 jsonrpc: no such session
}
