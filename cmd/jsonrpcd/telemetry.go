package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.38.0"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/otelrpc"
)

// telemetryShutdownTimeout bounds the export of the spans left at exit and
// the stop of the metrics listener.
const telemetryShutdownTimeout = 5 * time.Second

// telemetry is what -metrics and -otlp start: the providers otelrpc
// reports to, and the metrics listener.
type telemetry struct {
	meters      *sdkmetric.MeterProvider // nil without -metrics
	tracer      *sdktrace.TracerProvider // nil without -otlp
	metrics     *http.Server             // the Prometheus endpoint
	metricsAddr net.Addr                 // where it listens; nil without -metrics
	metricsDone chan struct{}            // closed when its Serve returns
}

// startTelemetry starts what cfg asks for (nothing, without -metrics and
// -otlp). The spans and metrics are those of otelrpc.Instrument.
func startTelemetry(ctx context.Context, cfg config, logger *slog.Logger) (*telemetry, error) {
	t := &telemetry{}
	if cfg.metricsAddr != "" {
		reg := prometheus.NewRegistry()
		// The runtime's (go_goroutines, go_memstats_*) and the process's
		// (process_resident_memory_bytes, process_open_fds) beside the
		// calls': what the server's bounds hold.
		reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
		exporter, err := otelprom.New(otelprom.WithRegisterer(reg), otelprom.WithoutScopeInfo())
		if err != nil {
			return nil, fmt.Errorf("-metrics: %w", err)
		}
		l, err := net.Listen("tcp", cfg.metricsAddr)
		if err != nil {
			return nil, fmt.Errorf("-metrics: %w", err)
		}
		if !cfg.metricsPublic {
			if err := listensLoopback(l); err != nil {
				l.Close()
				return nil, fmt.Errorf("-metrics %s: %w", cfg.metricsAddr, err)
			}
		}
		t.meters = sdkmetric.NewMeterProvider(sdkmetric.WithReader(exporter), sdkmetric.WithResource(serviceResource()))
		mux := http.NewServeMux()
		mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
		t.metrics = &http.Server{Handler: mux, ReadHeaderTimeout: readHeaderTimeout, MaxHeaderBytes: maxHeaderBytes}
		if logger != nil {
			t.metrics.ErrorLog = slog.NewLogLogger(with(logger, "transport", "metrics").Handler(), slog.LevelWarn)
		}
		t.metricsAddr = l.Addr()
		t.metricsDone = make(chan struct{})
		go func() {
			defer close(t.metricsDone)
			t.metrics.Serve(l)
		}()
	}
	if cfg.otlpURL != "" {
		exporter, err := otlptracehttp.New(ctx, otlptracehttp.WithEndpointURL(cfg.otlpURL))
		if err != nil {
			t.shutdown(io.Discard)
			return nil, fmt.Errorf("-otlp: %w", err)
		}
		// The batch's delay and size are the SDK's, or those of the
		// OTEL_BSP_* environment variables.
		t.tracer = sdktrace.NewTracerProvider(sdktrace.WithBatcher(exporter), sdktrace.WithResource(serviceResource()))
	}
	return t, nil
}

// serviceResource names the process for the backends.
func serviceResource() *resource.Resource {
	return resource.NewSchemaless(semconv.ServiceName("jsonrpcd"))
}

// options returns the server options of the telemetry: otelrpc.Instrument
// with its providers, or none.
func (t *telemetry) options() []jsonrpc.Option {
	if t.meters == nil && t.tracer == nil {
		return nil
	}
	o := otelrpc.Options{Propagator: propagation.TraceContext{}}
	// A provider not asked for is a no-op one, not the global one (which
	// is a no-op too, unless something sets it).
	if t.meters != nil {
		o.MeterProvider = t.meters
	} else {
		o.MeterProvider = sdkmetric.NewMeterProvider()
	}
	if t.tracer != nil {
		o.TracerProvider = t.tracer
	} else {
		o.TracerProvider = sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.NeverSample()))
	}
	return []jsonrpc.Option{otelrpc.Instrument(o)}
}

// shutdown sends the spans left and stops the metrics listener, within
// telemetryShutdownTimeout, reporting errors to stderr.
func (t *telemetry) shutdown(stderr io.Writer) {
	ctx, cancel := context.WithTimeout(context.Background(), telemetryShutdownTimeout)
	defer cancel()
	var errs []error
	if t.tracer != nil {
		if err := t.tracer.Shutdown(ctx); err != nil {
			errs = append(errs, fmt.Errorf("-otlp: %w", err))
		}
	}
	if t.metrics != nil {
		t.metrics.Close()
		<-t.metricsDone
	}
	if t.meters != nil {
		if err := t.meters.Shutdown(ctx); err != nil {
			errs = append(errs, fmt.Errorf("-metrics: %w", err))
		}
	}
	if err := errors.Join(errs...); err != nil {
		fmt.Fprintln(stderr, "jsonrpcd:", err)
	}
}

// loopbackAddr reports why the host of addr, an -metrics address, is not
// loopback: none (every interface), or an IP address that is not. A name
// is taken for now, and checked where it is listened on (listensLoopback).
func loopbackAddr(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return err
	}
	if host == "" {
		return errors.New("no host: it would listen on every interface, not loopback")
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return nil // a name
	}
	if !ip.Unmap().IsLoopback() {
		return errors.New("not a loopback address")
	}
	return nil
}

// listensLoopback reports why l, the -metrics listener, is not on a
// loopback address: what a name stood for.
func listensLoopback(l net.Listener) error {
	a, ok := l.Addr().(*net.TCPAddr)
	if ok && a.IP.IsLoopback() {
		return nil
	}
	return fmt.Errorf("%s is not a loopback address; give one, such as 127.0.0.1:9464, or add -metrics-public to serve it there", l.Addr())
}
