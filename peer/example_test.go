package peer_test

import (
	"context"
	"fmt"
	"net"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/client"
	"github.com/jsonrpc-go/jsonrpc/framing"
	"github.com/jsonrpc-go/jsonrpc/peer"
	"github.com/jsonrpc-go/jsonrpc/stream"
)

// A method asks its caller a question before it answers: it reaches the
// connection through its context, and is registered Blocking because it
// waits for the answer.
func ExampleFromContext() {
	srv := jsonrpc.NewServer()
	srv.MustRegister("greet", func(ctx context.Context) (string, error) {
		var name string
		if err := peer.FromContext(ctx).Call(ctx, "whoami", nil, &name); err != nil {
			return "", err
		}
		return "hello " + name, nil
	}, jsonrpc.Blocking())
	s := &stream.Server{Server: srv}
	cc, sc := net.Pipe()
	go s.ServeConn(context.Background(), sc)
	defer s.Close()

	// The client answers the server's "whoami" on the same connection.
	mine := jsonrpc.NewServer()
	mine.MustRegister("whoami", func() string { return "ada" })
	c := client.New(client.Stream(cc, framing.Line), client.Serve(mine))
	defer c.Close()

	greeting, err := client.Call[string](context.Background(), c, "greet", nil)
	fmt.Println(greeting, err)
	// Output: hello ada <nil>
}
