package httprpc_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/httprpc"
	"github.com/jsonrpc-go/jsonrpc/transport"
)

// printPost sends body to url as application/json and prints the answer.
func printPost(url, body string) {
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	line := resp.Status
	for _, s := range []string{resp.Header.Get("Content-Type"), string(b)} {
		if s = strings.TrimSpace(s); s != "" {
			line += " " + s
		}
	}
	fmt.Println(line)
}

func ExampleHandler() {
	srv := jsonrpc.NewServer()
	srv.MustRegister("add", func(a, b float64) float64 { return a + b })
	srv.MustRegister("log", func(string) {})

	ts := httptest.NewServer(&httprpc.Handler{Server: srv})
	defer ts.Close()

	printPost(ts.URL, `{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`)
	printPost(ts.URL, `[{"jsonrpc":"2.0","method":"add","params":[3,4],"id":2},{"jsonrpc":"2.0","method":"nope","id":3}]`)
	printPost(ts.URL, `{"jsonrpc":"2.0","method":"log","params":["hello"]}`) // a notification
	printPost(ts.URL, `{"jsonrpc":"2.0","method"`)                           // JSON-RPC errors are HTTP 200
	// Output:
	// 200 OK application/json {"jsonrpc":"2.0","result":3,"id":1}
	// 200 OK application/json [{"jsonrpc":"2.0","result":7,"id":2},{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found","data":"nope"},"id":3}]
	// 204 No Content
	// 200 OK application/json {"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"},"id":null}
}

func ExampleHandler_sessions() {
	srv := jsonrpc.NewServer()
	sessions := &jsonrpc.Sessions{}
	whoami := func(ctx context.Context) string {
		c := jsonrpc.CallOf(ctx)
		r := c.ContextValue().(*http.Request) // the transport's context value
		return fmt.Sprintf("session %q at %s", c.SessionID(), r.URL.Path)
	}
	srv.MustRegister("whoami", whoami)
	alice, err := sessions.Create("alice") // the application creates sessions
	if err != nil {
		panic(err)
	}
	alice.MustRegister("whoami", whoami)

	mux := http.NewServeMux()
	mux.Handle("/rpc/", &httprpc.Handler{
		Server:  transport.SessionRouter(srv, sessions, "/rpc/"),
		MaxBody: 64 << 10,
	})
	ts := httptest.NewServer(mux)
	defer ts.Close()

	req := `{"jsonrpc":"2.0","method":"whoami","id":1}`
	printPost(ts.URL+"/rpc/alice", req)
	printPost(ts.URL+"/rpc/", req)
	printPost(ts.URL+"/rpc/mallory", req) // clients cannot create sessions
	// Output:
	// 200 OK application/json {"jsonrpc":"2.0","result":"session \"alice\" at /rpc/alice","id":1}
	// 200 OK application/json {"jsonrpc":"2.0","result":"session \"\" at /rpc/","id":1}
	// 404 Not Found text/plain; charset=utf-8 jsonrpc: no such session
}
