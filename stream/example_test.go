package stream_test

import (
	"bufio"
	"context"
	"fmt"
	"net"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/stream"
)

func ExampleServer_ServeConn() {
	srv := jsonrpc.NewServer()
	srv.MustRegister("add", func(a, b int) int { return a + b })
	s := &stream.Server{Server: srv} // framing.Line: one message per line

	client, server := net.Pipe()
	done := make(chan error, 1)
	go func() { done <- s.ServeConn(context.Background(), server) }()

	go func() {
		fmt.Fprintln(client, `{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`)
		fmt.Fprintln(client, `{"jsonrpc":"2.0","method":"add","params":[3,4]}`) // a notification: no answer
		fmt.Fprintln(client, `[{"jsonrpc":"2.0","method":"add","params":[5,6],"id":2},{"jsonrpc":"2.0","method":"nope","id":3}]`)
	}()
	r := bufio.NewScanner(client)
	for range 2 {
		r.Scan()
		fmt.Println(r.Text())
	}
	client.Close()
	fmt.Println("ServeConn:", <-done)
	// Output:
	// {"jsonrpc":"2.0","result":3,"id":1}
	// [{"jsonrpc":"2.0","result":11,"id":2},{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found","data":"nope"},"id":3}]
	// ServeConn: <nil>
}
