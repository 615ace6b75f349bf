package streamhttp

import (
	"context"
	"errors"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/internal/httphost"
	"github.com/jsonrpc-go/jsonrpc/internal/wire"
	"github.com/jsonrpc-go/jsonrpc/peer"
	"github.com/jsonrpc-go/jsonrpc/protocol/mcp"
	"github.com/jsonrpc-go/jsonrpc/transport"
)

// DefaultKeepAlive is the default of Handler.KeepAlive.
const DefaultKeepAlive = 15 * time.Second

// A Handler serves a JSON-RPC server over Streamable HTTP (see the package
// documentation). The zero value of each field means its default. A
// Handler is safe for concurrent use; do not change its fields while it
// serves.
type Handler struct {
	// Server answers the requests. nil serves an empty method table, so
	// that every call is answered with "Method not found".
	Server transport.Handler

	// Protocol names the notifications by which a method reports progress
	// and the client cancels calls; the zero Protocol means mcp.Protocol(), the
	// protocol Streamable HTTP is the transport of.
	Protocol peer.Protocol

	// Limits bound the requests, the same as on every host (see
	// transport.Limits; the zero value means the defaults). Over Streamable
	// HTTP:
	//
	//   - MaxMessage bounds a request's body, as sent and inflated from
	//     gzip: a larger one is answered with 413.
	//   - MaxBuffered bounds the memory of the bodies larger than 64 KiB
	//     being read, over all requests together: past it, 503 with
	//     Retry-After.
	//   - MaxConns bounds the requests served at once (each a connection
	//     while its method runs, or a stream a GET carries): past it, 503
	//     with Retry-After; MaxConnsPerClient (half of MaxConns by
	//     default) those of one client (ClientKey): past it, 429 with
	//     Retry-After.
	//   - ReadTimeout bounds the reading of a body (408), and WriteTimeout
	//     each write of an answer or an event; a client that does not
	//     read its stream is disconnected, and its method cancelled.
	//   - MaxInFlight, MaxQueued, MaxPush, MaxPushBytes and
	//     MaxSubscriptions bound each request's connection, as on a
	//     stream; IdleTimeout does not apply: a request's connection ends
	//     with its answer.
	transport.Limits

	// Budget, when set, is the budget of MaxBuffered's bytes that the
	// handler shares with other hosts (see transport.Budget), so that all of
	// them together hold at most its Max; MaxBuffered is then not used.
	Budget *transport.Budget

	// KeepAlive is how often an event stream that has sent nothing for
	// that long gets a comment line, so that proxies and clients keep it
	// open while a method runs; a client that takes event streams gets
	// one once its method has run that long without answering. 0 means
	// DefaultKeepAlive (15 s); a negative value sends none.
	KeepAlive time.Duration

	// AllowedOrigins are the values of the Origin header accepted beside
	// the handler's own host (and a loopback origin when the request came
	// to a loopback host), such as "https://app.example.com"; "*" accepts
	// every origin. A request with another Origin is answered with 403. A
	// request without an Origin header, as non-browser clients send it, is
	// served.
	AllowedOrigins []string

	// AllowedHosts are the host names accepted in the Host header of a
	// request that came to a loopback address, beside localhost,
	// 127.0.0.0/8 and ::1 (another name means a page reached the server
	// through DNS rebinding: 403). A request that came to another address
	// is served whatever its Host.
	AllowedHosts []string

	// Logger, when set, logs at slog.LevelWarn each request the handler
	// refuses with a 4xx or 5xx status, with the client's address
	// ("remote"), the status ("status") and why ("error"), the refusals
	// of each request's connection (see peer.Options.Logger), and what
	// the EventStore failed to keep; at slog.LevelInfo shutdown progress.
	// nil logs nothing. A client decides how often requests are refused,
	// so the handler logs at most 10 records of one level and message in
	// 10 seconds, then one of how many it dropped (package ratelog; a
	// Logger whose handler was made by ratelog.New keeps its own bounds).
	// The records of a session's connection (SessionMethod) go to Logger
	// without these bounds.
	Logger *slog.Logger

	// Health, when set, has its probes answered at transport.LivePath
	// (/healthz) and transport.ReadyPath (/readyz), for a Handler served
	// at the root of its mux: a GET or HEAD of either is answered 200, or
	// 503 once the Health drains (see transport.Health), with a line of
	// text, before the Host and Origin checks. Shutdown drains it before
	// it refuses anything. nil: no probes.
	Health *transport.Health

	// ClientKey names the client of a request, by which the Server shares
	// the goroutines of its Blocking calls and the bytes of their request
	// copies between clients (jsonrpc.Limits.MaxRunningPerClient,
	// MaxHeldPerClient), as httprpc.Handler.ClientKey does; "" for none.
	// nil means the host of the request's RemoteAddr
	// (transport.ClientOfHostPort; behind a proxy, the proxy's: give the
	// key its headers carry). It names the client of a request served on
	// its own; the requests of a session run on the session's connection,
	// whose calls are of no client.
	ClientKey func(r *http.Request) string

	// Tokens, when set, verifies the bearer token of each request's
	// Authorization header (RFC 6750), and its Principal is the calls'
	// (jsonrpc.PrincipalOf). A request without a token is served only
	// when its HTTPS connection has a verified client certificate, whose
	// Principal is then the calls'; otherwise it is answered 401
	// Unauthorized with a WWW-Authenticate challenge of the Bearer
	// scheme (Bearer for no token, Bearer error="invalid_token" for a
	// token Tokens refuses), before anything else is read of it. nil
	// reads no Authorization header: only a client certificate
	// authenticates. TLS is the http.Server's (its TLSConfig, ServeTLS).
	//
	// A session's calls are those of the subject whose request began it,
	// with the Principal of that subject's latest request, so that a
	// token with more scopes, sent after a 403, takes effect in the
	// session (MCP's step-up authorization); a request of another
	// subject (or of none) that names the session is answered 404, as if
	// the id named no session. The subject is kept with the session in
	// the SessionStore, so that on another replica too only its requests
	// find it, and revive it with their Principal.
	Tokens transport.TokenVerifier

	// AllowAnonymous serves a request that bears neither a bearer token
	// nor a verified client certificate, with Tokens set, without a
	// Principal, instead of answering it 401: the Server's policies
	// decide (jsonrpc.RequireAuth, RequireScopes, Public), so that a
	// method declared Public answers anybody, and a request whose call
	// needs a Principal is answered 401 with the challenge (see the
	// package documentation). A token that Tokens refuses is answered
	// 401 still. A session begun anonymously is no one's.
	AllowAnonymous bool

	// ResourceMetadata, when set, is the metadata of the resource the
	// handler serves (RFC 9728), for clients that obtain tokens from an
	// OAuth authorization server (MCP's authorization): a GET of its
	// Path, or of transport.WellKnownResourcePath, is answered with it
	// before anything else is checked, and every WWW-Authenticate
	// challenge the handler sends names its URL as resource_metadata.
	// Mounted elsewhere than at the root of the paths, the handler does
	// not see those requests: mount the metadata there too.
	ResourceMetadata *transport.ResourceMetadata

	// MCP, when set, applies the Model Context Protocol's rules to each
	// request: both eras of MCP on one endpoint, decided per request,
	// sessions for the handshake era (see MCP). nil serves any JSON-RPC
	// server without them.
	MCP *MCP

	// SessionMethod, when set, gives the handler sessions (MCP
	// 2025-11-25's; always "initialize" under MCP): a POST of a request of
	// this method without an Mcp-Session-Id header begins a session, and
	// its answer carries the new id in Mcp-Session-Id; the requests that
	// carry it run on the session's connection (see the package
	// documentation, Sessions). Without MCP, a request without the header
	// is served on its own, as without sessions.
	SessionMethod string

	// MaxSessions bounds the sessions open at once; past it, a request
	// that would begin one is answered 503 with Retry-After. 0 means
	// DefaultMaxSessions (4096).
	MaxSessions int
	// MaxSessionsPerClient bounds the sessions of one client (ClientKey:
	// by default the IP address of the request that began it) open at
	// once, so that one client cannot take every session and lock the
	// others out; past it, a request of that client that would begin one
	// is answered 429 with Retry-After. 0 means half of MaxSessions (at
	// least 1); set it to MaxSessions to give no client a share of its
	// own.
	MaxSessionsPerClient int
	// SessionIdle ends a session that no request has used for that long,
	// while no call of its runs; 0 means DefaultSessionIdle (10 minutes),
	// a negative value never.
	SessionIdle time.Duration
	// NewSessionIdle is SessionIdle for a session that no request has used
	// since the one that began it (a client that sent initialize and
	// nothing more): 0 means DefaultNewSessionIdle (30 s), also when
	// SessionIdle is negative; a negative value means SessionIdle. It is
	// never longer than a positive SessionIdle.
	NewSessionIdle time.Duration
	// StreamIdle ends the response of a GET that carries a stream (the
	// session's GET stream, or a stream resumed with Last-Event-ID) when
	// no event has been sent on it for that long (keep-alive comments do
	// not count); the stream goes on, its events kept, and the client
	// opens it again with a GET (with Last-Event-ID to resume it), as the
	// retry field of its priming event tells it to. 0 means
	// DefaultStreamIdle (5 minutes), a negative value never.
	StreamIdle time.Duration
	// StreamLifetime ends the response of a GET that carries a stream
	// once it has been open that long, however busy, as StreamIdle ends
	// it; 0 means DefaultStreamLifetime (30 minutes), a negative value
	// never.
	StreamLifetime time.Duration
	// MaxStreams bounds the streams of a session kept at once: those of
	// its requests running, its GET stream, and the streams kept for a
	// client to resume (the oldest of which make room for a new one);
	// past it, a request is answered 503 with Retry-After. 0 means
	// DefaultMaxStreams (32).
	MaxStreams int
	// MaxEvents bounds the events kept per stream for resumption, when
	// EventStore is nil (the MemoryStore's MaxEvents); 0 means
	// DefaultMaxEvents (64).
	MaxEvents int
	// EventStore keeps the events of the sessions' streams for
	// resumption; nil means a MemoryStore that keeps MaxEvents events
	// and 1 MiB per stream (DefaultMaxEventBytes), and 64 MiB over all
	// streams (DefaultMaxKeptBytes). The handler keeps the events of a
	// call's stream until its answer is delivered, and those of a GET
	// stream only while they are not delivered (no request carries it).
	EventStore EventStore
	// Replica names this handler among the replicas of one service behind
	// a load balancer: each session id it mints is Replica, a '.', and 128
	// random bits in hex, so that the balancer sends the requests of a
	// session to the replica that holds it by the prefix of their
	// Mcp-Session-Id header (ReplicaOf; the nginx recipe of deploy/nginx
	// maps it to an upstream). It must be 1 to 64 ASCII letters, digits,
	// '-' or '_'; another value is refused when a session would begin
	// (503). "" mints ids without a prefix.
	Replica string
	// SessionStore, when set, keeps the sessions beyond the handler's
	// memory (see SessionStore): a request with an Mcp-Session-Id the
	// handler does not hold is looked up in it and, when found, revives
	// the session on a new connection, instead of 404. Give the replicas
	// one shared SessionStore and one shared EventStore, so that a stream
	// resumed with Last-Event-ID on a replica that did not carry it (or
	// that restarted) replays the events it missed. nil keeps the
	// sessions in the handler's memory only.
	SessionStore SessionStore
	// Retry is the reconnection delay a session's event stream tells its
	// client in its priming event (the retry field), for when the
	// connection ends before the stream does; 0 means DefaultRetry (1 s).
	Retry time.Duration
	// StoreTimeout bounds each wait for the SessionStore and the
	// EventStore, when they are not the package's own in-memory ones (a
	// Redis, say), so that a store that is slow or gone holds up no
	// request, session or stream for long: 0 means DefaultStoreTimeout
	// (500 ms). A call not answered in time goes on in the background
	// (64 at most under way), and after 3 failures in a row the handler
	// leaves the store alone for a second before one call tries it again.
	// An event not stored in time is written to its client all the same,
	// but not kept; what no request waits for (forgetting events,
	// deleting a session, saving a session in use again) runs in the
	// background. A request that needs the store then is answered 503
	// (see ErrStoreUnavailable).
	StoreTimeout time.Duration

	resave time.Duration // how often a session in use is saved again: 0 means sessionResave, < 0 at every request (tests)

	host transport.Host
	lazy httphost.Lazy // MaxBuffered's budget and Logger within ratelog's bounds, made on first use

	storeOnce sync.Once
	memStore  EventStore // the store when EventStore is nil
	guardOnce sync.Once
	grd       *guard // between the handler and its user's stores

	closing atomic.Bool // Shutdown or Close has begun

	smu      sync.Mutex // protects the fields below
	sessions map[string]*session
	clients  map[string]int // the sessions of each client, those of "" not counted
}

