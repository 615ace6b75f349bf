//go:build !race

package jsonrpc_test

import (
	"context"
	"strings"
	"testing"

	"github.com/jsonrpc-go/jsonrpc"
)

// allocCase is a request document that must be answered without allocating;
// want is a substring of the expected response ("" for no response).
type allocCase struct {
	name, req, want string
}

// checkZeroAllocs fails, naming the request and the count, for each case
// whose processing allocates. Each case is first checked to get the expected
// response, so that a broken call cannot pass by doing nothing.
func checkZeroAllocs(t *testing.T, srv *jsonrpc.Server, cases []allocCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req := []byte(c.req)
			buf := make([]byte, 0, 4096)
			buf = srv.Process(context.Background(), buf[:0], req)
			switch {
			case c.want == "" && len(buf) != 0:
				t.Fatalf("Process(%s) = %s, want no response", c.req, buf)
			case c.want != "" && !strings.Contains(string(buf), c.want):
				t.Fatalf("Process(%s) = %s, want a response containing %s", c.req, buf, c.want)
			}
			allocs := testing.AllocsPerRun(1000, func() {
				buf = srv.Process(context.Background(), buf[:0], req)
			})
			if allocs != 0 {
				t.Errorf("Process(%s) made %v allocations per call, want 0", c.req, allocs)
			}
			// ProcessAsync, when nothing blocks, allocates nothing either.
			n := 0
			reply := func(b []byte) { n += len(b) }
			allocs = testing.AllocsPerRun(1000, func() {
				srv.ProcessAsync(context.Background(), buf[:0], req, reply)
			})
			if allocs != 0 {
				t.Errorf("ProcessAsync(%s) made %v allocations per call, want 0", c.req, allocs)
			}
		})
	}
}

// A TypedMethod is called directly: a struct of numbers decoded by name or
// by position and a number result allocate nothing, where the same function
// registered as a plain function goes through reflect.Value.Call, which
// allocates.
func TestTypedAllocs(t *testing.T) {
	type pair struct {
		A float64 `json:"a"`
		B float64 `json:"b"`
		N int     `json:"n"`
		F bool    `json:"f"`
	}
	add := func(p pair) float64 { return p.A + p.B }
	typed := jsonrpc.NewServer()
	typed.MustRegister("add", jsonrpc.TypedFunc(add))
	checkZeroAllocs(t, typed, []allocCase{
		{"named", `{"jsonrpc":"2.0","method":"add","params":{"a":1.5,"b":2.25,"n":3,"f":true},"id":1}`, `"result":3.75`},
		{"positional", `{"jsonrpc":"2.0","method":"add","params":[1.5,2.25],"id":1}`, `"result":3.75`},
		{"whole", `{"jsonrpc":"2.0","method":"add","params":[{"a":1.5,"b":2.25}],"id":1}`, `"result":3.75`},
	})

	plain := jsonrpc.NewServer()
	plain.MustRegister("add", add)
	req := []byte(`{"jsonrpc":"2.0","method":"add","params":{"a":1.5,"b":2.25},"id":1}`)
	buf := make([]byte, 0, 256)
	if allocs := testing.AllocsPerRun(100, func() { buf = plain.Process(context.Background(), buf[:0], req) }); allocs == 0 {
		t.Errorf("the reflection path made no allocations; this test no longer tells the paths apart")
	}
}
