// Package httprpc serves a *jsonrpc.Server over HTTP with net/http: one
// JSON-RPC request document per POST.
//
//	http.Handle("/rpc", &httprpc.Handler{Server: srv})
//
// See Handler for the protocol, the limits and session routing. Package
// fasthttprpc serves the same protocol on fasthttp.
package httprpc

import (
	"errors"
	"log/slog"
	"net/http"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/internal/httphost"
	"github.com/jsonrpc-go/jsonrpc/transport"
)

// DefaultMaxBody is the default limit, in bytes, of the body of a request:
// 4 MiB. See Handler.MaxBody.
const DefaultMaxBody = 4 << 20

// DefaultMaxBuffered is the default bound of the memory that bodies larger
// than 64 KiB hold while they are read: 64 MiB. See Handler.MaxBuffered.
const DefaultMaxBuffered = 64 << 20

// DefaultReadTimeout is the default bound of the time to read the body of a
// request: 30 seconds. See Handler.ReadTimeout.
const DefaultReadTimeout = 30 * time.Second

// Handler serves a *jsonrpc.Server over HTTP, one JSON-RPC request document
// per POST. Its fields configure it; the zero value of each field but Server
// gives the default.
//
//	http.Handle("/rpc", &httprpc.Handler{Server: srv}) // every default
//	http.Handle("/rpc/", &httprpc.Handler{
//		Server:  transport.SessionRouter(srv, sessions, "/rpc/"), // POST /rpc/{session id}
//		MaxBody: 1 << 20,
//	})
//
// # Protocol
//
// A request is a POST whose body is one request object or a batch. The
// answers, in the order they are checked:
//
//   - 403 Forbidden: a request that came to a loopback address with a
//     Host that is no loopback name nor one of AllowedHosts, or with the
//     Origin of a browser page of another host not in AllowedOrigins
//     (transport.CheckHost, transport.CheckOrigin), so that a web page
//     cannot call a server on the machine's loopback through DNS
//     rebinding.
//   - 401 Unauthorized, with a WWW-Authenticate challenge of the Bearer
//     scheme (RFC 6750): with Tokens set, a request that bears neither a
//     bearer token nor a verified client certificate (challenge
//     Bearer), or whose token Tokens refuses (Bearer
//     error="invalid_token"). It comes before the path is routed, so
//     that nobody learns which sessions exist without credentials.
//   - 404 Not Found: a path that the Server, a transport.Router, refuses
//     (transport.SessionRouter: a path outside its prefix, or an id that
//     names no session).
//   - 405 Method Not Allowed, with "Allow: POST": any method but POST.
//   - 415 Unsupported Media Type: a Content-Type other than
//     application/json, application/json-rpc or application/jsonrequest
//     (compared case-insensitively, with optional parameters; a charset
//     parameter must be utf-8), or none at all. Requiring the type keeps
//     cross-origin web pages from sending requests without a CORS preflight,
//     which they can do with no Content-Type or with text/plain.
//   - 415 Unsupported Media Type, with Accept-Encoding: a Content-Encoding
//     other than gzip (or x-gzip) and identity, or gzip with RefuseGzip set.
//   - 413 Request Entity Too Large: a body over MaxBody. A Content-Length
//     over the limit is answered before any of the body is read; a body of
//     unknown length (chunked, or HTTP/2 without Content-Length) is read
//     through http.MaxBytesReader and is answered as soon as the limit is
//     passed, never read in full. Over HTTP/1 the connection is closed
//     after a 413.
//   - 503 Service Unavailable, with Retry-After: the body would pass
//     MaxBuffered, the memory that the bodies being read may hold; a
//     declared length that would not fit is answered before any of the
//     body is read. Over HTTP/1 the connection is closed after it.
//   - 408 Request Timeout: the body was not read within ReadTimeout. The
//     connection is closed after it (over HTTP/1).
//   - 400 Bad Request: the body could not be read (a broken chunked
//     encoding, a client that went away, a body that is not valid gzip).
//   - 200 OK with Content-Type application/json and the response as body
//     (compressed with gzip, with Content-Encoding and Vary, when the
//     client accepts gzip and the response has CompressMin bytes or more),
//     for a request or a batch that has a response. JSON-RPC errors,
//     including a parse error and an invalid request, are answered this way
//     too: the HTTP status says that the document was received, the error
//     object says what became of it.
//   - 401 Unauthorized or 403 Forbidden with the answer as body (none for
//     a notification): a request of one call that the Server refused for
//     who is calling (jsonrpc.RequireScopes, RequireAuth, CheckScopes),
//     with the WWW-Authenticate challenge of RFC 6750: 401 and Bearer
//     when the call needs a Principal and the request has none (with
//     AllowAnonymous), 403 and Bearer error="insufficient_scope",
//     scope="..." naming the scopes the call requires when its Principal
//     lacks one. A batch is answered 200, each element refused so with
//     its error object.
//   - 204 No Content with an empty body: a notification, or a batch of
//     notifications only, which have no response.
//
// The 4xx answers carry a short text/plain body.
//
// A gzip body is decompressed as it is read, MaxBody bounding both the
// bytes sent and the bytes they inflate to; a body that is not valid gzip
// is answered with 400. Bodies that inflate past 64 KiB take turns, half
// of GOMAXPROCS at once, 256 KiB a turn, over all the handlers of the
// process (fasthttprpc's too), so that small bodies that inflate a
// thousandfold cannot hold every processor; a turn is let go while the
// body's bytes are awaited.
//
// # Methods
//
// Methods run with the request's context (r.Context()), which the net/http
// server cancels when the client goes away (closes the connection, or
// resets the HTTP/2 stream), carrying the *http.Request as
// the transport's context value: jsonrpc.CallOf(ctx).ContextValue().(*http.Request).
// jsonrpc.PrincipalOf(ctx) is who makes the request: the Principal that
// Tokens gave for its bearer token, or else that of the verified client
// certificate of an HTTPS connection (transport.TLSPrincipal), or nil.
// The document is answered with ProcessAsync, so that the calls of a batch
// to methods registered with Blocking run concurrently; the handler waits
// for the answer, and a method that ignores its context keeps the handler
// (and the client's request) waiting until it returns.
//
// A method that ends the handler's goroutine with runtime.Goexit (one not
// registered Blocking runs on it) has its calls answered with an internal
// error, as every host of the library answers them; net/http then closes
// the connection over HTTP/1, and resets the stream after the answer over
// HTTP/2.
//
// The body is read into a pooled buffer and the answer is written with one
// Write and a Content-Length; beyond the context that carries the request,
// the handler allocates nothing per request.
//
// A Handler is safe for concurrent use by multiple goroutines. Its fields
// must not be changed while it serves.
type Handler struct {
	// Server answers the requests. nil serves an empty method table, so
	// that every call is answered with "Method not found". A Server that
	// is a transport.Router picks the handler of each request by its URL
	// path (transport.SessionRouter routes to sessions); a path it
	// refuses is answered with 404 before the body is read. The path is
	// the one the handler sees (after any http.StripPrefix), decoded.
	Server transport.Handler

	// MaxBody is the largest request body accepted, in bytes; a larger one
	// is answered with 413. DefaultMaxBody when MaxBody <= 0.
	MaxBody int64

	// MaxBuffered bounds the memory that request bodies larger than 64 KiB
	// hold while they are read, over all the handler's requests together;
	// DefaultMaxBuffered (64 MiB) when MaxBuffered <= 0. A request whose
	// body would pass it is answered with 503 Service Unavailable and
	// Retry-After, so that clients that send large bodies slowly cannot
	// hold one MaxBody each for as long as the read timeout lets them.
	// Bodies up to 64 KiB, read into pooled buffers, do not count. The
	// fasthttp host (fasthttprpc.Handler.MaxBuffered) shares its code.
	MaxBuffered int64

	// Budget, when set, is the budget of MaxBuffered's bytes that the
	// handler shares with other hosts (see transport.Budget), so that all
	// of them together hold at most its Max; MaxBuffered is then not used.
	Budget *transport.Budget

	// ReadTimeout bounds the time to read a request's body, from when the
	// handler starts to read it; a body not read by then is answered with
	// 408. It protects a server whose http.Server has no ReadTimeout, under
	// which net/http reads a body for as long as the client takes to send
	// it, holding the handler and the body read so far. DefaultReadTimeout
	// when ReadTimeout is 0; a negative ReadTimeout leaves the deadline to
	// the http.Server. When the http.Server's own ReadTimeout is set and no
	// longer, the handler leaves the server's deadline, which started
	// earlier, in place.
	//
	// The deadline is set with the ResponseWriter's SetReadDeadline, as
	// http.ResponseController does (through Unwrap for a wrapped writer):
	// on the connection over HTTP/1 and on the stream over HTTP/2. It is
	// cleared once the body is read, so that it never ends a call. A
	// ResponseWriter without SetReadDeadline is served without it.
	ReadTimeout time.Duration

	// RefuseGzip answers a request whose body is compressed
	// (Content-Encoding gzip) with 415, as the handler answers every other
	// coding. By default a gzip body is decompressed as it is read, and
	// MaxBody applies to the decompressed size as well as to the body
	// sent, so that a small body that inflates past MaxBody is answered
	// with 413 as soon as it does.
	RefuseGzip bool

	// CompressMin is the smallest answer, in bytes, that is compressed
	// with gzip for a client whose Accept-Encoding accepts it; smaller
	// answers, and answers that compression would not make smaller, are
	// sent as they are. DefaultCompressMin when CompressMin is 0; a
	// negative CompressMin compresses no answer. Compression runs at
	// gzip.BestSpeed, in pooled writers.
	CompressMin int

	// Logger, when set, logs at slog.LevelWarn each request the handler
	// refuses with a 4xx or 5xx status (credentials refused, an unknown
	// session, a method other than POST, an unsupported type or coding, a body too large, too slow
	// or unreadable, MaxBuffered spent), with the client's address
	// ("remote"), the path ("path"), the status ("status") and why
	// ("error"). nil, the default, logs nothing. The jsonrpc.Server logs
	// what its methods do (jsonrpc.UseLogger); the http.Server, the
	// connections (http.Server.ConnState). A client decides how often
	// requests are refused, so the handler logs at most 10 records of one
	// level and message in 10 seconds, then one of how many it dropped
	// (package ratelog; a Logger whose handler was made by ratelog.New
	// keeps its own bounds).
	Logger *slog.Logger

	// Health, when set, has its probes answered at transport.LivePath
	// (/healthz) and transport.ReadyPath (/readyz): a GET or HEAD of
	// either is answered 200, or 503 once the Health drains (see
	// transport.Health), with a line of text, before any routing. nil:
	// those paths are JSON-RPC's as any other.
	Health *transport.Health

	// ClientKey names the client of a request, by which the Server shares
	// the goroutines of its Blocking calls and the bytes of their request
	// copies between clients (jsonrpc.Limits.MaxRunningPerClient,
	// MaxHeldPerClient); "" for none. nil means the host of the request's
	// RemoteAddr (transport.ClientOfHostPort; behind a proxy, the proxy's:
	// give the key its headers carry).
	ClientKey func(r *http.Request) string

	// AllowedHosts are the host names accepted in the Host header of a
	// request that came to a loopback address, beside localhost, the
	// names under .localhost, 127.0.0.0/8 and ::1: another name means
	// that a web page reached the server through DNS rebinding, and is
	// answered with 403 (transport.CheckHost). Name here the names by
	// which a proxy on the same machine is reached, when it passes the
	// client's Host on. A request that came to another address is served
	// whatever its Host. nil accepts the loopback names alone.
	AllowedHosts []string

	// AllowedOrigins are the values of the Origin header accepted beside
	// the request's own host (and a loopback origin when the request came
	// to a loopback host), such as "https://app.example.com"; "*" accepts
	// every origin. A request with another Origin, which only a browser
	// sends, is answered with 403 (transport.CheckOrigin); a request
	// without one, as other clients send it, is served. nil accepts
	// same-origin pages alone.
	AllowedOrigins []string

	// Tokens, when set, verifies the bearer token of each request's
	// Authorization header (RFC 6750), and its Principal is the calls'
	// (jsonrpc.PrincipalOf). A request without a token is served only
	// when its HTTPS connection has a verified client certificate, whose
	// Principal is then the calls'; otherwise it is answered 401, as is
	// a request whose token Tokens refuses (see Protocol). nil reads no
	// Authorization header: only a client certificate authenticates, and
	// a request without one is anonymous.
	//
	// TLS is the http.Server's (its TLSConfig, ServeTLS): to take client
	// certificates, give its tls.Config the ClientCAs to verify them with
	// and a ClientAuth that verifies them (tls.VerifyClientCertIfGiven,
	// or tls.RequireAndVerifyClientCert to refuse a client without one).
	Tokens transport.TokenVerifier

	// AllowAnonymous serves a request that bears neither a bearer token
	// nor a verified client certificate, with Tokens set, without a
	// Principal, instead of answering it 401: the Server's policies
	// decide (jsonrpc.RequireAuth, RequireScopes, Public), so that a
	// method declared Public answers anybody, and a single request whose
	// call needs a Principal is answered 401 with the challenge (see
	// Protocol). A token that Tokens refuses is answered 401 still.
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

	lazy httphost.Lazy // MaxBuffered's budget and Logger within ratelog's bounds, made on first use
}

