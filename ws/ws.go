// Package ws serves and calls JSON-RPC 2.0 over WebSocket: one JSON-RPC
// message (a request, a batch or a response) per WebSocket message. It uses
// github.com/coder/websocket.
//
// Serve a server with a Handler:
//
//	http.Handle("/ws", &ws.Handler{Server: srv})
//
// and call it with a client over Dial:
//
//	ch, err := ws.Dial(ctx, "ws://127.0.0.1:8080/ws", nil)
//	c := client.New(ch)
//
// Under GOOS=js, in a browser, Dial connects with the browser's WebSocket,
// and a Handler cannot serve: github.com/coder/websocket implements no
// server there, so every upgrade fails.
//
// # Two-way connections and ordering
//
// Each WebSocket a Handler serves is a peer.Conn: both ends may call each
// other on it. A method reaches the client through its context
// (peer.FromContext) and may notify it, or, when it is registered with
// jsonrpc.Blocking, call it and wait for the answer; the connection reads
// on meanwhile, so that the answer is not stuck behind the method that
// waits for it. A client answers such calls with client.Serve. With a
// Protocol (lsp.Protocol(), mcp.Protocol()) the connection also handles the client's
// cancel notifications, ahead of every message waiting to run, and
// methods report progress (peer.ProgressOf).
//
// Methods not registered Blocking run on the connection's reading
// goroutine, in order, at the cost of jsonrpc.Server.ProcessAsync. The
// Order says what happens while Blocking methods run on goroutines of
// their own: Ordered (the default) runs calls concurrently and
// notifications in order, Sequential runs one message at a time and
// answers in request order, and Concurrent runs everything at once; all
// three up to MaxInFlight.
//
// # Limits
//
// Every limit of a Handler is on by default, and each is a field whose zero
// value means its default. It serves at most MaxConns connections at once
// (4096): an upgrade request past them is answered with 503 Service
// Unavailable before any upgrade. A message may hold MaxMessage bytes
// (4 MiB): a longer one closes the connection with status 1009 (message too
// big), and is read only up to the limit; nothing is allocated from the
// length its frames declare. A connection with no call in flight that waits
// IdleTimeout (2 minutes) for a message is closed with status 1001 (going
// away), and one whose peer takes longer than ReadTimeout (30 s) to finish a
// message it has begun is closed with status 1008 (policy violation). At most
// MaxInFlight messages (64) of a connection run on goroutines of their own
// at once, and as many more wait to run; its reading pauses past that. A
// peer that does not take a message within WriteTimeout (30 s) is
// disconnected.
//
// The server's own limits (jsonrpc.Limits) bound the rest: MaxResponse
// (16 MiB) every answer, MaxBatch (1024) the requests of a batch, and
// MaxRunning (4096) the goroutines of Blocking calls for every connection
// together. On the client side, a channel from Dial reads messages of up to
// client.DefaultMaxMessage bytes (64 MiB), more than any answer a server
// with the default limits sends.
//
// A panicking method is answered with an internal error by the jsonrpc
// package; the connection goes on. So does a method that calls
// runtime.Goexit on the connection's reading goroutine (one not registered
// Blocking): each request of its message is answered with an internal
// error and the connection goes on on a new goroutine, while the goroutine
// that called ServeHTTP ends, as Goexit ends it.
//
// # Who is calling
//
// A connection's methods learn who is calling with jsonrpc.PrincipalOf,
// decided once, at the upgrade: the Principal of the bearer token that
// Handler.Tokens verified, or of the verified client certificate of a wss
// connection. TLS is the http.Server's; a client dials wss through the
// http.Client of its websocket.DialOptions:
//
//	opts := &websocket.DialOptions{
//		HTTPClient: &http.Client{Transport: &http.Transport{TLSClientConfig: tlsConfig}},
//		HTTPHeader: http.Header{"Authorization": {"Bearer " + token}},
//	}
//	ch, err := ws.Dial(ctx, "wss://example.com/ws", opts)
//
// # Shutdown
//
// Handler.Shutdown closes every connection gracefully: the calls in flight
// finish and are answered, requests that arrive meanwhile are answered with
// an error instead of being run, and the connection ends with the WebSocket
// close handshake (status 1001, going away), so that the peer reads every
// answer written before the close frame.
//
// # Pings
//
// A Handler pings each peer every PingInterval (30 s) and closes the
// connection with status 1011 (internal error, reason "ping timeout") when
// the peer does not answer within PongTimeout (15 s), so that a peer gone
// without closing, a machine asleep or a network path dropped, does not
// hold its connection and its goroutines until IdleTimeout, or for ever
// while a call is in flight. The WebSocket library reads a pong only while
// the connection is read, and a connection stops reading at MaxInFlight,
// or while a method not registered Blocking runs: only time in which a
// read is under way, and no message is being written, counts toward
// PongTimeout, so that a live peer is never closed for the server's own
// pause. A client answers pings while it reads; a client of this package
// reads all the time, unless methods of its own (client.Serve) hold its
// reading. A negative PingInterval or PongTimeout sends no pings.
// DialWith gives a client's channel pings of its server (Pings).
package ws

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/internal/httphost"
	"github.com/jsonrpc-go/jsonrpc/internal/ratelog"
	"github.com/jsonrpc-go/jsonrpc/peer"
	"github.com/jsonrpc-go/jsonrpc/protocol/enumerator"
	"github.com/jsonrpc-go/jsonrpc/transport"
)

