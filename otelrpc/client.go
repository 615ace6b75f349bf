package otelrpc

import (
	"context"
	"errors"
	"net/http"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.38.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/client"
)

// InstrumentClient returns an option of client.New (or client.Redial) that
// runs each call, notification and batch the client sends in a span of
// kind client and records its duration, with a client.Intercept
// interceptor, over every channel:
//
//	c := client.New(client.HTTP(url, nil), otelrpc.InstrumentClient(otelrpc.Options{}))
//
// The span is named for the method ("batch" for a batch), is a child of
// the span in the call's context, and has the attributes of the server's
// spans (rpc.system, rpc.method, rpc.jsonrpc.version; for an error answer
// rpc.jsonrpc.error_code and rpc.jsonrpc.error_message, and the status
// Error, which a failure without an answer, such as a refused connection,
// sets too, with the error recorded). Its context is the one the
// interceptors after it and the channel see: over HTTP and Streamable HTTP
// (client.HTTP) its trace context is sent in the request's headers
// (traceparent, tracestate, by o's propagator; client.WithHTTPHeader), so
// that the server's span is its child; over channels without headers, send
// Meta's members in the params.
//
// The histogram rpc.client.duration (ms) records each call, with
// rpc.system, rpc.method and, for an error answer, rpc.jsonrpc.error_code.
// Given before client.Retry, a call's span covers its attempts and the
// waits between them; given after it, each attempt has its own span.
// Errors making the instruments are reported to otel.Handle, and the
// instruments that failed record nothing.
func InstrumentClient(o Options) client.Option {
	tracer, meter := o.providers()
	ci := &clientInstrument{tracer: tracer, propagator: o.propagator()}
	ci.duration = durationHistogram(meter, "rpc.client.duration", "Measures the duration of outbound RPC.")
	return client.Intercept(ci.intercept)
}

// clientInstrument holds what the interceptor of InstrumentClient uses.
type clientInstrument struct {
	tracer     trace.Tracer
	propagator propagation.TextMapPropagator
	duration   metric.Float64Histogram
}

func (ci *clientInstrument) intercept(ctx context.Context, o *client.Outgoing, next func(context.Context) error) error {
	start := time.Now()
	name := o.Method
	if o.Batch != nil {
		name = "batch"
	}
	kv := []attribute.KeyValue{semconv.RPCSystemJSONRPC, semconv.RPCMethodKey.String(name)}
	ctx, span := ci.tracer.Start(ctx, name,
		trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(kv[0], kv[1], semconv.RPCJSONRPCVersionKey.String("2.0")))
	h := http.Header{}
	ci.propagator.Inject(ctx, propagation.HeaderCarrier(h))
	if len(h) > 0 {
		ctx = client.WithHTTPHeader(ctx, h)
	}
	err := next(ctx)
	if err != nil {
		if e, ok := errors.AsType[*jsonrpc.Error](err); ok && e != nil {
			code := semconv.RPCJSONRPCErrorCodeKey.Int(int(e.Code))
			kv = append(kv, code)
			span.SetAttributes(code, semconv.RPCJSONRPCErrorMessageKey.String(e.Message))
			span.SetStatus(codes.Error, e.Message)
		} else {
			span.RecordError(err)
			span.SetStatus(codes.Error, err.Error())
		}
	}
	ci.duration.Record(ctx, float64(time.Since(start))/float64(time.Millisecond), metric.WithAttributes(kv...))
	span.End()
	return err
}
