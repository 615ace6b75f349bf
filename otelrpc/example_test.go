package otelrpc_test

import (
	"bufio"
	"context"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/client"
	"github.com/jsonrpc-go/jsonrpc/httprpc"
	"github.com/jsonrpc-go/jsonrpc/otelrpc"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.opentelemetry.io/otel"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
)

// The metrics of a server, scraped by Prometheus: the OpenTelemetry
// Prometheus exporter registers them with a Prometheus registry, and
// promhttp serves the registry at /metrics.
func ExampleInstrument_prometheus() {
	reg := prometheus.NewRegistry()
	exporter, err := otelprom.New(otelprom.WithRegisterer(reg), otelprom.WithoutTargetInfo(), otelprom.WithoutScopeInfo())
	if err != nil {
		log.Fatal(err)
	}
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(exporter))
	defer mp.Shutdown(context.Background())

	srv := jsonrpc.NewServer(otelrpc.Instrument(otelrpc.Options{MeterProvider: mp}))
	srv.MustRegister("add", func(a, b int) int { return a + b })
	srv.ProcessString(context.Background(), `{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`)
	srv.ProcessString(context.Background(), `{"jsonrpc":"2.0","method":"add","params":[1],"id":2}`)

	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	hs := httptest.NewServer(mux)
	defer hs.Close()
	resp, err := http.Get(hs.URL + "/metrics")
	if err != nil {
		log.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if line := sc.Text(); strings.HasPrefix(line, "rpc_server_duration_milliseconds_count") || strings.HasPrefix(line, "rpc_server_active_calls") {
			fmt.Println(line)
		}
	}
	// Output:
	// rpc_server_active_calls{rpc_method="add",rpc_system="jsonrpc"} 0
	// rpc_server_duration_milliseconds_count{rpc_method="add",rpc_system="jsonrpc"} 1
	// rpc_server_duration_milliseconds_count{rpc_jsonrpc_error_code="-32602",rpc_method="add",rpc_system="jsonrpc"} 1
}

// A server whose calls are traced with the W3C trace context of their
// HTTP requests, and a client that sends it.
func ExampleTransport() {
	// In a program these are the SDK's providers, with an exporter.
	otel.SetTextMapPropagator(propagation.TraceContext{})
	srv := jsonrpc.NewServer(otelrpc.Instrument(otelrpc.Options{}))
	srv.MustRegister("hello", func() string { return "hello" })
	hs := httptest.NewServer(&httprpc.Handler{Server: srv})
	defer hs.Close()

	c := client.New(client.HTTP(hs.URL, &http.Client{Transport: otelrpc.Transport(nil, otelrpc.Options{})}))
	defer c.Close()
	s, err := client.Call[string](context.Background(), c, "hello", nil)
	fmt.Println(s, err)
	// Output:
	// hello <nil>
}
