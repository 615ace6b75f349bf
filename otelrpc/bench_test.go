package otelrpc_test

import (
	"context"
	"testing"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/otelrpc"
	"github.com/prometheus/client_golang/prometheus"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	tracenoop "go.opentelemetry.io/otel/trace/noop"
)

// BenchmarkCall measures one call of a method over primitives through
// Process: bare, and with Instrument over no-op providers, over the SDK
// (every span sampled and batched to an exporter that drops it, metrics
// collected by a reader), and over the SDK's metrics read by the
// Prometheus exporter (no traces).
func BenchmarkCall(b *testing.B) {
	ctx := context.Background()
	prom, err := otelprom.New(otelprom.WithRegisterer(prometheus.NewRegistry()))
	if err != nil {
		b.Fatal(err)
	}
	sdkTraces := sdktrace.NewTracerProvider(sdktrace.WithBatcher(tracetest.NewNoopExporter()))
	defer sdkTraces.Shutdown(ctx)
	for _, c := range []struct {
		name string
		opts []jsonrpc.Option
	}{
		{"bare", nil},
		{"otelrpc-noop", []jsonrpc.Option{otelrpc.Instrument(otelrpc.Options{
			TracerProvider: tracenoop.NewTracerProvider(),
			MeterProvider:  metricnoop.NewMeterProvider(),
		})}},
		{"otelrpc-sdk", []jsonrpc.Option{otelrpc.Instrument(otelrpc.Options{
			TracerProvider: sdkTraces,
			MeterProvider:  sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader())),
		})}},
		{"otelrpc-prometheus", []jsonrpc.Option{otelrpc.Instrument(otelrpc.Options{
			TracerProvider: tracenoop.NewTracerProvider(),
			MeterProvider:  sdkmetric.NewMeterProvider(sdkmetric.WithReader(prom)),
		})}},
	} {
		b.Run(c.name, func(b *testing.B) {
			srv := jsonrpc.NewServer(c.opts...)
			srv.MustRegister("add", func(a, b float64) float64 { return a + b })
			req := []byte(`{"jsonrpc":"2.0","method":"add","params":[1.5,2.25],"id":1}`)
			buf := make([]byte, 0, 256)
			if got := string(srv.Process(ctx, buf, req)); got != `{"jsonrpc":"2.0","result":3.75,"id":1}` {
				b.Fatalf("add answered %s", got)
			}
			b.ReportAllocs()
			for b.Loop() {
				buf = srv.Process(ctx, buf[:0], req)
			}
		})
	}
}
