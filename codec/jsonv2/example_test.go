package jsonv2_test

import (
	"context"
	"fmt"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/codec/jsonv2"
)

func Example() {
	type point struct{ X, Y float64 }
	srv := jsonrpc.NewServer(jsonrpc.UseCodec(jsonv2.Codec{}))
	srv.MustRegister("scale", func(p point, k float64) point { return point{p.X * k, p.Y * k} })

	fmt.Println(srv.ProcessString(context.Background(), `{"jsonrpc":"2.0","method":"scale","params":[{"x":1,"y":2},3],"id":1}`))
	// Output:
	// {"jsonrpc":"2.0","result":{"X":3,"Y":6},"id":1}
}