func (h *Handler) hasSessions() bool { return h.MCP != nil || h.SessionMethod != "" }

func (h *Handler) sessionMethod() string {
	if h.MCP != nil {
		return "initialize"
	}
	return h.SessionMethod
}

func (h *Handler) maxSessions() int {
	if h.MaxSessions > 0 {
		return h.MaxSessions
	}
	return DefaultMaxSessions
}

func (h *Handler) sessionIdle() time.Duration {
	if h.SessionIdle == 0 {
		return DefaultSessionIdle
	}
	return h.SessionIdle
}

func (h *Handler) maxSessionsPerClient() int {
	if h.MaxSessionsPerClient > 0 {
		return h.MaxSessionsPerClient
	}
	return max(h.maxSessions()/2, 1)
}

// newSessionIdle is the idle time of a session not used since it began.
func (h *Handler) newSessionIdle() time.Duration {
	d := h.sessionIdle()
	switch {
	case h.NewSessionIdle < 0:
		return d
	case h.NewSessionIdle == 0 && (d <= 0 || d > DefaultNewSessionIdle):
		return DefaultNewSessionIdle
	case h.NewSessionIdle == 0:
		return d
	case d <= 0:
		return h.NewSessionIdle
	}
	return min(d, h.NewSessionIdle)
}

