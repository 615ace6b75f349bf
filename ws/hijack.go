package ws

import (
	"bufio"
	"net"
	"net/http"
)

// hijackRecorder is the ResponseWriter a Handler hands to websocket.Accept:
// it keeps the connection that Accept hijacks, so that Shutdown can close it
// at its deadline even while the library's close handshake waits for the
// peer (its Close and CloseNow wait up to ten seconds for that).
type hijackRecorder struct {
	http.ResponseWriter
	hj   http.Hijacker
	conn net.Conn // set by Hijack
}

// recordHijack returns w wrapped in a hijackRecorder, or nil when w cannot
// be hijacked (Accept then refuses the request itself).
func recordHijack(w http.ResponseWriter) *hijackRecorder {
	// Find the Hijacker as websocket.Accept does, following Unwrap.
	for rw := w; ; {
		switch t := rw.(type) {
		case http.Hijacker:
			return &hijackRecorder{ResponseWriter: w, hj: t}
		case interface{ Unwrap() http.ResponseWriter }:
			rw = t.Unwrap()
		default:
			return nil
		}
	}
}

func (w *hijackRecorder) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	conn, brw, err := w.hj.Hijack()
	w.conn = conn
	return conn, brw, err
}

func (w *hijackRecorder) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// WriteHeaderNow passes on the method websocket.Accept calls on writers
// that delay the header (gin's), so that wrapping changes nothing for them.
func (w *hijackRecorder) WriteHeaderNow() {
	if x, ok := w.ResponseWriter.(interface{ WriteHeaderNow() }); ok {
		x.WriteHeaderNow()
	}
}
