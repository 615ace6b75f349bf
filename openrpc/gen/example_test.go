package gen_test

import (
	"fmt"
	"strings"

	"github.com/jsonrpc-go/jsonrpc/openrpc/gen"
)

// A document with one method, which declares an error, generated into a
// package calc: the client's method for it, and the error.
func Example() {
	doc := `{
	  "openrpc": "1.3.2",
	  "info": {"title": "calc", "version": "1.0.0"},
	  "methods": [{
	    "name": "divide",
	    "summary": "Divides a by b.",
	    "params": [
	      {"name": "a", "required": true, "schema": {"type": "number"}},
	      {"name": "b", "required": true, "schema": {"type": "number"}}
	    ],
	    "result": {"name": "quotient", "schema": {"type": "number"}},
	    "errors": [{"code": 1, "message": "division by zero"}]
	  }]
	}`
	files, err := gen.Generate([]byte(doc), gen.Config{Package: "calc"})
	if err != nil {
		panic(err)
	}
	for _, f := range files {
		src := string(f.Data)
		switch f.Name {
		case "openrpc_client.go":
			fmt.Print(src[strings.Index(src, "// Divide calls"):])
		case "openrpc_types.go":
			start := strings.Index(src, "\tErrDivisionByZero =")
			fmt.Print(src[start : start+strings.Index(src[start:], "\n")+1])
		}
	}
	// Output:
	// ErrDivisionByZero = jsonrpc.NewError(1, "division by zero")
	// // Divide calls divide: Divides a by b.
	// //
	// // It declares the errors ErrDivisionByZero.
	// func (c *Client) Divide(ctx context.Context, a float64, b float64) (float64, error) {
	// 	params := [2]float64{a, b}
	// 	return client.Call[float64](ctx, c.conn, "divide", params)
	// }
}
