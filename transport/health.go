package transport

import "sync/atomic"

// The paths at which the HTTP hosts answer the probes of a Health: a GET
// or HEAD of LivePath is the liveness probe, of ReadyPath the readiness
// probe, as Kubernetes names them.
const (
	LivePath  = "/healthz"
	ReadyPath = "/readyz"
)

// A Health is the liveness and readiness of a process's hosts, for the
// probes of load balancers and orchestrators (Kubernetes' livenessProbe
// and readinessProbe, HAProxy's httpchk, nginx Plus's health_check). The
// HTTP hosts answer its probes when given one (the Health field of
// httprpc.Handler, fasthttprpc.Handler, ws.Handler and streamhttp.Handler;
// httprpc.ProbeHandler for a path of a mux):
//
//   - liveness (LivePath): 200 while the process serves, whatever else;
//   - readiness (ReadyPath): 200 until Drain is called, 503 after, even
//     while the calls in flight complete and, until the program closes
//     them, the listeners take new connections; 503 also when Check fails.
//
// Drain is the first step of a graceful shutdown: the hosts' Shutdown
// methods (ws.Handler's, streamhttp.Handler's) call it before they refuse
// anything, and a program that shuts down an http.Server calls it before
// Shutdown, which closes the listeners at once, and waits there as long as
// its balancer takes to see the probe fail (jsonrpcd's -drain), so that
// the balancer stops sending before the process stops taking.
//
// The zero value is live and ready. A Health is safe for concurrent use by
// multiple goroutines, and is shared by every host of a process; its
// methods are nil-safe (a nil *Health is live and ready, and Drain does
// nothing).
type Health struct {
	// Check, when set, is called by each readiness probe until Drain: a
	// non-nil error answers 503 with its text (a dependency down, say).
	// It must be safe for concurrent use and return quickly. Set it before
	// the hosts serve; nil: ready until Drain.
	Check func() error

	draining atomic.Bool // Drain was called
}

// Drain makes the readiness probe fail from now on; liveness is
// unchanged. Calling it again does nothing.
func (h *Health) Drain() {
	if h != nil {
		h.draining.Store(true)
	}
}

// Draining reports whether Drain was called.
func (h *Health) Draining() bool { return h != nil && h.draining.Load() }

// Probe answers the probe of the request path: the HTTP status (200 or
// 503) and a one-line body ("ok\n", "draining\n", or Check's error), with
// ok set; for a path that is neither LivePath nor ReadyPath, ok is false
// and the request is the host's as any other.
func (h *Health) Probe(path string) (status int, body string, ok bool) {
	switch path {
	case LivePath:
		return 200, "ok\n", true
	case ReadyPath:
		if h.Draining() {
			return 503, "draining\n", true
		}
		if h != nil && h.Check != nil {
			if err := h.Check(); err != nil {
				return 503, "not ready: " + oneLine(err.Error()) + "\n", true
			}
		}
		return 200, "ok\n", true
	}
	return 0, "", false
}

// oneLine returns s cut at its first line break and to 200 bytes.
func oneLine(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' || s[i] == '\r' {
			s = s[:i]
			break
		}
	}
	if len(s) > 200 {
		s = s[:200]
	}
	return s
}
