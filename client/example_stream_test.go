package client_test

import (
	"context"
	"fmt"
	"net"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/client"
	"github.com/jsonrpc-go/jsonrpc/framing"
	"github.com/jsonrpc-go/jsonrpc/stream"
)

func ExampleDial() {
	srv := jsonrpc.NewServer()
	srv.MustRegister("subtract", func(minuend, subtrahend int) int { return minuend - subtrahend },
		jsonrpc.ParamNames("minuend", "subtrahend"))

	// A stream server on a TCP port, one message per line.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	s := &stream.Server{Server: srv}
	go s.Serve(l)
	defer s.Shutdown(context.Background())

	ctx := context.Background()
	ch, err := client.Dial(ctx, "tcp", l.Addr().String(), framing.Line)
	if err != nil {
		panic(err)
	}
	c := client.New(ch)
	defer c.Close()

	diff, err := client.Call[int](ctx, c, "subtract", map[string]int{"minuend": 42, "subtrahend": 23})
	fmt.Println(diff, err)
	_, err = client.Call[int](ctx, c, "divide", []int{1, 0})
	fmt.Println(err)
	// Output:
	// 19 <nil>
	// jsonrpc: Method not found (-32601): divide
}