// Handler serves a JSON-RPC server over WebSocket connections. Each
// connection is a peer.Conn: its messages are answered through
// Server.ProcessAsync, in the order Order says, and methods may call and
// notify the client over it (see the package documentation). Methods get
// the connection's context, cancelled when it closes, carrying the
// upgrade's *http.Request as the transport's context value, and who is
// calling (jsonrpc.PrincipalOf): the Principal that Tokens gave for the
// upgrade's bearer token, or else that of the verified client certificate
// of a wss connection (transport.TLSPrincipal), or nil; it is decided once,
// at the upgrade, and holds for the connection's life, which ends when it
// expires (Principal.Expiry): the connection is closed then with status
// 1008 (policy violation, reason "credentials expired"), for the client
// to connect again with new ones.
//
// The zero value of each field means its default. A Handler is safe for
// concurrent use by multiple goroutines; do not change its fields while it
// serves.
type Handler struct {
	// Server answers the requests. nil serves an empty method table, so
	// that every call is answered with "Method not found".
	Server transport.Handler

	// Order is how a connection runs its peer's messages: peer.Ordered
	// (the zero value), peer.Sequential or peer.Concurrent.
	Order peer.Ordering

	// Protocol names the notifications by which the two ends cancel calls
	// and report progress: lsp.Protocol(), mcp.Protocol(), or the zero Protocol (none).
	Protocol peer.Protocol

	// Limits bound the connections, the same on every host (see
	// transport.Limits; the zero value means the defaults). Over WebSocket:
	//
	//   - A message over MaxMessage closes the connection with status 1009
	//     (message too big). It is read only up to the limit, and nothing
	//     is allocated from the length its frames declare.
	//   - A message that would pass MaxBuffered closes its connection with
	//     status 1013 (try again later).
	//   - An upgrade request past MaxConns is answered with 503 Service
	//     Unavailable, before the upgrade; a connection's place frees when
	//     it ends.
	//   - IdleTimeout waits for the first frame of the next message;
	//     control frames (pings) do not count as messages. When it expires
	//     the connection is closed with status 1001 (going away): the
	//     server goes away from a peer that did nothing wrong and may
	//     connect again.
	//   - ReadTimeout runs from a message's first frame. A peer that takes
	//     longer is disconnected with status 1008 (policy violation): it
	//     broke the server's policy. Calls still in flight are cancelled,
	//     since their answers cannot follow the close frame.
	//   - WriteTimeout bounds the writing of one message (an answer, or a
	//     call or notification of a method's).
	//   - PingInterval spaces the pings of each peer; a peer that misses a
	//     pong for PongTimeout is disconnected with status 1011 (internal
	//     error, reason "ping timeout"), logged at Warn, and its calls in
	//     flight are cancelled. Only time in which the connection reads
	//     counts (see the package documentation, Pings).
	transport.Limits

	// Budget, when set, is the budget of MaxBuffered's bytes that the
	// handler shares with other hosts (see transport.Budget), so that all of
	// them together hold at most its Max; MaxBuffered is then not used.
	Budget *transport.Budget

	// Logger, when set, receives structured records of what the Handler
	// does, each connection's with its "remote" address: at
	// slog.LevelDebug a connection opened and closed; at slog.LevelWarn
	// an upgrade refused (credentials, MaxConns, shutting down), a connection closed
	// for a limit (MaxMessage, MaxBuffered, ReadTimeout, PongTimeout), and messages
	// refused (see peer.Options.Logger); at slog.LevelInfo shutdown
	// progress. nil logs nothing. Panics of methods are the Server's to
	// log (jsonrpc.UseLogger). A peer decides how often most of these
	// happen, so the Handler logs at most 10 records of one level and
	// message in 10 seconds, then one of how many it dropped (package
	// ratelog; a Logger whose handler was made by ratelog.New keeps its
	// own bounds).
	Logger *slog.Logger

	// Health, when set, has its probes answered at transport.LivePath
	// (/healthz) and transport.ReadyPath (/readyz), for a Handler served
	// at the root of its mux: a GET or HEAD of either that asks for no
	// upgrade is answered 200, or 503 once the Health drains (see
	// transport.Health), with a line of text. Shutdown drains it before it
	// refuses anything. nil: no probes.
	Health *transport.Health

	// ClientKey names the client of an upgrade request, for
	// Limits.MaxConnsPerClient; "" puts the connection in no client's
	// share. nil means the host of the request's RemoteAddr (behind a
	// proxy, the proxy's: give the key its headers carry, such as the
	// first address of X-Forwarded-For that the proxy sets). An upgrade
	// past its client's share is answered with 429 Too Many Requests and
	// Retry-After, before the upgrade.
	ClientKey func(r *http.Request) string

	// AllowedHosts are the host names accepted in the Host header of an
	// upgrade request that came to a loopback address, beside localhost,
	// the names under .localhost, 127.0.0.0/8 and ::1: another name means
	// that a web page reached the server through DNS rebinding, and is
	// answered with 403 before the upgrade (transport.CheckHost). nil
	// accepts the loopback names alone. A request that came to another
	// address is served whatever its Host.
	AllowedHosts []string

	// AllowedOrigins are the values of the Origin header accepted beside
	// the request's own host (and a loopback origin when the request came
	// to a loopback host), such as "https://app.example.com"; "*" accepts
	// every origin. An upgrade with another Origin, which only a browser
	// sends, is answered with 403 (transport.CheckOrigin); one without,
	// as other clients send it, is served. nil accepts same-origin pages
	// alone. When AcceptOptions sets OriginPatterns or InsecureSkipVerify,
	// those decide the origins instead.
	AllowedOrigins []string

	// AcceptOptions are passed to websocket.Accept (subprotocols,
	// compression, and its own origin checks, OriginPatterns, which then
	// replace AllowedOrigins). Nil accepts the origins of AllowedOrigins.
	AcceptOptions *websocket.AcceptOptions

	// Tokens, when set, verifies the bearer token of the upgrade request's
	// Authorization header (RFC 6750), and its Principal is the calls' of
	// the connection (jsonrpc.PrincipalOf). An upgrade without a token is
	// accepted only when its TLS connection has a verified client
	// certificate, whose Principal is then the calls'; otherwise it is
	// answered 401 Unauthorized with a WWW-Authenticate challenge of the
	// Bearer scheme, before the upgrade: Bearer for no token, Bearer
	// error="invalid_token" for a token Tokens refuses. nil reads no
	// Authorization header: only a client certificate authenticates.
	//
	// TLS (wss) is the http.Server's (its TLSConfig, ServeTLS): to take
	// client certificates, give its tls.Config the ClientCAs to verify
	// them with and a ClientAuth that verifies them. A client dials wss
	// with Dial's websocket.DialOptions.HTTPClient, whose Transport has
	// the TLSClientConfig; and sends a token with its HTTPHeader.
	Tokens transport.TokenVerifier

	// AllowAnonymous accepts an upgrade that bears neither a bearer token
	// nor a verified client certificate, with Tokens set, as a
	// connection without a Principal, instead of answering it 401: the
	// Server's policies decide each call (jsonrpc.RequireAuth,
	// RequireScopes, Public), answering a call that needs a Principal
	// with Codes.Unauthenticated. A token that Tokens refuses is answered
	// 401 still.
	AllowAnonymous bool

	// ResourceMetadata, when set, is the metadata of the resource the
	// handler serves (RFC 9728): a GET of its Path, or of
	// transport.WellKnownResourcePath, is answered with it before
	// anything else is checked, and the challenge of a 401 names its URL
	// as resource_metadata. Mounted elsewhere than at the root of the
	// paths, the handler does not see those requests: mount the metadata
	// there too.
	ResourceMetadata *transport.ResourceMetadata

	host     transport.Host    // the connections, and their shutdown
	once     sync.Once         // makes buffered
	buffered *transport.Budget // MaxBuffered
	log      *slog.Logger      // Logger within ratelog's bounds, made by once
}

