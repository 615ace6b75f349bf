package otelrpc_test

import (
	"bufio"
	"context"
	"github.com/jsonrpc-go/jsonrpc/protocol/lsp"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/client"
	"github.com/jsonrpc-go/jsonrpc/httprpc"
	"github.com/jsonrpc-go/jsonrpc/otelrpc"
	"github.com/jsonrpc-go/jsonrpc/stream"
)

// fixture is a server instrumented with in-memory providers.
type fixture struct {
	spans  *tracetest.SpanRecorder
	tp     *sdktrace.TracerProvider
	reader *sdkmetric.ManualReader
	srv    *jsonrpc.Server
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{spans: tracetest.NewSpanRecorder(), reader: sdkmetric.NewManualReader()}
	f.tp = sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(f.spans))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(f.reader))
	f.srv = jsonrpc.NewServer(otelrpc.Instrument(otelrpc.Options{
		TracerProvider: f.tp,
		MeterProvider:  mp,
		Propagator:     propagation.TraceContext{},
	}))
	tracer := f.tp.Tracer("method")
	// child starts a span of its own in the context it is given and
	// returns its trace id.
	f.srv.MustRegister("child", func(ctx context.Context, _ map[string]any, _ int) string {
		_, span := tracer.Start(ctx, "inner")
		defer span.End()
		return span.SpanContext().TraceID().String()
	}, jsonrpc.ParamNames("_meta", "x"), jsonrpc.Defaults(map[string]any(nil), 0))
	f.srv.MustRegister("fail", func() error { return jsonrpc.NewError(-32001, "no luck") })
	return f
}

