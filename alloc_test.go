//go:build !race

package jsonrpc_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/demo"
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

func TestZeroAllocs(t *testing.T) {
	wants := []string{`"result":3.75`, `"result":7`, `"result":2.5`, `"result":3.75`, `"result":"hello world"`}
	if len(wants) != len(demo.Requests) {
		t.Fatalf("demo.Requests has %d requests; update the expected results", len(demo.Requests))
	}
	var cases []allocCase
	for i, req := range demo.Requests {
		name := req[strings.Index(req, `"method":"`)+len(`"method":"`):]
		name = name[:strings.IndexByte(name, '"')]
		cases = append(cases, allocCase{name, req, wants[i]})
	}
	cases = append(cases,
		allocCase{"batch", demo.Batch, `"result":"hello world","id":5}]`},
		allocCase{"notification", `{"jsonrpc":"2.0","method":"add","params":[1.5,2.25]}`, ""},
		allocCase{"method-not-found", `{"jsonrpc":"2.0","method":"noSuchMethod","params":[1],"id":6}`, `"code":-32601`},
	)
	checkZeroAllocs(t, demo.NewServer(), cases)
}

// With hooks, a call allocates its context and nothing else: the copy of the
// result the post hook sees comes from a pool.
func TestHookAllocs(t *testing.T) {
	srv := demo.NewServer(
		jsonrpc.OnPreProcess(func(context.Context, *jsonrpc.Call) error { return nil }),
		jsonrpc.OnPostProcess(func(_ context.Context, _ *jsonrpc.Call, result json.RawMessage, _ *jsonrpc.Error) error {
			if len(result) == 0 {
				panic("no result")
			}
			return nil
		}),
	)
	req := []byte(demo.Requests[0])
	buf := make([]byte, 0, 4096)
	allocs := testing.AllocsPerRun(1000, func() {
		buf = srv.Process(context.Background(), buf[:0], req)
	})
	if allocs != 1 {
		t.Errorf("Process with pre and post hooks made %v allocations per call, want 1 (the call's context)", allocs)
	}
}
