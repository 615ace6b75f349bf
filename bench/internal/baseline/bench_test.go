package baseline_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/bench/internal/baseline"
	"github.com/jsonrpc-go/jsonrpc/internal/demo"
)

// The benchmarks that compare the library with the baseline: the baseline
// rows of BenchmarkProcess, whose library rows are in the root package's
// bench_test.go (run both in one go test command to compare them), and
// BenchmarkRatio. The helpers are copies of that file's.

// processor is the signature of baseline.Server.Process and of
// jsonrpc.Server.Process with its context bound (syncProcessor).
type processor func(dst, req []byte) []byte

// syncProcessor is s.Process with a background context.
func syncProcessor(s *jsonrpc.Server) processor {
	ctx := context.Background()
	return func(dst, req []byte) []byte { return s.Process(ctx, dst, req) }
}

// calcMix is demo.Requests as byte slices, converted once.
func calcMix() [][]byte {
	reqs := make([][]byte, len(demo.Requests))
	for i, r := range demo.Requests {
		reqs[i] = []byte(r)
	}
	return reqs
}

// avgLen is the mean request size, for b.SetBytes.
func avgLen(reqs [][]byte) int64 {
	n := 0
	for _, r := range reqs {
		n += len(r)
	}
	return int64((n + len(reqs)/2) / len(reqs))
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
	b.SetBytes(avgLen(reqs))
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
	b.SetBytes(avgLen(reqs))
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

// BenchmarkProcess is the baseline's rows of the root package's
// BenchmarkProcess, under the same names: the calculator mix, each request
// alone, the mix as one batch, and the mix on all Ps.
func BenchmarkProcess(b *testing.B) {
	base := baseline.NewCalculator()
	mix := calcMix()
	batch := []byte(demo.Batch)

	b.Run("baseline-mix", func(b *testing.B) { benchMix(b, base.Process, mix) })
	for i, req := range demo.Requests {
		name := methodName(b, req)
		one := mix[i : i+1]
		b.Run("baseline/"+name, func(b *testing.B) { benchMix(b, base.Process, one) })
	}
	b.Run("baseline-batch", func(b *testing.B) { benchBatch(b, base.Process, batch, len(demo.Requests)) })
	b.Run("parallel/baseline-mix", func(b *testing.B) { benchParallel(b, base.Process, mix) })
}

// BenchmarkRatio times the library and the baseline on the same mix inside
// one benchmark, alternating which goes first, so that their ratio comes
// from one run under the same machine conditions. One op is rounds passes
// over the mix through each.
func BenchmarkRatio(b *testing.B) {
	const rounds = 20
	srv := demo.NewServer()
	lib := syncProcessor(srv)
	base := baseline.NewCalculator().Process
	mix := calcMix()
	buf := make([]byte, 0, 4096)
	run := func(p processor) time.Duration {
		start := time.Now()
		for range rounds {
			for _, r := range mix {
				buf = p(buf[:0], r)
			}
		}
		return time.Since(start)
	}
	var libT, baseT time.Duration
	odd := false
	for b.Loop() {
		if odd {
			baseT += run(base)
			libT += run(lib)
		} else {
			libT += run(lib)
			baseT += run(base)
		}
		odd = !odd
	}
	calls := float64(b.N) * rounds * float64(len(mix))
	libNs := float64(libT.Nanoseconds()) / calls
	baseNs := float64(baseT.Nanoseconds()) / calls
	b.ReportMetric(libNs, "lib-ns/call")
	b.ReportMetric(baseNs, "base-ns/call")
	b.ReportMetric(baseNs/libNs, "x-baseline")
}
