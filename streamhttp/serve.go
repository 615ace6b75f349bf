package streamhttp

import (
	"net/http"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/internal/httphost"
	"github.com/jsonrpc-go/jsonrpc/internal/wire"
	"github.com/jsonrpc-go/jsonrpc/transport"
)

// serveInSession answers a POST of session s: a request runs on the
// session's Conn and its answer, and what its method sends before it, go
// on the POST's stream; a notification or a response is answered 202 once
// the Conn has taken it. created says that this request began s: the
// answer carries its id, and an error answer ends it.
func (h *Handler) serveInSession(w http.ResponseWriter, r *http.Request, s *session, body []byte, kind wire.MsgKind, req *wire.Request, takesJSON, takesEvents bool, lim transport.Limits, created bool) {
	if !s.enter() {
		h.refuse(w, r, errSessionEnded.Error(), http.StatusNotFound)
		return
	}
	defer s.leave()
	switch kind {
	case wire.MsgRequest:
	case wire.MsgNotification, wire.MsgResponse:
		if !s.deliver(r.Context(), body) {
			h.refuse(w, r, errSessionEnded.Error(), http.StatusNotFound)
			return
		}
		if proto := h.protocol(); kind == wire.MsgNotification && proto.CancelMethod != "" && !proto.AnswerCancelled && wire.NameIs(req.Method, proto.CancelMethod) {
			// The call cancelled gets no answer: its stream ends now.
			if st := s.callStream(wire.Member(req.Params, proto.CancelID)); st != nil {
				st.end()
				s.ended(st, true)
			}
		}
		w.WriteHeader(http.StatusAccepted)
		return
	default:
		srv := h.Server
		if srv == nil {
			srv = noMethods()
		}
		answer(w, http.StatusBadRequest, process(r.Context(), srv, h.protocol(), body))
		return
	}
	st, err := s.open(req.ID)
	switch err {
	case nil:
	case errIDInUse:
		answer(w, http.StatusBadRequest, wire.AppendError(nil, -32600, "Invalid Request", wire.AppendQuote(nil, err.Error()), req.ID))
		return
	case errTooManyStreams:
		w.Header().Set("Retry-After", "1")
		h.refuse(w, r, err.Error(), http.StatusServiceUnavailable)
		return
	default:
		h.refuse(w, r, err.Error(), http.StatusNotFound)
		return
	}
	o := newSink(w, takesJSON, takesEvents, max(lim.WriteTimeout, 0))
	hosted := &sessionRequest{st: st, o: o}
	if err := h.host.AddFrom(hosted, h.clientKey(r), lim.MaxConns, lim.MaxConnsPerClient); err != nil {
		s.ended(st, true)
		h.hostRefusal(w, r, err)
		return
	}
	defer h.host.Remove(hosted)
	if created {
		w.Header().Set("Mcp-Session-Id", s.id)
		s.mu.Lock()
		s.initCall = string(req.ID)
		s.mu.Unlock()
	}
	http.NewResponseController(w).SetWriteDeadline(time.Time{})
	st.attach(o, 0)
	if !s.deliver(r.Context(), body) {
		st.detach(o)
		st.end()
		s.ended(st, true)
		if created {
			s.end(true)
		}
		return
	}
	h.carry(r, st, o, h.keepAlive(takesEvents), 0, 0)
	if created && st.answeredError() {
		s.end(true)
	}
}

// carry waits while o carries st: until st ends or another request takes
// it over, or the client is gone (st then goes on, to be resumed), keeping
// an event stream alive meanwhile; or, when they are not 0, until no event
// was sent for idle, or lifetime has passed (StreamIdle, StreamLifetime).
// Nothing writes to o once it returns.
func (h *Handler) carry(r *http.Request, st *stream, o *sink, keepAlive, idle, lifetime time.Duration) {
	defer st.detach(o)
	var tick, idled, aged <-chan time.Time
	if keepAlive > 0 {
		t := time.NewTicker(keepAlive)
		defer t.Stop()
		tick = t.C
	}
	var idleTimer *time.Timer
	if idle > 0 {
		idleTimer = time.NewTimer(idle)
		defer idleTimer.Stop()
		idled = idleTimer.C
	}
	if lifetime > 0 {
		t := time.NewTimer(lifetime)
		defer t.Stop()
		aged = t.C
	}
	for {
		select {
		case <-aged:
			return
		case <-idled:
			if left := idle - st.sinceEvent(o); left > 0 {
				idleTimer.Reset(left)
				continue
			}
			return
		case <-o.gone:
			return
		case <-r.Context().Done():
			return
		case <-st.s.done:
			return
		case <-tick:
			if st.keepOpen(o, keepAlive) != nil {
				return
			}
		}
	}
}

