package fast_test

import (
	"context"
	"fmt"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/codec/fast"
)

func Example() {
	type point struct{ X, Y float64 }
	srv := jsonrpc.NewServer(jsonrpc.UseCodec(fast.Codec{}))
	srv.MustRegister("mid", func(ps []point) point {
		var m point
		for _, p := range ps {
			m.X += p.X / float64(len(ps))
			m.Y += p.Y / float64(len(ps))
		}
		return m
	})

	fmt.Println(srv.ProcessString(context.Background(), `{"jsonrpc":"2.0","method":"mid","params":[[{"X":0,"Y":0},{"X":4,"Y":2}]],"id":1}`))
	fmt.Println(srv.ProcessString(context.Background(), `{"jsonrpc":"2.0","method":"mid","params":[[{"X":0,"Z":0},{"X":4,"Y":2}]],"id":2}`))
	// Output:
	// {"jsonrpc":"2.0","result":{"X":2,"Y":1},"id":1}
	// {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":"param 0: json: unknown field \"Z\""},"id":2}
}
