package otelrpc_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/httprpc"
	"github.com/jsonrpc-go/jsonrpc/otelrpc"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
)

// A Prometheus scrape reads the calls by method and code, the durations'
// buckets, and the active calls.
func TestPrometheusScrape(t *testing.T) {
	reg := prometheus.NewRegistry()
	exporter, err := otelprom.New(otelprom.WithRegisterer(reg))
	if err != nil {
		t.Fatal(err)
	}
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(exporter))
	defer mp.Shutdown(context.Background())
	srv := jsonrpc.NewServer(otelrpc.Instrument(otelrpc.Options{MeterProvider: mp}))
	srv.MustRegister("add", func(a, b int) int { return a + b })

	mux := http.NewServeMux()
	mux.Handle("/rpc", &httprpc.Handler{Server: srv})
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	hs := httptest.NewServer(mux)
	defer hs.Close()
	for _, body := range []string{
		`{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`,
		`[{"jsonrpc":"2.0","method":"add","params":[3,4],"id":2},{"jsonrpc":"2.0","method":"add","params":["x",4],"id":3}]`,
	} {
		resp, err := http.Post(hs.URL+"/rpc", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	resp, err := http.Get(hs.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	scrape := string(b)
	for _, want := range []string{
		`rpc_server_duration_milliseconds_count{otel_scope_name="github.com/jsonrpc-go/jsonrpc/otelrpc",otel_scope_schema_url="https://opentelemetry.io/schemas/1.38.0",otel_scope_version="",rpc_method="add",rpc_system="jsonrpc"} 2`,
		`rpc_server_duration_milliseconds_count{otel_scope_name="github.com/jsonrpc-go/jsonrpc/otelrpc",otel_scope_schema_url="https://opentelemetry.io/schemas/1.38.0",otel_scope_version="",rpc_jsonrpc_error_code="-32602",rpc_method="add",rpc_system="jsonrpc"} 1`,
		`rpc_server_duration_milliseconds_bucket{otel_scope_name="github.com/jsonrpc-go/jsonrpc/otelrpc",otel_scope_schema_url="https://opentelemetry.io/schemas/1.38.0",otel_scope_version="",rpc_method="add",rpc_system="jsonrpc",le="+Inf"} 2`,
		`rpc_server_active_calls{otel_scope_name="github.com/jsonrpc-go/jsonrpc/otelrpc",otel_scope_schema_url="https://opentelemetry.io/schemas/1.38.0",otel_scope_version="",rpc_method="add",rpc_system="jsonrpc"} 0`,
		`# TYPE rpc_server_duration_milliseconds histogram`,
	} {
		if !strings.Contains(scrape, want+"\n") {
			t.Errorf("the scrape has no line\n%s\nscrape:\n%s", want, scrape)
		}
	}
}
