package openrpc_test

import (
	"context"
	"fmt"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/openrpc"
)

func Example() {
	srv := jsonrpc.NewServer()
	srv.MustRegister("subtract", func(minuend, subtrahend float64) float64 { return minuend - subtrahend },
		jsonrpc.ParamNames("minuend", "subtrahend"))
	srv.MustRegister("greet", func(name string, loud bool) string { return "hello " + name },
		jsonrpc.Defaults(false))
	err := openrpc.Register(srv, openrpc.Info{
		Title:   "calc",
		Version: "1.0.0",
		Methods: map[string]openrpc.MethodDoc{"subtract": {Summary: "minuend - subtrahend"}},
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(srv.ProcessString(context.Background(), `{"jsonrpc":"2.0","method":"rpc.discover","id":1}`))
	// Output:
	// {"jsonrpc":"2.0","result":{"openrpc":"1.3.2","info":{"title":"calc","version":"1.0.0"},"methods":[{"name":"greet","params":[{"name":"param0","required":true,"schema":{"type":"string"}},{"name":"param1","schema":{"type":"boolean","default":false}}],"result":{"name":"result","schema":{"type":"string"}},"paramStructure":"by-position"},{"name":"subtract","summary":"minuend - subtrahend","params":[{"name":"minuend","required":true,"schema":{"type":"number"}},{"name":"subtrahend","required":true,"schema":{"type":"number"}}],"result":{"name":"result","schema":{"type":"number"}},"paramStructure":"either"}]},"id":1}
}
