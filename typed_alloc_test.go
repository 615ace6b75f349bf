//go:build !race

package jsonrpc_test

import (
	"context"
	"encoding/json"
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
	typed.MustRegister("add", jsonrpc.TypedNoContext(func(p pair) (float64, error) { return add(p), nil }))
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

// Results of structs, pointers to them and slices of them are encoded by the
// server, with neither the codec nor an allocation (TestAdaptedStructResultAllocs
// checks a plain function's); with a codec of the user's own, the codec
// encodes them and allocates.
func TestStructResultAllocs(t *testing.T) {
	both := func(s *jsonrpc.Server) {
		s.MustRegister("one", jsonrpc.TypedNoContext(func(i int) (resultPoint, error) { return resultPoints[i], nil }))
		s.MustRegister("ptr", jsonrpc.TypedNoContext(func(i int) (*resultPoint, error) { return &resultPoints[i], nil }))
		s.MustRegister("all", jsonrpc.TypedNoContext(func(n int) ([]resultPoint, error) { return resultPoints[:n], nil }))
	}
	srv := jsonrpc.NewServer()
	both(srv)
	checkZeroAllocs(t, srv, []allocCase{
		{"struct", `{"jsonrpc":"2.0","method":"one","params":[0],"id":1}`, `"result":{"x":1,"y":2.5,"label":"a<b","Tags":["t"]}`},
		{"pointer", `{"jsonrpc":"2.0","method":"ptr","params":[1],"id":1}`, `"result":{"x":3,"y":0,"Tags":null}`},
		{"slice", `{"jsonrpc":"2.0","method":"all","params":[2],"id":1}`, `"result":[{"x":1,"y":2.5,"label":"a<b","Tags":["t"]},{"x":3,"y":0,"Tags":null}]`},
	})

	own := jsonrpc.NewServer(jsonrpc.UseCodec(ownCodec{}))
	both(own)
	req := []byte(`{"jsonrpc":"2.0","method":"all","params":[2],"id":1}`)
	buf := own.Process(context.Background(), nil, req)
	if want := `"label":"a\u003cb"`; !strings.Contains(string(buf), want) {
		t.Fatalf("own codec: %s, want %s (encoding/json's escaping)", buf, want)
	}
	if allocs := testing.AllocsPerRun(100, func() { buf = own.Process(context.Background(), buf[:0], req) }); allocs == 0 {
		t.Errorf("a codec of the user's own made no allocations; this test no longer tells the paths apart")
	}
}

// ownCodec is a codec of the user's own: JSONCodec's decoding under
// another type, and json.Marshal as it is (HTML characters escaped), so
// that its answers tell who encoded them.
type ownCodec struct{ jsonrpc.JSONCodec }

func (ownCodec) Append(dst []byte, v any) ([]byte, error) {
	b, err := json.Marshal(v)
	return append(dst, b...), err
}

type resultPoint struct {
	X     int     `json:"x"`
	Y     float64 `json:"y"`
	Label string  `json:"label,omitempty"`
	Tags  []string
}

var resultPoints = []resultPoint{{X: 1, Y: 2.5, Label: "a<b", Tags: []string{"t"}}, {X: 3}}
