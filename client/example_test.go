package client_test

import (
	"context"
	"fmt"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/client"
)

func ExampleCall() {
	srv := jsonrpc.NewServer()
	srv.MustRegister("subtract", func(minuend, subtrahend int) int { return minuend - subtrahend },
		jsonrpc.ParamNames("minuend", "subtrahend"))

	c := client.New(client.Local(srv))
	defer c.Close()
	ctx := context.Background()

	diff, err := client.Call[int](ctx, c, "subtract", []int{42, 23})
	fmt.Println(diff, err)
	diff, err = client.Call[int](ctx, c, "subtract", map[string]int{"minuend": 23, "subtrahend": 42})
	fmt.Println(diff, err)
	_, err = client.Call[int](ctx, c, "divide", []int{1, 0})
	fmt.Println(err)
	// Output:
	// 19 <nil>
	// -19 <nil>
	// jsonrpc: Method not found (-32601)
}

func ExampleClient_Batch() {
	srv := jsonrpc.NewServer()
	srv.MustRegister("double", func(x int) int { return 2 * x })
	c := client.New(client.Local(srv))
	defer c.Close()

	results, err := c.Batch(context.Background(), []client.Spec{
		{Method: "double", Params: []int{1}},
		{Method: "double", Params: []int{2}},
		{Method: "missing"},
	})
	if err != nil {
		panic(err)
	}
	for _, r := range results {
		var n int
		if err := r.Unmarshal(&n); err != nil {
			fmt.Println("error:", err)
			continue
		}
		fmt.Println(n)
	}
	// Output:
	// 2
	// 4
	// error: jsonrpc: Method not found (-32601)
}