// Close status reasons.
const (
	reasonShutdown    = "server shutting down"
	reasonIdle        = "idle timeout"
	reasonReadTimeout = "read timeout"
	reasonBusy        = "too many large messages at once"
	reasonClientFull  = "too many connections from this client"
	reasonExpired     = "credentials expired"
)

// Shutdown stops the handler gracefully. From the moment it is called,
// upgrade requests are refused with 503 Service Unavailable. Each connection
// goes on reading, and answers each message it reads from then on without
// running it: a request with an id gets an error with that id, code
// jsonrpc.CodeLimitExceeded (-32005) and data ShutdownData ("server shutting
// down"); a batch gets an array of such errors, one for each request with an
// id (a batch of more than 1024 requests, jsonrpc's default MaxBatch, gets
// one error with id null); a notification gets nothing. Requests read
// before and still waiting to run are answered the same way (under
// peer.Sequential ordering, in their turn). A two-way connection (one with
// a Protocol, or whose methods have called the client) goes on handling
// the answers to its calls and the cancel notifications, and answers the
// requests that have an id as peer.Conn.Shutdown does: a message that is
// not JSON, or holds no request with an id, gets nothing. The calls in
// flight finish and their answers are written; once a connection has
// nothing in flight and has received nothing for 50 ms (so that the
// messages its peer sent before the shutdown, on their way or held by the
// socket, are read and answered too), it is closed with the close
// handshake and status 1001 (going away), so that the peer receives every
// answer before the connection ends. Messages that arrive after the close
// frame are not answered, as the protocol requires; a client sees the close
// frame and fails their calls.
//
// Shutdown returns nil once every connection has ended. If ctx ends first,
// it cancels the contexts of the calls still running, closes the remaining
// connections at once, and returns ctx's error, without waiting for methods
// that ignore their context. Call it before http.Server.Shutdown, with the
// same context: net/http does not track WebSocket connections.
func (h *Handler) Shutdown(ctx context.Context) error {
	h.Health.Drain()
	return h.host.Shutdown(ctx, h.Logger)
}

