// Package otelrpc traces and measures the calls of a *jsonrpc.Server with
// OpenTelemetry, and carries the trace context of the client's calls to
// the server.
//
//	srv := jsonrpc.NewServer(otelrpc.Instrument(otelrpc.Options{}))
//
// # Spans
//
// Each call runs in a span of kind server, named for its method, with the
// attributes of the OpenTelemetry semantic conventions for JSON-RPC
// (semconv 1.38, the last release that defines them): rpc.system
// ("jsonrpc"), rpc.method, rpc.jsonrpc.version ("2.0"),
// rpc.jsonrpc.request_id (the id as a string, "" for null; none for a
// notification) and, for a call answered with an error,
// rpc.jsonrpc.error_code and rpc.jsonrpc.error_message, with the span's
// status set to Error. The span wraps the method and the interceptors
// given after Instrument, and its
// context is the method's context, so that the spans a method starts are
// its children.
//
// The span's parent is, in this order: the trace context in the call's
// params, params._meta.traceparent (and tracestate), as the Model Context
// Protocol carries it; the trace context in the request's own members
// traceparent and tracestate, as StreamJsonRpc (.NET) sends it; the span
// already in the call's context, such as one
// an HTTP middleware started; the trace context of the HTTP request's
// headers (traceparent, tracestate), when the call came through package
// httprpc. Without any of them the span starts a trace.
//
// # Metrics
//
//   - rpc.server.duration (histogram, ms): the time of each call, the
//     interceptors given after Instrument included, with attributes rpc.system, rpc.method and, for calls
//     answered with an error, rpc.jsonrpc.error_code. Its count is the
//     number of calls by method and code.
//   - rpc.server.active_calls (up-down counter, {call}): the calls running,
//     with attributes rpc.system and rpc.method.
//
// With the OpenTelemetry Prometheus exporter these are scraped as
// rpc_server_duration_milliseconds (_bucket, _sum, _count) and
// rpc_server_active_calls; see the example of Instrument.
//
// # Clients
//
// InstrumentClient, an option of client.New, runs each call, notification
// and batch of a client in a span of kind client, over every channel, and
// records rpc.client.duration; over client.HTTP (plain or Streamable HTTP)
// it sends the span's trace context in the request's headers, so that the
// server's span is its child. It is a client.Intercept interceptor, and
// nests with client.Retry as the options are given. Transport injects the
// trace context of each HTTP request's context into its headers, for an
// http.Client of a program's own. Meta returns the trace context as the
// members of a params._meta object, for channels without headers.
//
// # Cost
//
// A server without Instrument pays nothing: its calls allocate nothing
// more. With it, a call of a method over primitives through Process
// (BenchmarkCall, one run of go test -bench BenchmarkCall on a shared
// 2-core AMD EPYC machine, Go 1.26):
//
//	bare                        200 ns    0 allocs
//	no-op providers             675 ns    2 allocs  (336 B)
//	SDK metrics, Prometheus   1,217 ns    2 allocs  (336 B), no traces
//	SDK traces and metrics    4,115 ns    8 allocs  (2,064 B), every span sampled
//
// The times are from a run before an interceptor's call allocated only its
// context, one allocation fewer. Over no-op providers the two allocations
// are the call's context and the context that carries the span (TestAllocs
// checks the count).
package otelrpc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"sync"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.38.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/internal/wire"
)

// ScopeName is the instrumentation scope of the tracer and the meter.
const ScopeName = "github.com/jsonrpc-go/jsonrpc/otelrpc"

// Options configure Instrument and Transport. The zero value uses
// OpenTelemetry's global providers and propagator, as they are when
// Instrument is called (otel.GetTracerProvider, otel.GetMeterProvider,
// otel.GetTextMapPropagator).
type Options struct {
	// TracerProvider makes the tracer of the spans; nil means the global
	// one.
	TracerProvider trace.TracerProvider

	// MeterProvider makes the meter of the metrics; nil means the global
	// one.
	MeterProvider metric.MeterProvider

	// Propagator reads and writes trace contexts; nil means the global
	// one. The global propagator is a no-op until set: set it, for example
	// with propagation.TraceContext{}, for traceparent to be read.
	Propagator propagation.TextMapPropagator
}

func (o Options) propagator() propagation.TextMapPropagator {
	if o.Propagator != nil {
		return o.Propagator
	}
	return otel.GetTextMapPropagator()
}