// streamTimes are StreamIdle and StreamLifetime with their defaults; 0
// means none.
func (h *Handler) streamTimes() (idle, lifetime time.Duration) {
	idle, lifetime = h.StreamIdle, h.StreamLifetime
	if idle == 0 {
		idle = DefaultStreamIdle
	}
	if lifetime == 0 {
		lifetime = DefaultStreamLifetime
	}
	return max(idle, 0), max(lifetime, 0)
}

// sessionResave is how often a session in use is saved again in the
// SessionStore, at most: the store's TTL then counts from its last use,
// within that time.
const sessionResave = time.Minute

func (h *Handler) resaveEvery() time.Duration {
	if h.resave == 0 {
		return sessionResave
	}
	return h.resave
}

func (h *Handler) maxStreams() int {
	if h.MaxStreams > 0 {
		return h.MaxStreams
	}
	return DefaultMaxStreams
}

func (h *Handler) retry() time.Duration {
	if h.Retry > 0 {
		return h.Retry
	}
	return DefaultRetry
}

func (h *Handler) store() EventStore {
	if h.EventStore != nil {
		return h.EventStore
	}
	h.storeOnce.Do(func() { h.memStore = &MemoryStore{MaxEvents: h.MaxEvents} })
	return h.memStore
}

func (h *Handler) protocol() peer.Protocol {
	p := &h.Protocol
	if p.CancelMethod == "" && p.Preempt == nil && p.Codes == (jsonrpc.Codes{}) && !p.NullParams {
		return defaultProtocol()
	}
	return h.Protocol
}