// serveSession answers a GET or a DELETE of a session.
func (h *Handler) serveSession(w http.ResponseWriter, r *http.Request, principal *jsonrpc.Principal) {
	ids := r.Header.Values("Mcp-Session-Id")
	if len(ids) == 0 {
		h.refuse(w, r, "streamhttp: Mcp-Session-Id header required", http.StatusBadRequest)
		return
	}
	var s *session
	if len(ids) == 1 && validSessionID(ids[0]) {
		var err error
		if s, err = h.lookup(ids[0], h.Limits.WithDefaults(), principal); err != nil {
			w.Header().Set("Retry-After", "1")
			h.refuse(w, r, err.Error(), http.StatusServiceUnavailable)
			return
		}
	}
	if s == nil {
		h.refuse(w, r, "streamhttp: unknown or ended session", http.StatusNotFound)
		return
	}
	if r.Method == http.MethodDelete {
		s.end(true)
		w.WriteHeader(http.StatusOK)
		return
	}
	if _, takesEvents := accepts(r.Header["Accept"]); !takesEvents {
		h.refuse(w, r, "streamhttp: a GET must accept text/event-stream", http.StatusNotAcceptable)
		return
	}
	if !s.enter() {
		h.refuse(w, r, errSessionEnded.Error(), http.StatusNotFound)
		return
	}
	defer s.leave()
	lim := h.Limits.WithDefaults()
	o := newSink(w, false, true, max(lim.WriteTimeout, 0))
	var st *stream
	if last := r.Header.Get("Last-Event-ID"); last != "" {
		var seq uint64
		st, seq = s.streamOf(last)
		if st == nil {
			h.refuse(w, r, "streamhttp: Last-Event-ID names no stream of this session kept for resumption", http.StatusBadRequest)
			return
		}
		hosted := &sessionRequest{st: st, o: o, get: true}
		if err := h.host.AddFrom(hosted, h.clientKey(r), lim.MaxConns, lim.MaxConnsPerClient); err != nil {
			h.hostRefusal(w, r, err)
			return
		}
		defer h.host.Remove(hosted)
		http.NewResponseController(w).SetWriteDeadline(time.Time{})
		ok, err := st.attach(o, seq)
		if !ok && err != nil {
			w.Header().Set("Retry-After", "1")
			h.refuse(w, r, err.Error(), http.StatusServiceUnavailable)
			return
		}
		if !ok {
			h.refuse(w, r, "streamhttp: the events after Last-Event-ID are not kept", http.StatusBadRequest)
			return
		}
		if err != nil {
			return
		}
	} else {
		if g := s.getStream(); g != nil && g.carried() {
			h.refuse(w, r, "streamhttp: the session's GET stream is open already", http.StatusConflict)
			return
		}
		var err error
		st, err = s.openGet()
		if err != nil {
			w.Header().Set("Retry-After", "1")
			h.refuse(w, r, err.Error(), http.StatusServiceUnavailable)
			return
		}
		hosted := &sessionRequest{st: st, o: o, get: true}
		if err := h.host.AddFrom(hosted, h.clientKey(r), lim.MaxConns, lim.MaxConnsPerClient); err != nil {
			h.hostRefusal(w, r, err)
			return
		}
		defer h.host.Remove(hosted)
		http.NewResponseController(w).SetWriteDeadline(time.Time{})
		if !st.start(o) {
			return
		}
	}
	idle, lifetime := h.streamTimes()
	h.carry(r, st, o, h.keepAlive(true), idle, lifetime)
}

// sessionRequest is a POST or GET of a session as a connection of the
// handler's Host: Stop ends a GET stream's request at once (it has no
// answer to wait for), and lets a POST finish with its answer; Kill ends
// the request, and the session with it.
type sessionRequest struct {
	st  *stream
	o   *sink
	get bool
}

func (q *sessionRequest) Stop() {
	if q.get {
		q.st.detach(q.o)
	}
}

func (q *sessionRequest) Kill() {
	q.st.detach(q.o)
	go q.st.s.end(true)
}

// callStatus returns the status of the JSON answer msg to a request of a
// session, setting its challenge: 401 or 403 when msg refuses the call for
// who is calling, in the codes of the handler's protocol (a session's calls
// share their context, so the server cannot tell this request's host
// apart: the answer's code tells); 200 otherwise.
func (h *Handler) callStatus(w http.ResponseWriter, msg []byte) int {
	ref := httphost.RefusalIn(msg, h.protocol().Codes)
	if ref == nil {
		return http.StatusOK
	}
	code, challenge := httphost.RefusalAnswer(ref, httphost.Metadata(h.ResourceMetadata))
	w.Header().Set("WWW-Authenticate", challenge)
	return code
}