// logger returns Logger within ratelog's bounds; nil when Logger is nil.
func (h *Handler) logger() *slog.Logger { return h.lazy.Logger(h.Logger) }

// budget returns the handler's MaxBuffered budget.
func (h *Handler) budget() *transport.Budget {
	if h.Budget != nil {
		return h.Budget
	}
	return h.lazy.Budget(h.MaxBuffered, DefaultMaxBuffered)
}

// ServeHTTP answers one HTTP request as described in Handler's
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
			h.logRefusal(r, err.Error(), http.StatusUnauthorized)
			httphost.Unauthorized(w, challenge, httphost.Metadata(h.ResourceMetadata))
			return
		}
	}
	srv, ok := route(h.Server, r.URL.Path)
	if !ok {
		h.refuse(w, r, "jsonrpc: no such session", http.StatusNotFound)
		return
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		h.refuse(w, r, "jsonrpc: method not allowed; use POST", http.StatusMethodNotAllowed)
		return
	}
	if !transport.IsJSONContentType(r.Header.Get("Content-Type")) {
		h.refuse(w, r, "jsonrpc: unsupported Content-Type; use application/json", http.StatusUnsupportedMediaType)
		return
	}
	coding := requestCoding(r.Header["Content-Encoding"])
	if coding == unsupported || coding == gzipped && h.RefuseGzip {
		accept := "gzip, identity"
		if h.RefuseGzip {
			accept = "identity"
		}
		w.Header().Set("Accept-Encoding", accept)
		h.refuse(w, r, "jsonrpc: unsupported Content-Encoding; use "+accept, http.StatusUnsupportedMediaType)
		return
	}
	limit := h.MaxBody
	if limit <= 0 {
		limit = DefaultMaxBody
	}
	if r.ContentLength > limit {
		if r.ProtoMajor == 1 {
			// The body stays unread. Closing the connection after the
			// answer keeps net/http from reading the body before it
			// answers, to reuse the connection.
			w.Header().Set("Connection", "close")
		}
		h.bodyTooLarge(w, r, limit)
		return
	}
	body := r.Body
	if r.ContentLength < 0 {
		body = http.MaxBytesReader(w, body, limit)
	}
	deadline := h.readDeadline(w, r)

	x := httpExchanges.Get().(*httpExchange)
	client := transport.ClientOfHostPort(r.RemoteAddr)
	if h.ClientKey != nil {
		client = h.ClientKey(r)
	}
	b := httphost.ClientBudget(h.budget(), client, r.ContentLength, coding == gzipped, &x.last)
	var (
		req   []byte
		taken int64
		err   error
	)
	if coding == gzipped {
		req, taken, err = httphost.ReadGzip(x.buf[:0], body, r.ContentLength, limit, b)
	} else {
		req, taken, err = httphost.Read(x.buf[:0], body, r.ContentLength, limit, b)
	}
	defer b.Give(taken) // once the answer is written and the buffer let go
	x.buf = req
	if deadline != nil {
		deadline.SetReadDeadline(time.Time{})
	}
	if err != nil {
		putExchange(x)
		var tooLarge *http.MaxBytesError
		switch {
		case errors.Is(err, httphost.ErrBusy):
			if r.ProtoMajor == 1 {
				w.Header().Set("Connection", "close") // the body stays unread
			}
			w.Header().Set("Retry-After", "1")
			h.refuse(w, r, "jsonrpc: server busy with large requests; try again", http.StatusServiceUnavailable)
		case errors.As(err, &tooLarge) || errors.Is(err, httphost.ErrTooLarge):
			if coding == gzipped && r.ProtoMajor == 1 {
				w.Header().Set("Connection", "close") // the body stays unread
			}
			h.bodyTooLarge(w, r, limit)
		case errors.Is(err, os.ErrDeadlineExceeded):
			if r.ProtoMajor == 1 {
				w.Header().Set("Connection", "close")
			}
			h.refuse(w, r, "jsonrpc: timed out reading the request body", http.StatusRequestTimeout)
		default:
			h.refuse(w, r, "jsonrpc: reading the request body: "+err.Error(), http.StatusBadRequest)
		}
		return
	}
	x.w = w
	x.compressMin = 0
	if h.CompressMin >= 0 && acceptsGzip(r.Header["Accept-Encoding"]) {
		x.compressMin = h.CompressMin
		if x.compressMin == 0 {
			x.compressMin = DefaultCompressMin
		}
	}
	x.http1 = r.ProtoMajor == 1
	rc := httphost.WithRequest(r.Context(), r, client, principal)
	x.rc, x.single, x.meta = rc, httphost.Single(req), h.ResourceMetadata
	// The answer is appended to the room after the request.
	httphost.Process(rc, srv, req[len(req):], req, x.reply, x.done, x.abandoned)
	if x.refused != 0 {
		h.logRefusal(r, "jsonrpc: call refused for who is calling", x.refused)
	}
	x.w, x.rc, x.meta, x.refused = nil, nil, nil, 0
	putExchange(x)
}