// defaultProtocol is MCP's profile, made once: a Conn keeps its own copy
// of the fields, and none changes what the slices hold.
var defaultProtocol = sync.OnceValue(mcp.Protocol)

func (h *Handler) keepAlive(takesEvents bool) time.Duration {
	switch {
	case h.KeepAlive == 0 && takesEvents:
		return DefaultKeepAlive
	case h.KeepAlive < 0 || !takesEvents:
		return 0
	}
	return h.KeepAlive
}

// logger returns Logger within ratelog's bounds; nil when Logger is nil.
func (h *Handler) logger() *slog.Logger { return h.lazy.Logger(h.Logger) }

// budget returns the handler's MaxBuffered budget, of lim.MaxBuffered
// bytes (with its default applied).
func (h *Handler) budget(lim transport.Limits) *transport.Budget {
	if h.Budget != nil {
		return h.Budget
	}
	return h.lazy.Budget(lim.MaxBuffered, transport.Limits{}.WithDefaults().MaxBuffered)
}

// clientKey names r's client (ClientKey).
func (h *Handler) clientKey(r *http.Request) string {
	if h.ClientKey != nil {
		return h.ClientKey(r)
	}
	return transport.ClientOfHostPort(r.RemoteAddr)
}

// logf logs err at slog.LevelWarn, when the handler has a Logger.
func (h *Handler) logf(ctx context.Context, what string, err error) {
	if l := h.logger(); l != nil {
		l.LogAttrs(ctx, slog.LevelWarn, what, slog.String("error", err.Error()))
	}
}

