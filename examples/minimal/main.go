// Command minimal is the smallest program built on package jsonrpc: it
// answers the JSON-RPC 2.0 request documents on its standard input, one per
// line, with Process, and writes each response on a line of its own.
//
//	$ echo '{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}' | go run ./examples/minimal
//	{"jsonrpc":"2.0","result":3,"id":1}
//
// It links the root package alone: no net/http, no transport. CI checks
// that with go list -deps.
package main

import (
	"bufio"
	"context"
	"fmt"
	"os"

	"github.com/jsonrpc-go/jsonrpc"
)

func main() {
	srv := jsonrpc.NewServer()
	srv.MustRegister("add", func(a, b float64) float64 { return a + b })

	in := bufio.NewScanner(os.Stdin)
	in.Buffer(nil, 1<<20)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	buf := make([]byte, 0, 4096)
	for in.Scan() {
		buf = srv.Process(context.Background(), buf[:0], in.Bytes())
		if len(buf) > 0 {
			out.Write(append(buf, '\n'))
		}
	}
	if err := in.Err(); err != nil {
		fmt.Fprintln(os.Stderr, "minimal:", err)
		os.Exit(1)
	}
}