// readDeadliner is what http.ResponseController looks for to set a read
// deadline, and rwUnwrapper what it follows to the writer that has it.
type (
	readDeadliner interface{ SetReadDeadline(time.Time) error }
	rwUnwrapper   interface{ Unwrap() http.ResponseWriter }
)

// readDeadline sets the deadline of reading r's body (see
// Handler.ReadTimeout) and returns what it was set on, to be cleared when
// the body is read; nil when none was set. It follows
// http.ResponseController's rules without its error values, which would
// allocate for writers that have no deadline.
func (h *Handler) readDeadline(w http.ResponseWriter, r *http.Request) readDeadliner {
	d := h.ReadTimeout
	if d < 0 || r.ContentLength == 0 {
		// No body: net/http is already reading ahead on the connection,
		// and a deadline there would end it.
		return nil
	}
	if d == 0 {
		d = DefaultReadTimeout
	}
	if hs, ok := r.Context().Value(http.ServerContextKey).(*http.Server); ok && hs.ReadTimeout > 0 && hs.ReadTimeout <= d {
		return nil
	}
	for {
		switch t := w.(type) {
		case readDeadliner:
			if t.SetReadDeadline(time.Now().Add(d)) != nil {
				return nil
			}
			return t
		case rwUnwrapper:
			w = t.Unwrap()
		default:
			return nil
		}
	}
}

