package transport_test

import (
	"errors"
	"testing"

	"github.com/jsonrpc-go/jsonrpc/transport"
)

// Probe: liveness holds; readiness fails once drained, or while Check
// fails; other paths are not probes; a nil Health is live and ready.
func TestHealthProbe(t *testing.T) {
	var nilHealth *transport.Health
	nilHealth.Drain() // does nothing
	var check error
	h := &transport.Health{Check: func() error { return check }}
	type probe struct {
		status int
		body   string
		ok     bool
	}
	do := func(h *transport.Health, path string) probe {
		s, b, ok := h.Probe(path)
		return probe{s, b, ok}
	}
	for _, tc := range []struct {
		name string
		h    *transport.Health
		path string
		want probe
	}{
		{"nil live", nilHealth, "/healthz", probe{200, "ok\n", true}},
		{"nil ready", nilHealth, "/readyz", probe{200, "ok\n", true}},
		{"live", h, "/healthz", probe{200, "ok\n", true}},
		{"ready", h, "/readyz", probe{200, "ok\n", true}},
		{"other", h, "/", probe{0, "", false}},
		{"prefix", h, "/readyz/x", probe{0, "", false}},
	} {
		if got := do(tc.h, tc.path); got != tc.want {
			t.Errorf("%s: Probe(%q) = %v, want %v", tc.name, tc.path, got, tc.want)
		}
	}
	check = errors.New("the database is down\nsecond line")
	if got, want := do(h, "/readyz"), (probe{503, "not ready: the database is down\n", true}); got != want {
		t.Errorf("Check failing: %v, want %v", got, want)
	}
	check = nil
	h.Drain()
	h.Drain()
	if !h.Draining() || nilHealth.Draining() {
		t.Error("Draining after Drain false, or a nil Health draining")
	}
	if got, want := do(h, "/readyz"), (probe{503, "draining\n", true}); got != want {
		t.Errorf("drained: %v, want %v", got, want)
	}
	if got, want := do(h, "/healthz"), (probe{200, "ok\n", true}); got != want {
		t.Errorf("drained, live: %v, want %v", got, want)
	}
}