// admit registers a new connection of the client that r comes from, or
// returns why it is refused.
func (h *Handler) admit(r *http.Request) (*wsConn, string) {
	lim := h.Limits.WithDefaults()
	h.once.Do(func() { h.init(lim) })
	c := &wsConn{
		buffered:     h.buffered,
		limits:       lim,
		limit:        int64(lim.MaxMessage),
		writeTimeout: max(lim.WriteTimeout, 0),
		closeDone:    make(chan struct{}),
	}
	c.pings = newPinger(lim.PingInterval, lim.PongTimeout, c.missedPong)
	c.timer = time.AfterFunc(time.Hour, c.expire)
	c.timer.Stop()
	c.clock = transport.NewReadClock(c.setReadDeadline, lim.IdleTimeout, lim.ReadTimeout)
	client := transport.ClientOfHostPort(r.RemoteAddr)
	if h.ClientKey != nil {
		client = h.ClientKey(r)
	}
	c.client = client
	c.buffered = h.buffered.Client(client) // its share of the budget
	switch h.host.AddFrom(c, client, lim.MaxConns, lim.MaxConnsPerClient) {
	case transport.ErrHostClosed:
		return nil, reasonShutdown
	case transport.ErrHostFull:
		return nil, "too many connections"
	case transport.ErrClientFull:
		return nil, reasonClientFull
	}
	return c, ""
}

// init makes the handler's budget and logger; once runs it.
func (h *Handler) init(lim transport.Limits) {
	h.buffered = h.Budget
	if h.buffered == nil {
		h.buffered = transport.NewBudget(lim.MaxBuffered)
	}
	h.log = ratelog.Wrap(h.Logger)
}

// skipOrigin are the AcceptOptions of an upgrade whose Origin the handler
// has checked itself (AllowedOrigins).
var skipOrigin = &websocket.AcceptOptions{InsecureSkipVerify: true}

// checkOrigin checks r's Host and Origin, and returns the options of its
// upgrade: AcceptOptions, or, when they leave the origins to the handler,
// options that do not check them again.
func (h *Handler) checkOrigin(r *http.Request) (*websocket.AcceptOptions, error) {
	o := h.AcceptOptions
	local, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if err := transport.CheckHost(local, r.Host, h.AllowedHosts); err != nil {
		return nil, err
	}
	if o != nil && (len(o.OriginPatterns) > 0 || o.InsecureSkipVerify) {
		return o, nil // websocket.Accept checks them
	}
	if err := transport.CheckOrigin(r.Header.Get("Origin"), r.Host, h.AllowedOrigins); err != nil {
		return nil, err
	}
	if o == nil {
		return skipOrigin, nil
	}
	c := *o
	c.InsecureSkipVerify = true
	return &c, nil
}

// release removes an ended connection.
func (h *Handler) release(c *wsConn) { h.host.Remove(c) }