// span returns the one ended span named name.
func (f *fixture) span(t *testing.T, name string) sdktrace.ReadOnlySpan {
	t.Helper()
	var found []sdktrace.ReadOnlySpan
	for _, s := range f.spans.Ended() {
		if s.Name() == name {
			found = append(found, s)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d spans named %q, want 1 (of %d)", len(found), name, len(f.spans.Ended()))
	}
	return found[0]
}

func attrs(s sdktrace.ReadOnlySpan) map[attribute.Key]string {
	m := map[attribute.Key]string{}
	for _, kv := range s.Attributes() {
		m[kv.Key] = kv.Value.Emit()
	}
	return m
}

func checkAttrs(t *testing.T, s sdktrace.ReadOnlySpan, want map[attribute.Key]string) {
	t.Helper()
	got := attrs(s)
	for k, v := range want {
		if gv, ok := got[k]; !ok || gv != v {
			t.Errorf("span %s: attribute %s = %q (set: %v), want %q", s.Name(), k, gv, ok, v)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("span %s: unexpected attribute %s = %q", s.Name(), k, got[k])
		}
	}
}

const (
	traceID    = "4bf92f3577b34da6a3ce929d0e0e4736"
	parentID   = "00f067aa0ba902b7"
	traceparnt = "00-" + traceID + "-" + parentID + "-01"
)

// The span of a call carries the semantic conventions' attributes, wraps
// the method, and is the parent of the method's spans.
func TestSpanAttributes(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	if got := f.srv.ProcessString(ctx, `{"jsonrpc":"2.0","method":"child","id":"a\u0062"}`); !strings.Contains(got, `"result"`) {
		t.Fatalf("child: %s", got)
	}
	if got := f.srv.ProcessString(ctx, `{"jsonrpc":"2.0","method":"fail","id":7}`); !strings.Contains(got, `-32001`) {
		t.Fatalf("fail: %s", got)
	}
	f.srv.ProcessString(ctx, `[{"jsonrpc":"2.0","method":"fail","id":null}]`)
	f.srv.ProcessString(ctx, `{"jsonrpc":"2.0","method":"fail"}`)

	s := f.span(t, "child")
	if s.SpanKind() != trace.SpanKindServer || s.Status().Code != codes.Unset {
		t.Errorf("child: kind %v, status %v", s.SpanKind(), s.Status())
	}
	checkAttrs(t, s, map[attribute.Key]string{
		"rpc.system": "jsonrpc", "rpc.method": "child", "rpc.jsonrpc.version": "2.0", "rpc.jsonrpc.request_id": "ab",
	})
	inner := f.span(t, "inner")
	if inner.Parent().SpanID() != s.SpanContext().SpanID() || inner.SpanContext().TraceID() != s.SpanContext().TraceID() {
		t.Errorf("the method's span has parent %v, want the call's span %v", inner.Parent().SpanID(), s.SpanContext().SpanID())
	}
	if s.Parent().IsValid() {
		t.Errorf("child without a trace context has parent %v", s.Parent())
	}

	var fails []sdktrace.ReadOnlySpan
	for _, s := range f.spans.Ended() {
		if s.Name() == "fail" {
			fails = append(fails, s)
		}
	}
	if len(fails) != 3 {
		t.Fatalf("%d fail spans, want 3", len(fails))
	}
	for i, id := range []string{"7", "", "notification"} {
		s := fails[i]
		want := map[attribute.Key]string{
			"rpc.system": "jsonrpc", "rpc.method": "fail", "rpc.jsonrpc.version": "2.0",
			"rpc.jsonrpc.error_code": "-32001", "rpc.jsonrpc.error_message": "no luck",
		}
		if id != "notification" {
			want["rpc.jsonrpc.request_id"] = id
		}
		checkAttrs(t, s, want)
		if s.Status().Code != codes.Error || s.Status().Description != "no luck" {
			t.Errorf("fail %d: status %v, want Error", i, s.Status())
		}
	}
}

// The trace context of the HTTP request's traceparent header is the
// parent of the call's span.
func TestPropagationHeader(t *testing.T) {
	f := newFixture(t)
	hs := httptest.NewServer(&httprpc.Handler{Server: f.srv})
	defer hs.Close()
	req, _ := http.NewRequest(http.MethodPost, hs.URL, strings.NewReader(`{"jsonrpc":"2.0","method":"child","id":1}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Traceparent", traceparnt)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	s := f.span(t, "child")
	if got := s.Parent(); got.TraceID().String() != traceID || got.SpanID().String() != parentID || !got.IsRemote() {
		t.Errorf("parent %v, want the remote span %s-%s", got, traceID, parentID)
	}
	if got := f.span(t, "inner").SpanContext().TraceID().String(); got != traceID {
		t.Errorf("the method's span is in trace %s, want %s", got, traceID)
	}
}

// params._meta.traceparent is the parent of the call's span, ahead of the
// header.
func TestPropagationMeta(t *testing.T) {
	f := newFixture(t)
	const metaTrace = "0af7651916cd43dd8448eb211c80319c"
	const metaParent = "b7ad6b7169203331"
	req := `{"jsonrpc":"2.0","method":"child","params":{"_meta":{"traceparent":"00-` + metaTrace + `-` + metaParent + `-01","progressToken":1},"x":1},"id":1}`
	hs := httptest.NewServer(&httprpc.Handler{Server: f.srv})
	defer hs.Close()
	hreq, _ := http.NewRequest(http.MethodPost, hs.URL, strings.NewReader(req))
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Traceparent", traceparnt)
	resp, err := http.DefaultClient.Do(hreq)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	s := f.span(t, "child")
	if got := s.Parent(); got.TraceID().String() != metaTrace || got.SpanID().String() != metaParent {
		t.Errorf("parent %v, want the span of _meta %s-%s", got, metaTrace, metaParent)
	}

	// A _meta without a valid traceparent leaves the span without a
	// parent, and the call runs.
	f = newFixture(t)
	got := f.srv.ProcessString(context.Background(), `{"jsonrpc":"2.0","method":"child","params":{"_meta":{"traceparent":"junk"}},"id":1}`)
	if !strings.Contains(got, `"result"`) {
		t.Fatalf("junk _meta: %s", got)
	}
	if p := f.span(t, "child").Parent(); p.IsValid() {
		t.Errorf("junk _meta: parent %v", p)
	}
}

// StreamJsonRpc's trace context, the request's own traceparent and
// tracestate members, is the parent of the call's span, escaped names
// too, over HTTP and over a stream connection with a Protocol (whose
// messages the connection classifies before the server sees them); an
// escaped "_meta" is MCP's as well.
func TestPropagationTopLevel(t *testing.T) {
	const trace = "4bf92f3577b34da6a3ce929d0e0e4736"
	const parent = "00f067aa0ba902b7"
	tp := `"00-` + trace + `-` + parent + `-01"`
	for name, req := range map[string]string{
		"members":         `{"jsonrpc":"2.0","method":"child","params":{"x":1},"id":1,"traceparent":` + tp + `,"tracestate":"congo=t61rcWkgMzE"}`,
		"escaped members": `{"jsonrpc":"2.0","method":"child","params":{"x":1},"id":1,"tr\u0061ceparent":` + tp + `}`,
		"first":           `{"traceparent":` + tp + `,"jsonrpc":"2.0","method":"child","id":1}`,
		"escaped _meta":   `{"jsonrpc":"2.0","method":"child","params":{"\u005fmeta":{"traceparent":` + tp + `},"x":1},"id":1}`,
	} {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t)
			if got := f.srv.ProcessString(context.Background(), req); !strings.Contains(got, `"result"`) {
				t.Fatalf("%s: %s", req, got)
			}
			if got := f.span(t, "child").Parent(); got.TraceID().String() != trace || got.SpanID().String() != parent {
				t.Errorf("parent %v, want %s-%s", got, trace, parent)
			}
			f = newFixture(t)
			cc, sc := net.Pipe()
			s := &stream.Server{Server: f.srv, Protocol: lsp.Protocol()}
			go s.ServeConn(context.Background(), sc)
			defer s.Close()
			defer cc.Close()
			if _, err := cc.Write([]byte(req + "\n")); err != nil {
				t.Fatal(err)
			}
			line, err := bufio.NewReader(cc).ReadString('\n')
			if err != nil || !strings.Contains(line, `"result"`) {
				t.Fatalf("over a stream: %q, %v", line, err)
			}
			if got := f.span(t, "child").Parent(); got.TraceID().String() != trace || got.SpanID().String() != parent {
				t.Errorf("over a stream: parent %v, want %s-%s", got, trace, parent)
			}
		})
	}
}

// The client injects the trace context of each call: through HTTP headers
// with Transport, and as params._meta with Meta.
func TestClientInjects(t *testing.T) {
	f := newFixture(t)
	hs := httptest.NewServer(&httprpc.Handler{Server: f.srv})
	defer hs.Close()
	o := otelrpc.Options{Propagator: propagation.TraceContext{}}
	c := client.New(client.HTTP(hs.URL, &http.Client{Transport: otelrpc.Transport(nil, o)}))
	defer c.Close()

	ctx, caller := f.tp.Tracer("client").Start(context.Background(), "caller")
	got, err := client.Call[string](ctx, c, "child", nil)
	caller.End()
	if err != nil {
		t.Fatal(err)
	}
	if want := caller.SpanContext().TraceID().String(); got != want {
		t.Errorf("the method ran in trace %s, want the caller's %s", got, want)
	}
	if p := f.span(t, "child").Parent(); p.SpanID() != caller.SpanContext().SpanID() {
		t.Errorf("the call's span has parent %v, want the caller %v", p.SpanID(), caller.SpanContext().SpanID())
	}

	// Meta, over a channel without headers.
	f2 := newFixture(t)
	lc := client.New(client.Local(f2.srv))
	defer lc.Close()
	if otelrpc.Meta(context.Background(), o) != nil {
		t.Error("Meta of a context without a span is not nil")
	}
	meta := otelrpc.Meta(ctx, o)
	if _, err := client.Call[string](context.Background(), lc, "child", map[string]any{"_meta": meta}); err != nil {
		t.Fatal(err)
	}
	if p := f2.span(t, "child").Parent(); p.SpanID() != caller.SpanContext().SpanID() {
		t.Errorf("the call's span (through _meta %v) has parent %v, want the caller %v", meta, p.SpanID(), caller.SpanContext().SpanID())
	}
}

// The duration histogram counts calls by method and code; the active
// calls go up during a call and back down after it.
func TestMetrics(t *testing.T) {
	f := newFixture(t)
	var during int64 = -1
	f.srv.MustRegister("peek", func() int {
		during = activeCalls(t, f.reader, "peek")
		return 1
	})
	ctx := context.Background()
	f.srv.ProcessString(ctx, `{"jsonrpc":"2.0","method":"peek","id":1}`)
	for range 3 {
		f.srv.ProcessString(ctx, `{"jsonrpc":"2.0","method":"fail","id":1}`)
	}
	if during != 1 {
		t.Errorf("active calls of peek during its call: %d, want 1", during)
	}
	if got := activeCalls(t, f.reader, "peek"); got != 0 {
		t.Errorf("active calls of peek after it: %d, want 0", got)
	}
	counts := map[string]uint64{}
	var rm metricdata.ResourceMetrics
	if err := f.reader.Collect(ctx, &rm); err != nil {
		t.Fatal(err)
	}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name != "rpc.server.duration" {
				continue
			}
			if m.Unit != "ms" {
				t.Errorf("unit %q, want ms", m.Unit)
			}
			for _, dp := range m.Data.(metricdata.Histogram[float64]).DataPoints {
				method, _ := dp.Attributes.Value("rpc.method")
				code, _ := dp.Attributes.Value("rpc.jsonrpc.error_code")
				counts[method.Emit()+" "+code.Emit()] += dp.Count
			}
		}
	}
	if counts["peek "] != 1 || counts["fail -32001"] != 3 || len(counts) != 2 {
		t.Errorf("call counts by method and code: %v, want peek 1 and fail -32001 3", counts)
	}
}

// activeCalls returns the rpc.server.active_calls of method, or -1.
func activeCalls(t *testing.T, r *sdkmetric.ManualReader, method string) int64 {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := r.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name != "rpc.server.active_calls" {
				continue
			}
			for _, dp := range m.Data.(metricdata.Sum[int64]).DataPoints {
				if v, _ := dp.Attributes.Value("rpc.method"); v.Emit() == method {
					return dp.Value
				}
			}
		}
	}
	return -1
}