// bodyTooLarge answers 413.
func (h *Handler) bodyTooLarge(w http.ResponseWriter, r *http.Request, limit int64) {
	h.refuse(w, r, "jsonrpc: request body larger than "+strconv.FormatInt(limit, 10)+" bytes", http.StatusRequestEntityTooLarge)
}

// refuse answers r with the status code and the text why, and logs it.
func (h *Handler) refuse(w http.ResponseWriter, r *http.Request, why string, code int) {
	h.logRefusal(r, why, code)
	http.Error(w, why, code)
}

// logRefusal logs that r is answered with the status code, for the reason
// why.
func (h *Handler) logRefusal(r *http.Request, why string, code int) {
	if l := h.logger(); l != nil {
		l.LogAttrs(r.Context(), slog.LevelWarn, "request refused",
			slog.String("remote", r.RemoteAddr), slog.String("path", r.URL.Path), slog.Int("status", code), slog.String("error", why))
	}
}

// maxHTTPBuffer is the largest buffer the pool keeps: bodies larger than
// that are served, but their buffers are dropped afterwards.
const maxHTTPBuffer = transport.SmallMessage

// httpExchange is the per-request state of Handler, pooled so that a
// request allocates only its context (TestHandlerAllocs): the
// body buffer (the answer is appended after the request when it fits), the
// reply callback, bound once, and the channel it signals.
type httpExchange struct {
	buf         []byte
	w           http.ResponseWriter
	rc          *httphost.Request // the calls' context: the server's refusals
	single      bool              // the request is one object, not a batch
	refused     int               // the status of a single request's call refused for who calls; 0 for none
	http1       bool              // the request came over HTTP/1
	compressMin int               // the smallest answer compressed; 0: none is
	reply       func([]byte)      // x.write, bound when x is made
	abandoned   func([]byte)      // x.goexit, bound when x is made
	done        chan struct{}     // capacity 1: reply never waits for the handler
	last        httphost.LastView // the view of a budget for a client made last

	meta *transport.ResourceMetadata // what the challenge of a refusal names
}

