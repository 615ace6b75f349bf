//go:build !race

package otelrpc_test

import (
	"context"
	"testing"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/otelrpc"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	tracenoop "go.opentelemetry.io/otel/trace/noop"
)

// Over no-op providers, an instrumented call allocates two values: the
// call's context, which an interceptor needs, and the context that carries
// the span. The attributes of a method are made on its first call.
func TestAllocs(t *testing.T) {
	srv := jsonrpc.NewServer(otelrpc.Instrument(otelrpc.Options{
		TracerProvider: tracenoop.NewTracerProvider(),
		MeterProvider:  metricnoop.NewMeterProvider(),
	}))
	srv.MustRegister("add", func(a, b float64) float64 { return a + b })
	req := []byte(`{"jsonrpc":"2.0","method":"add","params":[1.5,2.25],"id":1}`)
	buf := make([]byte, 0, 256)
	if got := string(srv.Process(context.Background(), buf, req)); got != `{"jsonrpc":"2.0","result":3.75,"id":1}` {
		t.Fatalf("add answered %s", got)
	}
	allocs := testing.AllocsPerRun(1000, func() { buf = srv.Process(context.Background(), buf[:0], req) })
	if allocs != 2 {
		t.Errorf("%v allocations per instrumented call, want 2", allocs)
	}
}
