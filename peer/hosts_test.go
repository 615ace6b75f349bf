package peer_test

import (
	"reflect"
	"testing"

	"github.com/jsonrpc-go/jsonrpc/peer"
	"github.com/jsonrpc-go/jsonrpc/stream"
	"github.com/jsonrpc-go/jsonrpc/ws"
)

// TestHostsShareTheConnectionSettings: every setting of a connection
// (peer.Options) that a user of a host chooses is a field of both hosts,
// of the same name and type, and so are the limits the hosts have in
// common; a limit added to one connection holds on every connection only
// once both hosts have it.
func TestHostsShareTheConnectionSettings(t *testing.T) {
	notHosts := map[string]bool{
		"Caller": true, // a client's
		"OnIdle": true, // the host's own hook
	}
	hosts := []reflect.Type{reflect.TypeFor[stream.Server](), reflect.TypeFor[ws.Handler]()}
	opts := reflect.TypeFor[peer.Options]()
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
	for _, name := range []string{"MaxMessage", "MaxBuffered", "MaxConns", "WriteTimeout", "Logger"} {
		a, okA := hosts[0].FieldByName(name)
		b, okB := hosts[1].FieldByName(name)
		if !okA || !okB || a.Type != b.Type {
			t.Errorf("%s: %v in %v (%v), %v in %v (%v)", name, a.Type, hosts[0], okA, b.Type, hosts[1], okB)
		}
	}
}
