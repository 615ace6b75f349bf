package otelrpc_test

import (
	"context"
	"net"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/client"
	"github.com/jsonrpc-go/jsonrpc/framing"
	"github.com/jsonrpc-go/jsonrpc/httprpc"
	"github.com/jsonrpc-go/jsonrpc/otelrpc"
	"github.com/jsonrpc-go/jsonrpc/stream"
	"github.com/jsonrpc-go/jsonrpc/streamhttp"
	"github.com/jsonrpc-go/jsonrpc/ws"
)

// spanOf returns the one ended span named name of the kind.
func (f *fixture) spanOf(t *testing.T, name string, kind trace.SpanKind) sdktrace.ReadOnlySpan {
	t.Helper()
	var found []sdktrace.ReadOnlySpan
	for _, s := range f.spans.Ended() {
		if s.Name() == name && s.SpanKind() == kind {
			found = append(found, s)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d spans named %q of kind %v, want 1 (of %d)", len(found), name, kind, len(f.spans.Ended()))
	}
	return found[0]
}

// TestClientSpans (issue 39): InstrumentClient, a client interceptor, runs
// each call in a span of kind client, child of the caller's span, over
// HTTP, Streamable HTTP, TCP and WebSocket; over the two HTTP channels its
// trace context reaches the server in the headers, and the server's span
// is its child. An error answer sets the error attributes and status; the
// histogram rpc.client.duration counts the calls by method and code.
func TestClientSpans(t *testing.T) {
	for _, tr := range []struct {
		name      string
		propagate bool // the server's span is the client span's child
		start     func(t *testing.T, srv *jsonrpc.Server) client.Channel
	}{
		{"http", true, func(t *testing.T, srv *jsonrpc.Server) client.Channel {
			ts := httptest.NewServer(&httprpc.Handler{Server: srv})
			t.Cleanup(ts.Close)
			return client.HTTP(ts.URL, nil)
		}},
		{"streamable-http", true, func(t *testing.T, srv *jsonrpc.Server) client.Channel {
			ts := httptest.NewServer(&streamhttp.Handler{Server: srv})
			t.Cleanup(ts.Close)
			return client.HTTP(ts.URL, nil)
		}},
		{"tcp", false, func(t *testing.T, srv *jsonrpc.Server) client.Channel {
			l, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			s := &stream.Server{Server: srv}
			go s.Serve(l)
			t.Cleanup(func() { s.Close() })
			ch, err := client.Dial(t.Context(), "tcp", l.Addr().String(), framing.Line)
			if err != nil {
				t.Fatal(err)
			}
			return ch
		}},
		{"ws", false, func(t *testing.T, srv *jsonrpc.Server) client.Channel {
			h := &ws.Handler{Server: srv}
			ts := httptest.NewServer(h)
			t.Cleanup(func() {
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				h.Shutdown(ctx)
				ts.Close()
			})
			ch, err := ws.Dial(t.Context(), "ws"+strings.TrimPrefix(ts.URL, "http"), nil)
			if err != nil {
				t.Fatal(err)
			}
			return ch
		}},
	} {
		t.Run(tr.name, func(t *testing.T) {
			f := newFixture(t)
			reader := sdkmetric.NewManualReader()
			c := client.New(tr.start(t, f.srv), otelrpc.InstrumentClient(otelrpc.Options{
				TracerProvider: f.tp,
				MeterProvider:  sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader)),
				Propagator:     propagation.TraceContext{},
			}))
			defer c.Close()

			ctx, caller := f.tp.Tracer("caller").Start(context.Background(), "caller")
			got, err := client.Call[string](ctx, c, "child", nil)
			if err != nil {
				t.Fatal(err)
			}
			_, err = client.Call[any](ctx, c, "fail", nil)
			caller.End()
			if err == nil {
				t.Fatal("fail succeeded")
			}

			cs := f.spanOf(t, "child", trace.SpanKindClient)
			if p := cs.Parent(); p.SpanID() != caller.SpanContext().SpanID() {
				t.Errorf("client span's parent %v, want the caller %v", p.SpanID(), caller.SpanContext().SpanID())
			}
			checkAttrs(t, cs, map[attribute.Key]string{"rpc.system": "jsonrpc", "rpc.method": "child", "rpc.jsonrpc.version": "2.0"})
			ss := f.spanOf(t, "child", trace.SpanKindServer)
			if tr.propagate {
				if p := ss.Parent(); p.SpanID() != cs.SpanContext().SpanID() || !p.IsRemote() {
					t.Errorf("server span's parent %v, want the client span %v", p.SpanID(), cs.SpanContext().SpanID())
				}
				if want := caller.SpanContext().TraceID().String(); got != want {
					t.Errorf("the method ran in trace %s, want the caller's %s", got, want)
				}
			}
			fs := f.spanOf(t, "fail", trace.SpanKindClient)
			checkAttrs(t, fs, map[attribute.Key]string{"rpc.system": "jsonrpc", "rpc.method": "fail", "rpc.jsonrpc.version": "2.0",
				"rpc.jsonrpc.error_code": "-32001", "rpc.jsonrpc.error_message": "no luck"})
			if st := fs.Status(); st.Code != codes.Error || st.Description != "no luck" {
				t.Errorf("fail's status %v", st)
			}

			var rm metricdata.ResourceMetrics
			if err := reader.Collect(context.Background(), &rm); err != nil {
				t.Fatal(err)
			}
			counts := map[string]uint64{}
			for _, sm := range rm.ScopeMetrics {
				for _, m := range sm.Metrics {
					if m.Name != "rpc.client.duration" {
						continue
					}
					for _, dp := range m.Data.(metricdata.Histogram[float64]).DataPoints {
						method, _ := dp.Attributes.Value("rpc.method")
						code, _ := dp.Attributes.Value("rpc.jsonrpc.error_code")
						counts[method.Emit()+" "+code.Emit()] += dp.Count
					}
				}
			}
			if counts["child "] != 1 || counts["fail -32001"] != 1 || len(counts) != 2 {
				t.Errorf("rpc.client.duration counts %v, want child and fail -32001 once each", counts)
			}
		})
	}
}

// A failure without an answer (nothing listens) sets the span's status
// and records the error.
func TestClientSpanTransportError(t *testing.T) {
	f := newFixture(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + l.Addr().String()
	l.Close()
	c := client.New(client.HTTP(url, nil), otelrpc.InstrumentClient(otelrpc.Options{TracerProvider: f.tp}))
	defer c.Close()
	if _, err := client.Call[any](context.Background(), c, "add", nil); err == nil {
		t.Fatal("a call to a closed port succeeded")
	}
	s := f.spanOf(t, "add", trace.SpanKindClient)
	if s.Status().Code != codes.Error || len(s.Events()) != 1 || s.Events()[0].Name != "exception" {
		t.Errorf("status %v, events %v: want Error and the error recorded", s.Status(), s.Events())
	}
}