// Instrument returns an option of jsonrpc.NewServer (or of
// jsonrpc.Sessions.Options) that runs each call in a span and records its
// metrics (see the package documentation), with a jsonrpc.Intercept
// interceptor. Errors making the instruments are reported to otel.Handle,
// and the instruments that failed record nothing.
func Instrument(o Options) jsonrpc.Option {
	tracer, meter := o.providers()
	in := &instrument{tracer: tracer, propagator: o.propagator()}
	in.duration = durationHistogram(meter, "rpc.server.duration", "Measures the duration of inbound RPC.")
	var err error
	in.active, err = meter.Int64UpDownCounter("rpc.server.active_calls",
		metric.WithDescription("Measures the number of inbound calls running."),
		metric.WithUnit("{call}"))
	if err != nil {
		otel.Handle(err)
	}
	return jsonrpc.Intercept(in.intercept)
}

// instrument holds what the interceptor of Instrument uses.
type instrument struct {
	tracer     trace.Tracer
	propagator propagation.TextMapPropagator
	duration   metric.Float64Histogram
	active     metric.Int64UpDownCounter

	methods sync.Map // method name -> *methodAttrs, made on a method's first call
}

// methodAttrs are the attributes of one method's spans and metrics, made
// once, so that a successful call builds none.
type methodAttrs struct {
	span   []attribute.KeyValue     // rpc.system, rpc.method, rpc.jsonrpc.version
	add    []metric.AddOption       // the attribute set of rpc.system, rpc.method
	record []metric.RecordOption    // the same
	kv     [2]attribute.KeyValue    // the same, to build the sets of errors
	opts   [2]trace.SpanStartOption // kind and span attributes
}

func (in *instrument) attrs(method string) *methodAttrs {
	if a, ok := in.methods.Load(method); ok {
		return a.(*methodAttrs)
	}
	a := &methodAttrs{kv: [2]attribute.KeyValue{semconv.RPCSystemJSONRPC, semconv.RPCMethodKey.String(method)}}
	a.span = []attribute.KeyValue{a.kv[0], a.kv[1], semconv.RPCJSONRPCVersionKey.String("2.0")}
	set := metric.WithAttributeSet(attribute.NewSet(a.kv[:]...))
	a.add, a.record = []metric.AddOption{set}, []metric.RecordOption{set}
	a.opts = [2]trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(a.span...)}
	// Methods are those the server registered (unknown ones are answered
	// before any interceptor), so the map stays as small as the table.
	v, _ := in.methods.LoadOrStore(method, a)
	return v.(*methodAttrs)
}

func (in *instrument) intercept(ctx context.Context, c *jsonrpc.Call, next func(context.Context) error) error {
	start := time.Now()
	a := in.attrs(c.Method())
	ctx, span := in.tracer.Start(in.parent(ctx, c), c.Method(), a.opts[:]...)
	if span.IsRecording() && !c.IsNotification() {
		span.SetAttributes(semconv.RPCJSONRPCRequestIDKey.String(requestID(c.ID())))
	}
	in.active.Add(ctx, 1, a.add...)
	err := next(ctx)
	in.active.Add(ctx, -1, a.add...)
	record := a.record
	if err != nil {
		code := semconv.RPCJSONRPCErrorCodeKey.Int(int(jsonrpc.ErrorCode(err)))
		record = []metric.RecordOption{metric.WithAttributes(a.kv[0], a.kv[1], code)}
		if span.IsRecording() {
			msg := errorMessage(err)
			span.SetAttributes(code, semconv.RPCJSONRPCErrorMessageKey.String(msg))
			span.SetStatus(codes.Error, msg)
		}
	}
	in.duration.Record(ctx, float64(time.Since(start))/float64(time.Millisecond), record...)
	span.End()
	return err
}

// errorMessage is the message of the error object a call that failed with
// err answers with: an *Error's own, or else its code's standard one (the
// message of a server without jsonrpc.ErrorDetails).
func errorMessage(err error) string {
	if e, ok := errors.AsType[*jsonrpc.Error](err); ok && e != nil {
		return e.Message
	}
	return jsonrpc.ErrorCode(err).String()
}

