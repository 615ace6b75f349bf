package client_test

import (
	"context"
	"errors"
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
	// jsonrpc: Method not found (-32601): divide
}

// A batch sends several calls in one message; each gets its Result, in
// order. A call may fail on its own (missing), and a notification gets no
// answer (log), which Unmarshal says with ErrNoAnswer.
func ExampleClient_Batch() {
	srv := jsonrpc.NewServer()
	srv.MustRegister("double", func(x int) int { return 2 * x })
	srv.MustRegister("log", func(msg string) {})
	c := client.New(client.Local(srv))
	defer c.Close()

	results, err := c.Batch(context.Background(), []client.Spec{
		{Method: "double", Params: []int{1}},
		{Method: "double", Params: []int{2}},
		{Method: "missing"},
		{Method: "log", Params: []string{"hello"}, Notify: true},
	})
	if err != nil {
		panic(err) // the batch as a whole: not sent, or no answer
	}
	for _, r := range results {
		var n int
		switch err := r.Unmarshal(&n); {
		case errors.Is(err, client.ErrNoAnswer):
			fmt.Println("notification:", err)
		case err != nil:
			fmt.Println("error:", err)
		default:
			fmt.Println(n)
		}
	}
	// Output:
	// 2
	// 4
	// error: jsonrpc: Method not found (-32601): missing
	// notification: jsonrpc: no answer: the call was sent as a notification
}