// ServeHTTP answers one HTTP request as described in the package
// documentation.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if h.Health != nil && httphost.ServeProbe(w, r, h.Health) {
		return
	}
	if h.ResourceMetadata.Serves(r.URL.Path) {
		h.ResourceMetadata.ServeHTTP(w, r)
		return
	}
	if err := transport.CheckRequest(r, h.AllowedHosts, h.AllowedOrigins); err != nil {
		h.refuse(w, r, err.Error(), http.StatusForbidden)
		return
	}
	var principal *jsonrpc.Principal
	if h.Tokens != nil || r.TLS != nil {
		var challenge string
		var err error
		principal, challenge, err = httphost.Authenticate(r.Context(), h.Tokens, h.AllowAnonymous, r.Header.Get("Authorization"), r.TLS)
		if err != nil {
			if l := h.logger(); l != nil {
				l.LogAttrs(r.Context(), slog.LevelWarn, "request refused",
					slog.String("remote", r.RemoteAddr), slog.Int("status", http.StatusUnauthorized), slog.String("error", err.Error()))
			}
			httphost.Unauthorized(w, challenge, httphost.Metadata(h.ResourceMetadata))
			return
		}
	}
	switch {
	case r.Method == http.MethodPost:
		h.servePost(w, r, principal)
	case (r.Method == http.MethodGet || r.Method == http.MethodDelete) && h.hasSessions() && !(h.MCP != nil && modernHeader(r)):
		h.serveSession(w, r, principal)
	default:
		allow := http.MethodPost
		if h.hasSessions() && !(h.MCP != nil && modernHeader(r)) {
			allow = "GET, POST, DELETE"
		}
		w.Header().Set("Allow", allow)
		h.refuse(w, r, "streamhttp: method not allowed; use "+allow, http.StatusMethodNotAllowed)
	}
}

