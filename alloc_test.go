//go:build !race && !jsonrpc_noadapters

package jsonrpc_test

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/internal/demo"
)

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

// The reflection path allocates in proportion to the values it builds: a
// variadic call of 200,000 ints allocates its []int and a few fixed values,
// not a value and a slice step per element.
func TestVariadicAllocs(t *testing.T) {
	const n = 200_000
	srv := jsonrpc.NewServer()
	srv.MustRegister("sum", func(xs ...int) int {
		total := 0
		for _, x := range xs {
			total += x
		}
		return total
	})
	var b strings.Builder
	b.WriteString(`{"jsonrpc":"2.0","method":"sum","params":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('1')
	}
	b.WriteString(`],"id":1}`)
	req := []byte(b.String())
	buf := make([]byte, 0, 256)
	if got := string(srv.Process(context.Background(), buf[:0], req)); got != `{"jsonrpc":"2.0","result":200000,"id":1}` {
		t.Fatalf("sum answered %s", got)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	const runs = 10
	allocs := testing.AllocsPerRun(runs, func() { buf = srv.Process(context.Background(), buf[:0], req) })
	runtime.ReadMemStats(&after)
	perCall := (after.TotalAlloc - before.TotalAlloc) / (runs + 1) // AllocsPerRun runs once more to warm up
	t.Logf("%v allocations and %d bytes per call of %d elements (a %d-byte request)", allocs, perCall, n, len(req))
	if allocs > 16 {
		t.Errorf("%v allocations per call of %d elements, want at most 16", allocs, n)
	}
	if want := uint64(2*n*8 + 64<<10); perCall > want {
		t.Errorf("%d bytes allocated per call of %d elements (a %d-byte request), want at most %d", perCall, n, len(req), want)
	}
}

// With interceptors, one or several nested, a call allocates its context,
// which holds what their next functions need, and nothing else; without
// one nothing (TestZeroAllocs).
func TestInterceptAllocs(t *testing.T) {
	check := func(ctx context.Context, c *jsonrpc.Call, next func(context.Context) error) error {
		if err := next(ctx); err != nil || len(c.Result()) == 0 {
			panic("call failed")
		}
		return nil
	}
	refuse := func(context.Context, *jsonrpc.Call, func(context.Context) error) error {
		return jsonrpc.ErrInvalidParams
	}
	for _, tc := range []struct {
		name string
		opts []jsonrpc.Option
		want string
	}{
		{"one", []jsonrpc.Option{jsonrpc.Intercept(check)}, `"result":3.75`},
		{"three", []jsonrpc.Option{jsonrpc.Intercept(check), jsonrpc.Intercept(check), jsonrpc.Intercept(check)}, `"result":3.75`},
		{"refusing", []jsonrpc.Option{jsonrpc.Intercept(refuse)}, `"code":-32602`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := demo.NewServer(tc.opts...)
			req := []byte(demo.Requests[0])
			buf := make([]byte, 0, 4096)
			if buf = srv.Process(context.Background(), buf[:0], req); !strings.Contains(string(buf), tc.want) {
				t.Fatalf("answer %s, want %s", buf, tc.want)
			}
			allocs := testing.AllocsPerRun(1000, func() {
				buf = srv.Process(context.Background(), buf[:0], req)
			})
			if allocs != 1 {
				t.Errorf("Process with interceptors made %v allocations per call, want 1 (the call's context)", allocs)
			}
		})
	}
}

// A function of primitive params whose result is not a primitive is called
// directly: a slice of structs is encoded by the server without allocating,
// so that a call allocates only the copy of its string param; a map, which
// the codec encodes, costs what the codec allocates and one box for the
// result (reflect.Value.Call allocated six more).
func TestCodecResultAllocs(t *testing.T) {
	type item struct {
		Name string `json:"name"`
		N    int    `json:"n"`
	}
	items := []item{{"a", 1}, {"b", 2}, {"c", 3}}
	block := map[string]any{"number": "0x1", "txs": []any{"0xa", "0xb"}}
	srv := jsonrpc.NewServer()
	srv.MustRegister("search", func(q string, limit int) ([]item, error) { return items[:limit], nil })
	srv.MustRegister("block", func(n uint64, full bool) (map[string]any, error) { return nil, nil })
	srv.MustRegister("fullBlock", func(n uint64, full bool) (map[string]any, error) { return block, nil })
	marshal := func(v any) float64 {
		return testing.AllocsPerRun(100, func() {
			if _, err := json.Marshal(v); err != nil {
				t.Fatal(err)
			}
		})
	}
	floor, nilFloor := marshal(block), marshal(map[string]any(nil))
	for _, tc := range []struct {
		req, want string
		most      float64
	}{
		{`{"jsonrpc":"2.0","method":"search","params":["x",2],"id":1}`, `"result":[{"name":"a","n":1},{"name":"b","n":2}]`, 1},
		{`{"jsonrpc":"2.0","method":"block","params":[18446744073709551615,true],"id":1}`, `"result":null`, nilFloor},
		{`{"jsonrpc":"2.0","method":"fullBlock","params":[1,true],"id":1}`, `"result":{"number":"0x1","txs":["0xa","0xb"]}`, floor + 1},
	} {
		req := []byte(tc.req)
		buf := make([]byte, 0, 512)
		if out := srv.Process(context.Background(), buf, req); !strings.Contains(string(out), tc.want) {
			t.Fatalf("answer %s, want %s", out, tc.want)
		}
		allocs := testing.AllocsPerRun(100, func() { srv.Process(context.Background(), buf, req) })
		if allocs > tc.most {
			t.Errorf("%s: %v allocations a call, want at most %v", tc.req, allocs, tc.most)
		}
	}
}

// A plain function whose result is a slice of structs, on the adapters'
// path, is answered without allocating, its result encoded by the server.
func TestAdaptedStructResultAllocs(t *testing.T) {
	srv := jsonrpc.NewServer()
	srv.MustRegister("all", func() []resultPoint { return resultPoints })
	checkZeroAllocs(t, srv, []allocCase{
		{"slice", `{"jsonrpc":"2.0","method":"all","id":1}`, `"result":[{"x":1,"y":2.5,"label":"a<b","Tags":["t"]},{"x":3,"y":0,"Tags":null}]`},
	})
}

// An error answer allocates nothing when the method returns an error
// object it keeps, or wraps one: mapping an error to its error object
// allocates only the objects it makes.
func TestErrorAnswerAllocs(t *testing.T) {
	errBusy := jsonrpc.NewError(-32001, "busy")
	wrapped := fmt.Errorf("withdraw: %w", errBusy)
	srv := jsonrpc.NewServer()
	srv.MustRegister("sentinel", func() error { return jsonrpc.ErrInvalidParams })
	srv.MustRegister("wrapped", func() error { return wrapped })
	checkZeroAllocs(t, srv, []allocCase{
		{"sentinel", `{"jsonrpc":"2.0","method":"sentinel","id":1}`, `"code":-32602`},
		{"wrapped", `{"jsonrpc":"2.0","method":"wrapped","id":1}`, `"code":-32001,"message":"busy"`},
	})
}
