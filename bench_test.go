package jsonrpc_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/internal/demo"
	"github.com/jsonrpc-go/jsonrpc/internal/testutil"
)

// processor is the signature of jsonrpc.Server.Process with its context
// bound (syncProcessor).
type processor func(dst, req []byte) []byte

// syncProcessor is s.Process with a background context.
func syncProcessor(s *jsonrpc.Server) processor {
	ctx := context.Background()
	return func(dst, req []byte) []byte { return s.Process(ctx, dst, req) }
}

// methodName returns the method a demo request calls.
func methodName(b *testing.B, req string) string {
	var r struct{ Method string }
	if err := json.Unmarshal([]byte(req), &r); err != nil {
		b.Fatal(err)
	}
	return r.Method
}

// benchMix runs one request per op, cycling through reqs.
func benchMix(b *testing.B, process processor, reqs [][]byte) {
	buf := make([]byte, 0, 4096)
	for _, r := range reqs { // fail loudly on a broken setup
		if len(process(buf[:0], r)) == 0 {
			b.Fatalf("no response to %s", r)
		}
	}
	b.SetBytes(testutil.AvgLen(reqs))
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		buf = process(buf[:0], reqs[i])
		if i++; i == len(reqs) {
			i = 0
		}
	}
}

// benchParallel is benchMix on all Ps, each goroutine with its own buffer.
func benchParallel(b *testing.B, process processor, reqs [][]byte) {
	b.SetBytes(testutil.AvgLen(reqs))
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		buf := make([]byte, 0, 4096)
		i := 0
		for pb.Next() {
			buf = process(buf[:0], reqs[i])
			if i++; i == len(reqs) {
				i = 0
			}
		}
	})
}

// benchBatch processes the batch once per op and reports the cost per call.
func benchBatch(b *testing.B, process processor, batch []byte, calls int) {
	buf := make([]byte, 0, 4096)
	b.SetBytes(int64(len(batch)))
	b.ReportAllocs()
	for b.Loop() {
		buf = process(buf[:0], batch)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(calls), "ns/call")
}

// BenchmarkProcess measures Process on the calculator mix, each request
// alone, the mix as one batch, ProcessString, and the mix on all Ps. The
// baseline rows it is compared with (BenchmarkProcess/baseline-*) and
// BenchmarkRatio are in the bench module, bench/internal/baseline.
func BenchmarkProcess(b *testing.B) {
	srv := demo.NewServer()
	lib := syncProcessor(srv)
	mix := testutil.CalcMix()
	batch := []byte(demo.Batch)

	b.Run("calc-mix", func(b *testing.B) { benchMix(b, lib, mix) })
	for i, req := range demo.Requests {
		name := methodName(b, req)
		one := mix[i : i+1]
		b.Run("calc/"+name, func(b *testing.B) { benchMix(b, lib, one) })
	}
	b.Run("calc-batch", func(b *testing.B) { benchBatch(b, lib, batch, len(demo.Requests)) })
	b.Run("ProcessString/calc-mix", func(b *testing.B) {
		b.SetBytes(testutil.AvgLen(mix))
		b.ReportAllocs()
		i := 0
		var out string
		for b.Loop() {
			out = srv.ProcessString(context.Background(), demo.Requests[i])
			if i++; i == len(demo.Requests) {
				i = 0
			}
		}
		if out == "" {
			b.Fatal("no response")
		}
	})
	b.Run("parallel/calc-mix", func(b *testing.B) { benchParallel(b, lib, mix) })
}