// servePost answers a POST.
func (h *Handler) servePost(w http.ResponseWriter, r *http.Request, principal *jsonrpc.Principal) {
	if !transport.IsJSONContentType(r.Header.Get("Content-Type")) {
		h.refuse(w, r, "streamhttp: unsupported Content-Type; use application/json", http.StatusUnsupportedMediaType)
		return
	}
	takesJSON, takesEvents := accepts(r.Header["Accept"])
	if !takesJSON && !takesEvents {
		h.refuse(w, r, "streamhttp: the client must accept application/json or text/event-stream", http.StatusNotAcceptable)
		return
	}
	lim := h.Limits.WithDefaults()
	client := h.clientKey(r)
	b := httphost.ClientBudget(h.budget(lim), client, r.ContentLength, r.Header.Get("Content-Encoding") != "", nil)
	body, taken, err := h.readBody(w, r, lim, b)
	defer b.Give(taken)
	if err != nil {
		h.bodyError(w, r, err, lim)
		return
	}
	srv := h.Server
	if srv == nil {
		srv = noMethods()
	}
	rc := httphost.WithRequest(r.Context(), r, client, principal)
	ctx := context.Context(rc)

	// The one scan of the request: it routes the request, and the Conn
	// that runs it, and the server behind, take it as it is.
	// Clipped, as the Conn and the server clip it: the spans of the scan
	// are found by their distance from its end.
	body = body[:len(body):len(body)]
	var sc wire.Scanned
	kind, err := sc.Classify(wire.Scanner{}, body)
	req := sc.Req()
	var status func([]byte) int
	if h.MCP != nil && err == nil {
		modern, ref := h.MCP.check(r, kind, req)
		if ref != nil {
			answer(w, ref.status, ref.body)
			return
		}
		if modern {
			status = statusOf
		}
	}
	if status == nil && h.hasSessions() && err == nil {
		if id := r.Header.Values("Mcp-Session-Id"); len(id) > 0 {
			s := (*session)(nil)
			if len(id) == 1 && validSessionID(id[0]) {
				var err error
				if s, err = h.lookup(id[0], lim, principal); err != nil {
					h.storeDown(w, r, kind, req, err)
					return
				}
			}
			if s == nil {
				h.refuse(w, r, "streamhttp: unknown or ended session", http.StatusNotFound)
				return
			}
			h.serveInSession(w, r, s, body, kind, req, takesJSON, takesEvents, lim, false)
			return
		}
		if kind == wire.MsgRequest && wire.NameIs(req.Method, h.sessionMethod()) {
			s, err := h.newSession(lim, h.clientKey(r), principal, nil)
			if err != nil {
				w.Header().Set("Retry-After", "1")
				status := http.StatusServiceUnavailable
				if err == errClientSessions {
					status = http.StatusTooManyRequests
				}
				h.refuse(w, r, err.Error(), status)
				return
			}
			h.serveInSession(w, r, s, body, kind, req, takesJSON, takesEvents, lim, true)
			return
		}
		if h.MCP != nil && kind == wire.MsgRequest {
			h.refuse(w, r, "streamhttp: Mcp-Session-Id header required (or an initialize request, or the _meta of MCP 2026-07-28)", http.StatusBadRequest)
			return
		}
	}
	switch {
	case err != nil:
		// Not JSON: the server's parse error, with 400.
		answer(w, http.StatusBadRequest, process(ctx, srv, h.protocol(), body))
	case kind == wire.MsgBatch || kind == wire.MsgResponses:
		answerJSON(w, process(ctx, srv, h.protocol(), body))
	case kind == wire.MsgRequest:
		h.serveRequest(ctx, rc, w, r, srv, &sc, takesJSON, takesEvents, lim, status)
	case kind == wire.MsgNotification || kind == wire.MsgResponse:
		// What the server has to say of a notification is nothing; a
		// response answers no request of this handler's, which makes
		// none.
		process(ctx, srv, h.protocol(), body)
		if ref := rc.Refused(); ref != nil {
			// A notification refused for who sent it.
			code, challenge := httphost.RefusalAnswer(ref, httphost.Metadata(h.ResourceMetadata))
			w.Header().Set("WWW-Authenticate", challenge)
			w.WriteHeader(code)
			return
		}
		w.WriteHeader(http.StatusAccepted)
	default:
		// An object that is neither: the server's invalid request.
		answer(w, http.StatusBadRequest, process(ctx, srv, h.protocol(), body))
	}
}

// serveRequest runs the request body on a connection of its own and
// writes what it sends: its answer alone, or an event stream.
func (h *Handler) serveRequest(ctx context.Context, rc *httphost.Request, w http.ResponseWriter, r *http.Request, srv transport.Handler, sc *wire.Scanned, takesJSON, takesEvents bool, lim transport.Limits, status func([]byte) int) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	keepAlive := h.keepAlive(takesEvents)
	x := &exchange{
		status:       status,
		rc:           rc,
		meta:         h.ResourceMetadata,
		w:            w,
		req:          sc.Msg(),
		sc:           *sc,
		ctx:          ctx,
		cancel:       cancel,
		events:       takesEvents,
		json:         takesJSON,
		keepAlive:    keepAlive,
		writeTimeout: max(lim.WriteTimeout, 0),
		answered:     make(chan struct{}),
	}
	if err := h.host.AddFrom(x, h.clientKey(r), lim.MaxConns, lim.MaxConnsPerClient); err != nil {
		h.hostRefusal(w, r, err)
		return
	}
	defer h.host.Remove(x)
	// The http.Server's WriteTimeout runs from the request's start: a
	// stream outlives it, each write bounded by WriteTimeout instead.
	http.NewResponseController(w).SetWriteDeadline(time.Time{})
	proto := h.protocol()
	var log *slog.Logger
	if l := h.logger(); l != nil {
		log = l.With(slog.String("remote", r.RemoteAddr))
	}
	// The request is all in hand (Traits.InputInHand): the Conn writes its
	// answer at once, from the goroutine that ran the call, even when the
	// Protocol makes it two-way.
	carrier := transport.Carrier{Conn: x, Traits: transport.Traits{InputInHand: true, Classified: (*jsonrpc.Request)(&x.sc)}}
	x.base.Context = ctx
	c := peer.New(&x.base, carrier, peer.Options{Server: srv, Protocol: proto, Limits: lim, Logger: log})
	c.Run(x.ended)
	if !x.returned {
		// A method ended this goroutine with runtime.Goexit: the Conn goes
		// on on another, which answers the call; net/http ends the
		// request when this one ends, and the answer has no way out.
		x.close()
	}
}

