package httphost

import (
	"net/http"

	"github.com/jsonrpc-go/jsonrpc/transport"
)

// ServeProbe answers r when it is a GET or HEAD of a probe path of h
// (transport.LivePath, transport.ReadyPath), with the status and line of
// h.Probe as text/plain, not to be cached, and reports whether it did.
func ServeProbe(w http.ResponseWriter, r *http.Request, h *transport.Health) bool {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return false
	}
	status, body, ok := h.Probe(r.URL.Path)
	if !ok {
		return false
	}
	hd := w.Header()
	hd.Set("Content-Type", "text/plain; charset=utf-8")
	hd.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		w.Write([]byte(body))
	}
	return true
}
