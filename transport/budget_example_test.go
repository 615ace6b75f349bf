package transport_test

import (
	"net"
	"net/http"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/httprpc"
	"github.com/jsonrpc-go/jsonrpc/stream"
	"github.com/jsonrpc-go/jsonrpc/transport"
	"github.com/jsonrpc-go/jsonrpc/ws"
)

// A process that serves HTTP, WebSocket and TCP gives its hosts one
// Budget, so that the large messages of all of them together hold at
// most 64 MiB, wherever they arrive.
func ExampleBudget() {
	srv := jsonrpc.NewServer()
	large := transport.NewBudget(64 << 20)

	mux := http.NewServeMux()
	mux.Handle("/", &httprpc.Handler{Server: srv, Budget: large})
	mux.Handle("/ws", &ws.Handler{Server: srv, Budget: large})
	go http.ListenAndServe("127.0.0.1:8081", mux)

	ln, err := net.Listen("tcp", "127.0.0.1:9091")
	if err != nil {
		return
	}
	tcp := &stream.Server{Server: srv, Budget: large}
	go tcp.Serve(ln)
}
