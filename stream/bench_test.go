package stream

import (
	"bytes"
	"context"
	"net"
	"testing"
	"time"

	"github.com/jsonrpc-go/jsonrpc/framing"
	"github.com/jsonrpc-go/jsonrpc/internal/demo"
)

// BenchmarkPipelined serves one TCP loopback connection: a client goroutine
// writes the calculator requests (demo.Requests) pipelined, in writes of 64
// requests, while another reads and counts the responses. One op is one
// request. It reports requests/s over the connection and, timed in the same
// run on the same requests, Process's requests/s on one goroutine and the
// ratio of the two.
func BenchmarkPipelined(b *testing.B) {
	for _, bc := range []struct {
		name  string
		f     framing.Framing
		order Ordering
	}{
		{"Line/Ordered", framing.Line, Ordered},
		{"Line/Sequential", framing.Line, Sequential},
		{"Line/Concurrent", framing.Line, Concurrent},
		{"Header/Ordered", framing.Header, Ordered},
		{"Raw/Ordered", framing.Raw, Ordered},
	} {
		b.Run(bc.name, func(b *testing.B) { benchPipelined(b, bc.f, bc.order) })
	}
}

const pipelineDepth = 64

func benchPipelined(b *testing.B, f framing.Framing, order Ordering) {
	h := demo.NewServer()
	s := &Server{Server: h, Framing: f, Order: order}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- s.Serve(l) }()
	conn, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		b.Fatal(err)
	}
	defer func() {
		conn.Close()
		s.Close()
		<-served
	}()

	// One write's worth of framed requests, and where each one ends.
	var chunk bytes.Buffer
	w := f.NewWriter(&chunk)
	ends := make([]int, pipelineDepth)
	for i := range pipelineDepth {
		w.Write([]byte(demo.Requests[i%len(demo.Requests)]))
		w.Flush()
		ends[i] = chunk.Len()
	}
	r := f.NewReader(conn, 0)

	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	wrote := make(chan error, 1)
	go func() {
		for sent := 0; sent < b.N; sent += pipelineDepth {
			n := min(pipelineDepth, b.N-sent)
			if _, err := conn.Write(chunk.Bytes()[:ends[n-1]]); err != nil {
				wrote <- err
				return
			}
		}
		wrote <- nil
	}()
	for i := range b.N {
		if _, err := r.Read(); err != nil {
			b.Fatalf("response %d: %v", i, err)
		}
	}
	elapsed := time.Since(start)
	b.StopTimer()
	if err := <-wrote; err != nil {
		b.Fatal(err)
	}

	// Process on the same requests, on one goroutine.
	reqs := make([][]byte, len(demo.Requests))
	for i, q := range demo.Requests {
		reqs[i] = []byte(q)
	}
	buf := make([]byte, 0, 512)
	t0 := time.Now()
	for i := range b.N {
		buf = h.Process(context.Background(), buf[:0], reqs[i%len(reqs)])
	}
	processElapsed := time.Since(t0)

	rate := float64(b.N) / elapsed.Seconds()
	processRate := float64(b.N) / processElapsed.Seconds()
	b.ReportMetric(rate, "req/s")
	b.ReportMetric(processRate, "process-req/s")
	b.ReportMetric(rate/processRate, "ratio-to-Process")
}