// ServeHTTP upgrades the request to a WebSocket connection and serves it
// until the peer closes it, a limit or an error ends it, or the handler
// shuts down. It answers 503 Service Unavailable, without upgrading, when
// MaxConns connections are open or the handler is shutting down.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if h.Health != nil && r.Header.Get("Upgrade") == "" && httphost.ServeProbe(w, r, h.Health) {
		return
	}
	if h.ResourceMetadata.Serves(r.URL.Path) && r.Header.Get("Upgrade") == "" {
		h.ResourceMetadata.ServeHTTP(w, r)
		return
	}
	opts, err := h.checkOrigin(r)
	if err != nil {
		h.once.Do(func() { h.init(h.Limits.WithDefaults()) })
		if h.log != nil {
			h.log.LogAttrs(r.Context(), slog.LevelWarn, "upgrade refused", slog.String("remote", r.RemoteAddr), slog.String("reason", err.Error()))
		}
		http.Error(w, err.Error(), http.StatusForbidden)
		return
	}
	var principal *jsonrpc.Principal
	if h.Tokens != nil || r.TLS != nil {
		var challenge string
		principal, challenge, err = httphost.Authenticate(r.Context(), h.Tokens, h.AllowAnonymous, r.Header.Get("Authorization"), r.TLS)
		if err != nil {
			h.once.Do(func() { h.init(h.Limits.WithDefaults()) })
			if h.log != nil {
				h.log.LogAttrs(r.Context(), slog.LevelWarn, "upgrade refused", slog.String("remote", r.RemoteAddr), slog.String("reason", err.Error()))
			}
			httphost.Unauthorized(w, challenge, httphost.Metadata(h.ResourceMetadata))
			return
		}
	}
	c, refused := h.admit(r)
	if c == nil {
		if h.log != nil {
			h.log.LogAttrs(r.Context(), slog.LevelWarn, "upgrade refused", slog.String("remote", r.RemoteAddr), slog.String("reason", refused))
		}
		status := http.StatusServiceUnavailable
		if refused == reasonClientFull {
			status = http.StatusTooManyRequests
		}
		w.Header().Set("Retry-After", "1")
		http.Error(w, refused, status)
		return
	}
	var aw http.ResponseWriter = w
	rec := recordHijack(w)
	if rec != nil {
		aw = rec
	}
	conn, err := websocket.Accept(aw, r, opts)
	if err != nil {
		h.release(c) // Accept has answered the request
		return
	}
	var netConn net.Conn
	if rec != nil {
		netConn = rec.conn
	}
	conn.SetReadLimit(c.limit)
	// The connection's context has the request's values, and ends with
	// the request's context while this goroutine serves. It is not the
	// request's context itself, which net/http cancels when this goroutine
	// ends: a method that ends it with runtime.Goexit leaves the
	// connection to a goroutine of its own (see peer.Conn.Run).
	ctx, cancel := context.WithCancel(transport.WithContextValues(context.WithoutCancel(r.Context()), r, c.client, principal))
	watch := context.AfterFunc(r.Context(), cancel)
	var log *slog.Logger
	if h.log != nil {
		log = h.log.With(slog.String("remote", r.RemoteAddr))
		log.LogAttrs(ctx, slog.LevelDebug, "connection opened")
	}
	c.log = log
	p := peer.New(enumerator.Enable(ctx), transport.Carrier{Conn: c, Traits: transport.Traits{Clock: c.clock}}, peer.Options{
		Logger:   log,
		Server:   h.Server,
		Order:    h.Order,
		Protocol: h.Protocol,
		Limits:   c.limits,
	})
	if !c.attach(ctx, cancel, conn, netConn, p) {
		watch()
		cancel()
		conn.CloseNow()
		h.release(c)
		return
	}
	expire := func() bool { return false }
	if principal != nil && !principal.Expiry.IsZero() {
		// Its credentials end the connection when they expire.
		t := time.AfterFunc(time.Until(principal.Expiry), func() { c.startClose(websocket.StatusPolicyViolation, reasonExpired) })
		expire = t.Stop
	}
	returned := false
	defer func() {
		if !returned {
			watch() // runtime.Goexit: the connection outlives the request's context
		}
	}()
	p.Run(func(error) {
		expire()
		c.finish()
		watch()
		h.release(c)
	})
	returned = true
}

// ShutdownData is the data member of the error that answers a request a
// Handler received but did not start because it was shutting down; the
// error's code is jsonrpc.CodeLimitExceeded, unless the Handler's
// Protocol gives the refusal a code of its own.
const ShutdownData = "server shutting down"