// hostRefusal answers a request that the handler's Host did not add
// (transport.Host.AddFrom): 503 at MaxConns or while shutting down, 429 at
// the client's share, each with Retry-After.
func (h *Handler) hostRefusal(w http.ResponseWriter, r *http.Request, err error) {
	w.Header().Set("Retry-After", "1")
	switch err {
	case transport.ErrHostClosed:
		h.refuse(w, r, "streamhttp: server shutting down", http.StatusServiceUnavailable)
	case transport.ErrClientFull:
		h.refuse(w, r, "streamhttp: too many requests at once from this client", http.StatusTooManyRequests)
	default:
		h.refuse(w, r, "streamhttp: too many requests at once", http.StatusServiceUnavailable)
	}
}

// process answers doc with the server, in the codes of proto, and
// returns the answer.
func process(ctx context.Context, srv transport.Handler, proto peer.Protocol, doc []byte) []byte {
	if proto.Codes != (jsonrpc.Codes{}) {
		ctx = jsonrpc.WithCodes(ctx, proto.Codes)
	}
	var out []byte
	done := make(chan struct{})
	httphost.Process(ctx, srv, nil, doc, func(resp []byte) {
		out = append(out, resp...)
		close(done)
	}, done, func(answer []byte) {
		if answer != nil {
			out = answer
		}
	})
	return out
}

