package httprpc

import (
	"net/http"

	"github.com/jsonrpc-go/jsonrpc/internal/httphost"
	"github.com/jsonrpc-go/jsonrpc/transport"
)

// ProbeHandler returns a handler of the probes of h (see
// transport.Health), for the paths of a mux of a program's own:
//
//	mux.Handle(transport.LivePath, httprpc.ProbeHandler(health))
//	mux.Handle(transport.ReadyPath, httprpc.ProbeHandler(health))
//
// A GET or HEAD of transport.LivePath is answered 200 while the process
// serves; of transport.ReadyPath 200, or 503 once h drains or its Check
// fails; each with a line of text, as text/plain and not to be cached.
// Another path is answered 404, another method 405.
func ProbeHandler(h *transport.Health) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed; use GET", http.StatusMethodNotAllowed)
			return
		}
		if !httphost.ServeProbe(w, r, h) {
			http.NotFound(w, r)
		}
	})
}