// httpExchanges pools httpExchange values; buffers over maxHTTPBuffer are not
// put back.
var httpExchanges = sync.Pool{New: func() any {
	x := &httpExchange{buf: make([]byte, 0, 4096), done: make(chan struct{}, 1)}
	x.reply = x.write
	x.abandoned = x.goexit
	return x
}}

func putExchange(x *httpExchange) {
	if cap(x.buf) > maxHTTPBuffer {
		return
	}
	httpExchanges.Put(x)
}

// write is the ProcessAsync reply: it writes the answer and then signals
// the handler, which is waiting and does not touch x until then.
func (x *httpExchange) write(resp []byte) {
	w := x.w
	if x.single {
		if ref := x.rc.Refused(); ref != nil {
			// A single request whose call was refused for who calls:
			// the status and challenge of RFC 6750, the error object
			// as the body.
			status, challenge := httphost.RefusalAnswer(ref, httphost.Metadata(x.meta))
			w.Header().Set("WWW-Authenticate", challenge)
			x.refused = status
			if len(resp) == 0 {
				w.WriteHeader(status)
			} else {
				h := w.Header()
				h["Content-Type"] = jsonContentType
				h["Content-Length"] = []string{strconv.Itoa(len(resp))}
				w.WriteHeader(status)
				w.Write(resp)
			}
			x.done <- struct{}{}
			return
		}
	}
	if len(resp) == 0 {
		w.WriteHeader(http.StatusNoContent)
	} else {
		h := w.Header()
		h["Content-Type"] = jsonContentType
		if x.compressMin > 0 && len(resp) >= x.compressMin {
			if d := compress(resp); d != nil {
				h["Content-Encoding"] = gzipEncoding
				h["Vary"] = varyAcceptEncoding
				h["Content-Length"] = []string{strconv.Itoa(d.buf.Len())}
				w.Write(d.buf.Bytes())
				putDeflater(d)
				x.done <- struct{}{}
				return
			}
		}
		if len(resp) > autoContentLength {
			h["Content-Length"] = []string{strconv.Itoa(len(resp))}
		}
		w.Write(resp) // an error means the client is gone: nothing to do
	}
	x.done <- struct{}{}
}

