package peer_test

import (
	"reflect"
	"testing"
	"time"

	"github.com/jsonrpc-go/jsonrpc/peer"
	"github.com/jsonrpc-go/jsonrpc/stream"
	"github.com/jsonrpc-go/jsonrpc/streamhttp"
	"github.com/jsonrpc-go/jsonrpc/transport"
	"github.com/jsonrpc-go/jsonrpc/ws"
)

// TestHostsShareTheConnectionSettings: every setting of a connection
// (peer.Options) that a user of a host chooses is a field of both hosts,
// of the same name and type; the limits are one type, transport.Limits,
// embedded in each host and in Options, and no host shadows one of them
// with a field of its own, so that a limit added once holds on every
// connection.
func TestHostsShareTheConnectionSettings(t *testing.T) {
	notHosts := map[string]bool{
		"Caller": true, // a client's
		"OnIdle": true, // the host's own hook
	}
	hosts := []reflect.Type{reflect.TypeFor[stream.Server](), reflect.TypeFor[ws.Handler]()}
	opts := reflect.TypeFor[peer.Options]()
	limits := reflect.TypeFor[transport.Limits]()
	// The Streamable HTTP host runs each request as a connection: it
	// shares the limits, the Server and the Protocol.
	streamHTTP := reflect.TypeFor[streamhttp.Handler]()
	for _, name := range []string{"Server", "Protocol", "Logger"} {
		f, _ := streamHTTP.FieldByName(name)
		if of, _ := opts.FieldByName(name); f.Type != of.Type {
			t.Errorf("%v.%s is a %v; peer.Options.%s is a %v", streamHTTP, name, f.Type, name, of.Type)
		}
	}
	for _, h := range append(hosts, opts, streamHTTP) {
		f, ok := h.FieldByName("Limits")
		if !ok || !f.Anonymous || f.Type != limits {
			t.Errorf("%v does not embed transport.Limits", h)
		}
		for i := range limits.NumField() {
			name := limits.Field(i).Name
			if hf, _ := h.FieldByName(name); len(hf.Index) != 2 {
				t.Errorf("%v.%s is not transport.Limits.%s", h, name, name)
			}
		}
	}
	for i := range opts.NumField() {
		f := opts.Field(i)
		if notHosts[f.Name] {
			continue
		}
		for _, h := range hosts {
			hf, ok := h.FieldByName(f.Name)
			switch {
			case !ok:
				t.Errorf("%v has no field %s (peer.Options.%s)", h, f.Name, f.Name)
			case hf.Type != f.Type:
				t.Errorf("%v.%s is a %v; peer.Options.%s is a %v", h, f.Name, hf.Type, f.Name, f.Type)
			}
		}
	}
}

// TestLimitsWithDefaults: every field of a zero Limits gets its default, a
// negative size too, a negative timeout stays none, and a value set stays.
func TestLimitsWithDefaults(t *testing.T) {
	got := transport.Limits{}.WithDefaults()
	want := transport.Limits{
		MaxMessage: transport.Limits{}.WithDefaults().MaxMessage, MaxBuffered: transport.Limits{}.WithDefaults().MaxBuffered, MaxConns: transport.Limits{}.WithDefaults().MaxConns, MaxConnsPerClient: transport.Limits{}.WithDefaults().MaxConns / 2,
		MaxInFlight: transport.Limits{}.WithDefaults().MaxInFlight, MaxQueued: transport.Limits{}.WithDefaults().MaxQueued, MaxPush: transport.Limits{}.WithDefaults().MaxPush,
		MaxPushBytes: transport.Limits{}.WithDefaults().MaxPushBytes, MaxSubscriptions: transport.Limits{}.WithDefaults().MaxSubscriptions, MaxSequences: transport.Limits{}.WithDefaults().MaxSequences, MaxSeqItems: transport.Limits{}.WithDefaults().MaxSeqItems, MaxSeqBytes: 1 << 20,
		IdleTimeout: transport.Limits{}.WithDefaults().IdleTimeout, ReadTimeout: transport.Limits{}.WithDefaults().ReadTimeout, WriteTimeout: transport.Limits{}.WithDefaults().WriteTimeout,
		PingInterval: transport.Limits{}.WithDefaults().PingInterval, PongTimeout: transport.Limits{}.WithDefaults().PongTimeout,
	}
	if got != want {
		t.Errorf("zero: got %+v, want %+v", got, want)
	}
	v := reflect.ValueOf(&got).Elem()
	for i := range v.NumField() {
		if v.Field(i).IsZero() {
			t.Errorf("%s has no default", v.Type().Field(i).Name)
		}
	}
	set := transport.Limits{MaxMessage: 10, MaxBuffered: -1, IdleTimeout: -1, ReadTimeout: time.Second, MaxConns: 1}.WithDefaults()
	if set.MaxMessage != 10 || set.MaxBuffered != (transport.Limits{}.WithDefaults().MaxBuffered) || set.IdleTimeout != -1 || set.ReadTimeout != time.Second || set.MaxConnsPerClient != 1 {
		t.Errorf("set: got %+v", set)
	}
}