// answerJSON writes a JSON answer with 200, or 202 when there is none.
func answerJSON(w http.ResponseWriter, resp []byte) {
	if len(resp) == 0 {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	answer(w, http.StatusOK, resp)
}

// storeDown answers a request that needs the SessionStore or the
// EventStore while it is unavailable (err, ErrStoreUnavailable): 503 with
// Retry-After, and for a call of kind (as classified; req its members)
// the JSON-RPC error StoreUnavailable in its id and the Shutdown code of
// the handler's Protocol, which a client retries as a shutdown's refusal.
func (h *Handler) storeDown(w http.ResponseWriter, r *http.Request, kind wire.MsgKind, req *wire.Request, err error) {
	w.Header().Set("Retry-After", "1")
	if kind != wire.MsgRequest {
		h.refuse(w, r, err.Error(), http.StatusServiceUnavailable)
		return
	}
	if l := h.logger(); l != nil {
		l.LogAttrs(r.Context(), slog.LevelWarn, "request refused",
			slog.String("remote", r.RemoteAddr), slog.Int("status", http.StatusServiceUnavailable), slog.String("error", err.Error()))
	}
	code := h.protocol().Codes.WithDefaults().Shutdown
	e := jsonrpc.NewError(code, StoreUnavailable).WithData("the session store did not answer: retry")
	answer(w, http.StatusServiceUnavailable, transport.AppendError(nil, e, req.ID))
}

// answer writes resp as an application/json body with status.
func answer(w http.ResponseWriter, status int, resp []byte) {
	hd := w.Header()
	hd.Set("Content-Type", "application/json")
	hd.Set("Content-Length", strconv.Itoa(len(resp)))
	w.WriteHeader(status)
	w.Write(resp)
}

// readBody reads r's body within the limits, the memory of a large one
// taken from b.
func (h *Handler) readBody(w http.ResponseWriter, r *http.Request, lim transport.Limits, b *transport.Budget) ([]byte, int64, error) {
	limit := int64(lim.MaxMessage)
	if lim.ReadTimeout > 0 && r.ContentLength != 0 {
		rc := http.NewResponseController(w)
		if rc.SetReadDeadline(time.Now().Add(lim.ReadTimeout)) == nil {
			defer rc.SetReadDeadline(time.Time{})
		}
	}
	switch strings.ToLower(strings.TrimSpace(r.Header.Get("Content-Encoding"))) {
	case "", "identity":
		return httphost.Read(nil, r.Body, r.ContentLength, limit, b)
	case "gzip", "x-gzip":
		return httphost.ReadGzip(nil, r.Body, r.ContentLength, limit, b)
	}
	return nil, 0, errCoding
}

var errCoding = errors.New("streamhttp: unsupported Content-Encoding; use gzip or identity")

// bodyError answers a body that could not be read.
func (h *Handler) bodyError(w http.ResponseWriter, r *http.Request, err error, lim transport.Limits) {
	if r.ProtoMajor == 1 {
		w.Header().Set("Connection", "close") // the body may be left unread
	}
	switch {
	case errors.Is(err, errCoding):
		w.Header().Set("Accept-Encoding", "gzip, identity")
		h.refuse(w, r, err.Error(), http.StatusUnsupportedMediaType)
	case errors.Is(err, httphost.ErrTooLarge):
		h.refuse(w, r, "streamhttp: request body larger than "+strconv.Itoa(lim.MaxMessage)+" bytes", http.StatusRequestEntityTooLarge)
	case errors.Is(err, httphost.ErrBusy):
		w.Header().Set("Retry-After", "1")
		h.refuse(w, r, "streamhttp: server busy with large requests; try again", http.StatusServiceUnavailable)
	case isTimeout(err):
		h.refuse(w, r, "streamhttp: timed out reading the request body", http.StatusRequestTimeout)
	default:
		h.refuse(w, r, "streamhttp: reading the request body: "+err.Error(), http.StatusBadRequest)
	}
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// refuse answers r with the status code and the text why, and logs it.
func (h *Handler) refuse(w http.ResponseWriter, r *http.Request, why string, code int) {
	if l := h.logger(); l != nil {
		l.LogAttrs(r.Context(), slog.LevelWarn, "request refused",
			slog.String("remote", r.RemoteAddr), slog.Int("status", code), slog.String("error", why))
	}
	http.Error(w, why, code)
}

// accepts reports whether the Accept header values take application/json
// and text/event-stream. No Accept header takes both, as HTTP says; */*
// takes JSON alone, so that a client that names no type gets the answer
// as one document.
func accepts(vals []string) (takesJSON, takesEvents bool) {
	if len(vals) == 0 {
		return true, true
	}
	if len(vals) == 1 {
		switch vals[0] { // what clients send, without parsing
		case "application/json, text/event-stream", "text/event-stream, application/json":
			return true, true
		case "application/json":
			return true, false
		case "text/event-stream":
			return false, true
		}
	}
	for _, v := range vals {
		for part := range strings.SplitSeq(v, ",") {
			mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
			if err != nil {
				continue
			}
			if q, ok := params["q"]; ok {
				if f, err := strconv.ParseFloat(q, 64); err != nil || f <= 0 {
					continue // not acceptable
				}
			}
			switch mt {
			case "application/json":
				takesJSON = true
			case "text/event-stream":
				takesEvents = true
			case "*/*", "application/*":
				takesJSON = true
			case "text/*":
				takesEvents = true
			}
		}
	}
	return takesJSON, takesEvents
}

// Shutdown stops the handler gracefully: from the moment it is called, a
// new request is answered with 503 and Retry-After, and it waits until the
// requests being served have been answered. If ctx ends first, it cancels
// the methods still running, ends their requests, and returns ctx's error.
// Call it before http.Server.Shutdown, with the same context: net/http
// waits for handlers, but does not cancel their methods.
func (h *Handler) Shutdown(ctx context.Context) error {
	h.Health.Drain()
	h.closing.Store(true)
	h.stopAll()
	err := h.host.Shutdown(ctx, h.logger())
	h.endAll(true)
	return err
}

// Close ends every request being served at once, cancelling its method,
// and answers the requests that come after it with 503.
func (h *Handler) Close() error {
	h.closing.Store(true)
	err := h.host.Close(h.logger())
	h.endAll(true)
	return err
}

// noMethods is the server of a Handler without one.
var noMethods = sync.OnceValue(func() transport.Handler { return jsonrpc.NewServer() })