// BenchmarkShapes measures one call of add(a, b float64) registered in
// different ways, to show what each registration shape costs.
func BenchmarkShapes(b *testing.B) {
	add := func(a, b float64) float64 { return a + b }
	req := [][]byte{[]byte(`{"jsonrpc":"2.0","method":"add","params":[1.5,2.25],"id":1}`)}
	for _, tc := range []struct {
		name  string
		setup func() *jsonrpc.Server
	}{
		{"func", func() *jsonrpc.Server {
			s := jsonrpc.NewServer()
			s.MustRegister("add", add)
			return s
		}},
		{"func-error", func() *jsonrpc.Server {
			s := jsonrpc.NewServer()
			s.MustRegister("add", func(a, b float64) (float64, error) { return a + b, nil })
			return s
		}},
		{"context", func() *jsonrpc.Server {
			s := jsonrpc.NewServer()
			s.MustRegister("add", func(_ context.Context, a, b float64) float64 { return a + b })
			return s
		}},
		{"named-params", func() *jsonrpc.Server {
			s := jsonrpc.NewServer()
			s.MustRegister("add", add, jsonrpc.ParamNames("a", "b"))
			return s
		}},
		{"service-method", func() *jsonrpc.Server {
			s := jsonrpc.NewServer()
			if err := s.RegisterService("", demo.Calculator{}); err != nil {
				b.Fatal(err)
			}
			return s
		}},
		{"reflection", func() *jsonrpc.Server {
			s := jsonrpc.NewServer()
			s.MustRegister("add", func(a, b float64, c ...float64) float64 { return a + b })
			return s
		}},
		{"intercept", func() *jsonrpc.Server {
			s := jsonrpc.NewServer(jsonrpc.Intercept(func(ctx context.Context, _ *jsonrpc.Call, next func(context.Context) error) error {
				return next(ctx)
			}))
			s.MustRegister("add", add)
			return s
		}},
	} {
		b.Run(tc.name, func(b *testing.B) { benchMix(b, syncProcessor(tc.setup()), req) })
	}
}

// BenchmarkProcessAsync compares ProcessAsync with Process when methods
// complete inline, and measures a call that suspends: a Blocking method,
// run on its own goroutine, whose reply the caller waits for.
func BenchmarkProcessAsync(b *testing.B) {
	srv := demo.NewServer()
	srv.MustRegister("addBlocking", func(a, b float64) float64 { return a + b }, jsonrpc.Blocking())
	mix := testutil.CalcMix()
	b.Run("Process/calc-mix", func(b *testing.B) { benchMix(b, syncProcessor(srv), mix) })
	b.Run("inline/calc-mix", func(b *testing.B) {
		var n int
		reply := func(resp []byte) { n += len(resp) }
		benchMix(b, func(dst, req []byte) []byte {
			srv.ProcessAsync(context.Background(), dst, req, reply)
			return dst[:1] // benchMix checks for an answer
		}, mix)
	})
	suspend := [][]byte{[]byte(`{"jsonrpc":"2.0","method":"addBlocking","params":[1.5,2.25],"id":1}`)}
	b.Run("suspend/add", func(b *testing.B) {
		done := make(chan int, 1)
		reply := func(resp []byte) { done <- len(resp) }
		benchMix(b, func(dst, req []byte) []byte {
			srv.ProcessAsync(context.Background(), dst, req, reply)
			return dst[:<-done]
		}, suspend)
	})
	b.Run("suspend/add-parallel", func(b *testing.B) {
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			done := make(chan int, 1)
			reply := func(resp []byte) { done <- len(resp) }
			for pb.Next() {
				srv.ProcessAsync(context.Background(), nil, suspend[0], reply)
				<-done
			}
		})
	})
}

// BenchmarkProcessAsyncParallel is BenchmarkProcessAsync's inline rows on
// all Ps.
func BenchmarkProcessAsyncParallel(b *testing.B) {
	srv := demo.NewServer()
	mix := testutil.CalcMix()
	b.Run("Process/calc-mix", func(b *testing.B) { benchParallel(b, syncProcessor(srv), mix) })
	b.Run("inline/calc-mix", func(b *testing.B) {
		reply := func([]byte) {}
		benchParallel(b, func(dst, req []byte) []byte {
			srv.ProcessAsync(context.Background(), dst, req, reply)
			return dst
		}, mix)
	})
}

// BenchmarkBatchSizes reports the cost per call of calculator batches of
// several sizes, across the 16 requests the first pass records.
func BenchmarkBatchSizes(b *testing.B) {
	srv := demo.NewServer()
	for _, n := range []int{5, 16, 17, 40, 100} {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = demo.Requests[i%len(demo.Requests)]
		}
		batch := []byte("[" + strings.Join(parts, ",") + "]")
		b.Run(fmt.Sprint(n), func(b *testing.B) { benchBatch(b, syncProcessor(srv), batch, n) })
	}
}