// goexit writes the answer of a request whose method ended the handler's
// goroutine with runtime.Goexit (see httphost.Process), with its length,
// and flushes it: net/http then closes the connection (over HTTP/1) or
// resets the stream (over HTTP/2) without finishing the response itself.
// answer is nil when the response was written already. x is not put back
// in its pool.
func (x *httpExchange) goexit(answer []byte) {
	w := x.w
	if answer != nil {
		h := w.Header()
		if x.http1 {
			h.Set("Connection", "close")
		}
		if len(answer) == 0 {
			w.WriteHeader(http.StatusNoContent)
		} else {
			h["Content-Type"] = jsonContentType
			h.Set("Content-Length", strconv.Itoa(len(answer)))
			w.Write(answer)
		}
	}
	http.NewResponseController(w).Flush()
}

// jsonContentType is the Content-Type header value of every answer, shared
// so that setting it allocates nothing; nothing in net/http modifies header
// values in place.
var jsonContentType = []string{"application/json"}

// autoContentLength is the largest answer whose Content-Length the handler
// leaves to net/http: an answer written in one Write, by a handler that
// then returns, gets a Content-Length from the net/http server (HTTP/1 and
// HTTP/2) when it fits its response buffer, without allocating. Larger
// answers get the header from the handler, so that they are never sent
// chunked.
const autoContentLength = 2048

// route returns the handler of a request for path: srv's choice when it is
// a transport.Router, srv otherwise (an empty method table when nil).
func route(srv transport.Handler, path string) (transport.Handler, bool) {
	if r, ok := srv.(transport.Router); ok {
		return r.Route(path)
	}
	return transport.Route(srv, nil, "", "")
}