// parent returns the context whose span is the parent of the call's: see
// the package documentation.
func (in *instrument) parent(ctx context.Context, c *jsonrpc.Call) context.Context {
	if meta := wire.Member(c.Params(), "_meta"); meta != nil {
		var m map[string]any
		if json.Unmarshal(meta, &m) == nil && len(m) > 0 {
			carrier := propagation.MapCarrier{}
			for k, v := range m {
				if s, ok := v.(string); ok {
					carrier[k] = s
				}
			}
			if got := in.propagator.Extract(ctx, carrier); trace.SpanContextFromContext(got).IsValid() {
				return got
			}
		}
	}
	if tp := c.Member("traceparent"); tp != nil {
		// StreamJsonRpc's: members of the request itself.
		carrier := propagation.MapCarrier{}
		for _, k := range [...]string{"traceparent", "tracestate"} {
			var s string
			if v := c.Member(k); v != nil && json.Unmarshal(v, &s) == nil {
				carrier[k] = s
			}
		}
		if got := in.propagator.Extract(ctx, carrier); trace.SpanContextFromContext(got).IsValid() {
			return got
		}
	}
	if trace.SpanContextFromContext(ctx).IsValid() {
		return ctx
	}
	if r, ok := c.ContextValue().(*http.Request); ok {
		return in.propagator.Extract(ctx, propagation.HeaderCarrier(r.Header))
	}
	return ctx
}

// requestID returns a request id as the rpc.jsonrpc.request_id attribute
// takes it: a string's value, a number's text, "" for null.
func requestID(id json.RawMessage) string {
	switch {
	case len(id) == 0 || string(id) == "null":
		return ""
	case id[0] != '"':
		return string(id)
	case bytes.IndexByte(id, '\\') < 0:
		return string(id[1 : len(id)-1])
	}
	var s string
	if json.Unmarshal(id, &s) != nil {
		return string(id)
	}
	return s
}

// Transport returns an http.RoundTripper that sends each request through
// base (http.DefaultTransport when nil) with the trace context of the
// request's context injected into its headers, by o's propagator. The HTTP
// channel of package client makes each call's request with the call's
// context:
//
//	hc := &http.Client{Transport: otelrpc.Transport(nil, otelrpc.Options{})}
//	c := client.New(client.HTTP(url, hc))
//
// A request whose context has no span is sent as it is.
func Transport(base http.RoundTripper, o Options) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	return &transport{base: base, propagator: o.propagator()}
}

type transport struct {
	base       http.RoundTripper
	propagator propagation.TextMapPropagator
}

func (t *transport) RoundTrip(r *http.Request) (*http.Response, error) {
	ctx := r.Context()
	if !trace.SpanContextFromContext(ctx).IsValid() {
		return t.base.RoundTrip(r)
	}
	// A RoundTripper must not change the request it is given.
	r = r.Clone(ctx)
	t.propagator.Inject(ctx, propagation.HeaderCarrier(r.Header))
	return t.base.RoundTrip(r)
}

// Meta returns the trace context of ctx as the members of a params._meta
// object (traceparent, and tracestate when there is one, with the
// propagator of o), for a client to send in a call's params over a
// channel without headers; nil when ctx has no span.
//
//	params := map[string]any{"name": "x", "_meta": otelrpc.Meta(ctx, otelrpc.Options{})}
func Meta(ctx context.Context, o Options) map[string]string {
	if !trace.SpanContextFromContext(ctx).IsValid() {
		return nil
	}
	carrier := propagation.MapCarrier{}
	o.propagator().Inject(ctx, carrier)
	if len(carrier) == 0 {
		return nil
	}
	return carrier
}

// providers returns the tracer and the meter of the package's scope, from
// o's providers or the global ones.
func (o Options) providers() (trace.Tracer, metric.Meter) {
	tp := o.TracerProvider
	if tp == nil {
		tp = otel.GetTracerProvider()
	}
	mp := o.MeterProvider
	if mp == nil {
		mp = otel.GetMeterProvider()
	}
	return tp.Tracer(ScopeName, trace.WithSchemaURL(semconv.SchemaURL)), mp.Meter(ScopeName, metric.WithSchemaURL(semconv.SchemaURL))
}

// durationHistogram makes the histogram of call durations name (ms), or
// reports the error to otel.Handle: the histogram that failed records
// nothing.
func durationHistogram(meter metric.Meter, name, description string) metric.Float64Histogram {
	h, err := meter.Float64Histogram(name,
		metric.WithDescription(description),
		metric.WithUnit("ms"),
		metric.WithExplicitBucketBoundaries(0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000))
	if err != nil {
		otel.Handle(err)
	}
	return h
}
