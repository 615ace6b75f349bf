// Package fasthttprpc serves a jsonrpc.Server over HTTP/1.1 with
// github.com/valyala/fasthttp instead of net/http.
//
// It answers the protocol of httprpc.Handler (one request document per
// POST; 401, 404, 405, 415, 413, 408, 400, 204 and 200 as documented there,
// gzip bodies and answers included) at a fraction
// of net/http's cost per request: fasthttp reuses its request and response
// objects and allocates nothing per request in the steady state. Choose it
// for many small calls over HTTP/1.1 keep-alive; keep net/http (package
// httprpc) for HTTP/2, for net/http middleware, and for everything
// else that needs the standard library's types.
//
//	s := fasthttprpc.NewServer(srv) // a fasthttp.Server with bounded timeouts and streamed bodies
//	log.Fatal(s.ListenAndServe("127.0.0.1:8080"))
//
// or, to configure the fasthttp.Server yourself:
//
//	h := &fasthttprpc.Handler{Server: srv}
//	s := &fasthttp.Server{Handler: h.ServeFastHTTP, ErrorHandler: h.ErrorHandler,
//		ReadTimeout: 30 * time.Second, WriteTimeout: 30 * time.Second, IdleTimeout: 2 * time.Minute,
//		StreamRequestBody: true, DisablePreParseMultipartForm: true} // see Request bodies
//
// fasthttp.Server's zero timeouts mean none: a client that opens
// connections and sends nothing keeps them, and a goroutine each, for
// ever. Set them, or use NewServer.
//
// # Request bodies
//
// fasthttp, by default, reads a request's whole body before the handler
// runs, into a buffer it allocates at once from the declared Content-Length:
// a client that declares 4 MiB and sends a hundred bytes holds 4 MiB of the
// server's memory until the read times out. With the fasthttp.Server's
// StreamRequestBody set, as NewServer sets it, fasthttp reads at most 8 KiB
// ahead and the Handler reads the rest from the connection, into a buffer
// that grows as the bytes arrive: what a connection holds is what its client
// sent. A fasthttp.Server of your own should set it too, with
// DisablePreParseMultipartForm (which NewServer also sets): fasthttp would
// otherwise read a multipart body before the handler runs, streaming or not,
// and with streaming without the body limit.
//
// The body limit is then the Handler's (MaxBody; NewServer's Handler takes
// the server's MaxRequestBodySize): a declared length over it is answered
// with 413 without reading more than fasthttp read ahead, a chunked body as
// soon as it passes the limit. A body that stops coming is answered with 408
// when the server's ReadTimeout passes. Without streaming, the limit is the
// fasthttp.Server's MaxRequestBodySize, which fasthttp checks before the
// handler runs; a larger body never reaches it and, with
// Handler.ErrorHandler as the server's ErrorHandler, is answered with 413,
// as httprpc.Handler answers it (fasthttp's own default is 400).
//
// When the Handler answers a streamed request without reading all of its
// body (404, 405, 415, 413, 408, 400, 503), it closes the connection after
// the answer: fasthttp would read the rest of the body as the next request.
//
// The memory of the bodies being read is bounded over all the Handler's
// requests, as httprpc.Handler bounds it, by the same code: MaxBuffered
// (DefaultMaxBuffered, 64 MiB) of buffers past 64 KiB, taken before a
// buffer grows and given back when the request is answered; a body that
// would pass it is answered with 503 and Retry-After at once. Without it,
// a hundred clients sending 4 MiB bodies at once held 918 MiB.
//
// # Compression
//
// As httprpc.Handler does, the Handler decompresses a request body sent
// with Content-Encoding gzip (or x-gzip) unless RefuseGzip is set, MaxBody
// bounding the decompressed size, streamed or not: the body is inflated
// with compress/gzip through a limit, and a body that inflates past it is
// answered with 413 as soon as it does, never inflated further. (fasthttp's
// Request.BodyGunzip has no limit, and is not used.) A streamed gzip body
// is bounded by MaxBody as sent too. Bodies that inflate past 64 KiB take
// turns, as httprpc.Handler's do and with them, half of GOMAXPROCS at
// once. A body that is not valid gzip is
// answered with 400; a Content-Encoding other than gzip and identity, or
// gzip with RefuseGzip set, with 415 and an Accept-Encoding header. An
// answer of CompressMin bytes or more is compressed at gzip.BestSpeed for a
// client whose Accept-Encoding accepts gzip, with Content-Encoding gzip and
// Vary: Accept-Encoding. The gzip readers and writers are pooled and the
// answer is compressed into fasthttp's body buffer: a gzip request with a
// compressed answer allocates once in the handler, the context, as an
// uncompressed one does (TestGzipAllocs). A 4 KB request with a 4 KB
// answer allocates twice, compressed or not, when they outgrow the pooled
// buffer.
//
// Methods that read the body from the RequestCtx find it as sent,
// compressed, when fasthttp read it; a streamed gzip body is not kept.
//
// # Differences from httprpc.Handler
//
// Methods run with the *fasthttp.RequestCtx as their context, which carries
// it as the transport's context value as well:
// jsonrpc.CallOf(ctx).ContextValue().(*fasthttp.RequestCtx). Its Done
// channel closes when the fasthttp.Server shuts down, not when the client
// goes away: fasthttp does not watch a connection while its handler runs. A
// method must not keep the RequestCtx after it returns.
//
// A method that ends the handler's goroutine with runtime.Goexit (one not
// registered Blocking runs on it) has its calls answered with an internal
// error, as httprpc.Handler answers them, and its connection closed after
// the answer: fasthttp neither answers for a handler that did not return
// nor closes its connection, and would have kept the descriptor open.
// fasthttp's own count of its workers (Server.Concurrency) keeps the
// worker that ended; a method must not call runtime.Goexit.
package fasthttprpc

import (
	"bufio"
	"crypto/tls"
	"encoding/json"
	"errors"
	"log/slog"
	"net"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/internal/httphost"
	"github.com/jsonrpc-go/jsonrpc/transport"
)

// Handler serves a jsonrpc.Server with fasthttp. Its ServeFastHTTP method is
// a fasthttp.RequestHandler. A Handler is safe for concurrent use; its
// fields must not be changed while it serves.
type Handler struct {
	// Server answers the requests. nil serves an empty method table, so
	// that every call is answered with "Method not found". A Server that
	// is a transport.Router picks the handler of each request by its URL
	// path (transport.SessionRouter routes to sessions); a path it
	// refuses is answered with 404 before the body is read. The path is
	// the one the handler sees (after any http.StripPrefix), decoded.
	Server transport.Handler

	// MaxBody is the largest request body accepted, in bytes, when the
	// fasthttp.Server streams request bodies (StreamRequestBody): a larger
	// one is answered with 413. DefaultMaxBody when MaxBody <= 0. Without
	// streaming the limit is the server's MaxRequestBodySize, which fasthttp
	// applies before the handler runs (see Request bodies). MaxBody bounds
	// the decompressed size of a gzip body too, streamed or not (see
	// Compression).
	MaxBody int

	// MaxBuffered bounds the memory that request bodies larger than 64 KiB
	// hold while they are read and answered, over all the handler's
	// requests together, as httprpc.Handler.MaxBuffered does;
	// DefaultMaxBuffered (64 MiB) when MaxBuffered <= 0. A request whose
	// body would pass it is answered with 503 Service Unavailable and
	// Retry-After as soon as it would, and its connection is closed after
	// the answer when the body was not read, so that clients that send
	// large bodies at once, or slowly, cannot hold one MaxBody each. It
	// counts the buffers the handler grows: a streamed body (see Request
	// bodies) and a gzip body's inflated bytes; a body that fasthttp read
	// before the handler ran (no StreamRequestBody) is fasthttp's memory,
	// bounded by its MaxRequestBodySize and Concurrency only. Bodies up to
	// 64 KiB, read into pooled buffers, do not count.
	MaxBuffered int64

	// Budget, when set, is the budget of MaxBuffered's bytes that the
	// handler shares with other hosts (see transport.Budget), so that all
	// of them together hold at most its Max; MaxBuffered is then not used.
	Budget *transport.Budget

	// RefuseGzip answers a request whose body is compressed
	// (Content-Encoding gzip) with 415, as the handler answers every other
	// coding. By default a gzip body is decompressed, and MaxBody applies
	// to the decompressed size as well (see Compression), so that a small
	// body that inflates past MaxBody is answered with 413 as soon as it
	// does.
	RefuseGzip bool

	// CompressMin is the smallest answer, in bytes, that is compressed
	// with gzip for a client whose Accept-Encoding accepts it; smaller
	// answers, and answers that compression would not make smaller, are
	// sent as they are. DefaultCompressMin when CompressMin is 0; a
	// negative CompressMin compresses no answer. Compression runs at
	// gzip.BestSpeed, in pooled writers.
	CompressMin int

	// Logger, when set, logs at slog.LevelWarn each request the handler
	// refuses with a 4xx or 5xx status (an unknown session, a method other
	// than POST, an unsupported type or coding, a body too large, too slow
	// or unreadable, and the requests that ErrorHandler answers), with the
	// client's address ("remote"), the path ("path"), the status ("status")
	// and why ("error"), as httprpc.Handler logs them. nil, the default,
	// logs nothing. A client decides how often requests are refused, so
	// the handler logs at most 10 records of one level and message in 10
	// seconds, then one of how many it dropped (package ratelog; a Logger
	// whose handler was made by ratelog.New keeps its own bounds).
	Logger *slog.Logger

	// ClientKey names the client of a request, by which the Server shares
	// the goroutines of its Blocking calls and the bytes of their request
	// copies between clients (jsonrpc.Limits.MaxRunningPerClient,
	// MaxHeldPerClient), as httprpc.Handler.ClientKey does; "" for none.
	// nil means the IP address of the connection's remote address
	// (transport.ClientOf; behind a proxy, the proxy's: give the key its
	// headers carry). ClientKey must not keep the RequestCtx, nor bytes
	// of it, after it returns.
	ClientKey func(ctx *fasthttp.RequestCtx) string

	// AllowedHosts are the host names accepted in the Host header of a
	// request that came to a loopback address, beside localhost, the
	// names under .localhost, 127.0.0.0/8 and ::1; another name is
	// answered with 403, against DNS rebinding, as httprpc.Handler's
	// AllowedHosts says (transport.CheckHost). nil accepts the loopback
	// names alone.
	AllowedHosts []string

	// AllowedOrigins are the values of the Origin header accepted beside
	// the request's own host, as httprpc.Handler's AllowedOrigins says
	// (transport.CheckOrigin): a browser page of another origin is
	// answered with 403, a request without Origin is served. nil accepts
	// same-origin pages alone.
	AllowedOrigins []string

	// Health, when set, has its probes answered at transport.LivePath
	// (/healthz) and transport.ReadyPath (/readyz): a GET or HEAD of
	// either is answered 200, or 503 once the Health drains (see
	// transport.Health), with a line of text, before any routing. Drain
	// it before fasthttp.Server.Shutdown, which closes the listeners at
	// once. nil: those paths are JSON-RPC's as any other.
	Health *transport.Health

	// Tokens, when set, verifies the bearer token of each request's
	// Authorization header (RFC 6750), and its Principal is the calls'
	// (jsonrpc.PrincipalOf), as httprpc.Handler's Tokens says: a request
	// without a token is served only when its TLS connection has a
	// verified client certificate, whose Principal is then the calls';
	// otherwise, and for a token Tokens refuses, it is answered 401 with
	// a WWW-Authenticate challenge of the Bearer scheme, before its path
	// is routed. nil reads no Authorization header: only a client
	// certificate authenticates.
	//
	// TLS is the fasthttp.Server's (its TLSConfig, or ServeTLS; a
	// listener of tls.NewListener): give its tls.Config the ClientCAs to
	// verify client certificates with, and a ClientAuth that verifies
	// them (tls.VerifyClientCertIfGiven, tls.RequireAndVerifyClientCert).
	Tokens transport.TokenVerifier

	// AllowAnonymous serves a request that bears neither a bearer token
	// nor a verified client certificate, with Tokens set, without a
	// Principal, instead of answering it 401, as httprpc.Handler's
	// AllowAnonymous says: the Server's policies decide.
	AllowAnonymous bool

	// ResourceMetadata, when set, is the metadata of the resource the
	// handler serves (RFC 9728), as httprpc.Handler's ResourceMetadata
	// says: a GET of its Path, or of transport.WellKnownResourcePath, is
	// answered with it before anything else is checked, and every
	// WWW-Authenticate challenge names its URL as resource_metadata.
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

// ServeFastHTTP answers one HTTP request.
func (h *Handler) ServeFastHTTP(ctx *fasthttp.RequestCtx) { h.serve(ctx, h.MaxBody) }

// serve answers one HTTP request; limit is the body limit of a streamed
// body (DefaultMaxBody when <= 0).
func (h *Handler) serve(ctx *fasthttp.RequestCtx, limit int) {
	if h.Health != nil && (ctx.IsGet() || ctx.IsHead()) {
		if status, body, ok := h.Health.Probe(string(ctx.Path())); ok {
			ctx.Response.Header.SetContentType("text/plain; charset=utf-8")
			ctx.Response.Header.Set("Cache-Control", "no-store")
			ctx.SetStatusCode(status)
			ctx.SetBodyString(body) // fasthttp sends no body for HEAD
			return
		}
	}
	if m := h.ResourceMetadata; m != nil && m.Serves(string(ctx.Path())) {
		serveMetadata(ctx, m)
		return
	}
	host := ctx.Host()
	if err := transport.CheckHost(ctx.LocalAddr(), string(host), h.AllowedHosts); err != nil {
		h.refuse(ctx, err.Error(), fasthttp.StatusForbidden)
		closeIfUnread(ctx)
		return
	}
	if origin := ctx.Request.Header.Peek("Origin"); len(origin) > 0 {
		if err := transport.CheckOrigin(string(origin), string(host), h.AllowedOrigins); err != nil {
			h.refuse(ctx, err.Error(), fasthttp.StatusForbidden)
			closeIfUnread(ctx)
			return
		}
	}
	var principal *jsonrpc.Principal
	if h.Tokens != nil || ctx.IsTLS() {
		var cs *tls.ConnectionState
		if ctx.IsTLS() {
			cs = ctx.TLSConnectionState()
		}
		var auth string
		if h.Tokens != nil {
			auth = string(ctx.Request.Header.Peek(fasthttp.HeaderAuthorization))
		}
		var challenge string
		var err error
		principal, challenge, err = httphost.Authenticate(ctx, h.Tokens, h.AllowAnonymous, auth, cs)
		if err != nil {
			h.refuseWhy(ctx, httphost.UnauthorizedText(challenge), err.Error(), fasthttp.StatusUnauthorized)
			ctx.Response.Header.Set(fasthttp.HeaderWWWAuthenticate, httphost.WithMetadata(challenge, httphost.Metadata(h.ResourceMetadata))) // after Error, which resets the headers
			closeIfUnread(ctx)
			return
		}
	}
	srv, _ := transport.Route(h.Server, nil, "", "")
	if r, ok := h.Server.(transport.Router); ok {
		if srv, ok = r.Route(string(ctx.Path())); !ok {
			h.refuse(ctx, "jsonrpc: no such session", fasthttp.StatusNotFound)
			closeIfUnread(ctx)
			return
		}
	}
	if !ctx.IsPost() {
		h.refuse(ctx, "jsonrpc: method not allowed; use POST", fasthttp.StatusMethodNotAllowed)
		ctx.Response.Header.Set("Allow", fasthttp.MethodPost) // after Error, which resets the headers
		closeIfUnread(ctx)
		return
	}
	if ct := ctx.Request.Header.ContentType(); !isJSON(ct) {
		h.refuse(ctx, "jsonrpc: unsupported Content-Type; use application/json", fasthttp.StatusUnsupportedMediaType)
		closeIfUnread(ctx)
		return
	}
	coding := requestCoding(ctx.Request.Header.PeekAll(fasthttp.HeaderContentEncoding))
	if coding == unsupported || coding == gzipped && h.RefuseGzip {
		accept := "gzip, identity"
		if h.RefuseGzip {
			accept = "identity"
		}
		h.refuse(ctx, "jsonrpc: unsupported Content-Encoding; use "+accept, fasthttp.StatusUnsupportedMediaType)
		ctx.Response.Header.Set(fasthttp.HeaderAcceptEncoding, accept)
		closeIfUnread(ctx)
		return
	}
	if limit <= 0 {
		limit = DefaultMaxBody
	}

	x := exchanges.Get().(*exchange)
	x.ctx = ctx
	var client string
	if h.ClientKey != nil {
		client = h.ClientKey(ctx)
	} else {
		client = x.clientOf(ctx.RemoteAddr())
	}
	var (
		req, dst []byte
		taken    int64 // from b, for the body's buffer past 64 KiB
		err      error
	)
	streamed := ctx.Request.IsBodyStream()
	length := int64(ctx.Request.Header.ContentLength()) // negative: unknown
	b := h.budget()
	if streamed || coding == gzipped {
		b = httphost.ClientBudget(b, client, length, coding == gzipped, &x.last)
	}
	switch {
	case coding == gzipped && streamed:
		req, taken, err = httphost.ReadGzip(x.buf[:0], ctx.RequestBodyStream(), length, int64(limit), b)
		x.buf = req
	case coding == gzipped:
		req, taken, err = httphost.ReadGzipBytes(x.buf[:0], ctx.PostBody(), int64(limit), b)
		x.buf = req
	case streamed:
		req, taken, err = httphost.Read(x.buf[:0], ctx.RequestBodyStream(), length, int64(limit), b)
		x.buf = req
		if err == nil {
			// Methods that read the body from the RequestCtx find it
			// there; fasthttp forgets it when the handler returns.
			ctx.Request.SetBodyRaw(req)
		}
	default:
		req = ctx.PostBody()
	}
	// Once the answer is copied into fasthttp's buffer and the body's
	// buffer let go; a method's runtime.Goexit runs it too.
	defer b.Give(taken)
	if err != nil {
		x.ctx = nil
		putExchange(x)
		h.bodyError(ctx, err, limit)
		if streamed {
			ctx.SetConnectionClose() // the rest of the body is unread
		}
		return
	}
	if coding == gzipped || streamed {
		dst = req[len(req):] // the answer goes after the request
	} else {
		dst = x.buf[:0]
	}
	x.compressMin = 0
	if h.CompressMin >= 0 && acceptsGzip(ctx.Request.Header.PeekAll(fasthttp.HeaderAcceptEncoding)) {
		x.compressMin = h.CompressMin
		if x.compressMin == 0 {
			x.compressMin = DefaultCompressMin
		}
	}
	rc := httphost.WithRequest(ctx, ctx, client, principal)
	x.rc, x.single, x.meta = rc, httphost.Single(req), h.ResourceMetadata
	httphost.Process(rc, srv, dst, req, x.reply, x.done, x.abandoned)
	if x.refused != 0 {
		h.logRefusal(ctx, "jsonrpc: call refused for who is calling", x.refused)
	}
	x.ctx, x.rc, x.meta, x.refused = nil, nil, nil, 0
	putExchange(x)
}

// bodyError answers a body that could not be read or inflated.
func (h *Handler) bodyError(ctx *fasthttp.RequestCtx, err error, limit int) {
	var timeout interface{ Timeout() bool }
	switch {
	case errors.Is(err, httphost.ErrTooLarge):
		h.refuse(ctx, "jsonrpc: request body larger than "+strconv.Itoa(limit)+" bytes", fasthttp.StatusRequestEntityTooLarge)
	case errors.Is(err, httphost.ErrBusy):
		h.refuse(ctx, "jsonrpc: server busy with large requests; try again", fasthttp.StatusServiceUnavailable)
		ctx.Response.Header.Set(fasthttp.HeaderRetryAfter, "1") // after Error, which resets the headers
	case errors.Is(err, os.ErrDeadlineExceeded) || errors.As(err, &timeout) && timeout.Timeout():
		h.refuse(ctx, "jsonrpc: timed out reading the request body", fasthttp.StatusRequestTimeout)
	default:
		h.refuse(ctx, "jsonrpc: reading the request body: "+err.Error(), fasthttp.StatusBadRequest)
	}
}

// refuse answers ctx with the status code and the text why, and logs it.
// It resets the response's headers: those of the answer are set after it.
func (h *Handler) refuse(ctx *fasthttp.RequestCtx, why string, code int) {
	h.refuseWhy(ctx, why, why, code)
}

// refuseWhy is refuse with the text body as the answer's body and why
// logged.
func (h *Handler) refuseWhy(ctx *fasthttp.RequestCtx, body, why string, code int) {
	ctx.Error(body, code)
	h.logRefusal(ctx, why, code)
}

// logRefusal logs that ctx is answered with the status code, for the
// reason why.
func (h *Handler) logRefusal(ctx *fasthttp.RequestCtx, why string, code int) {
	if l := h.logger(); l != nil {
		l.LogAttrs(ctx, slog.LevelWarn, "request refused",
			slog.String("remote", ctx.RemoteAddr().String()), slog.String("path", string(ctx.Path())),
			slog.Int("status", code), slog.String("error", why))
	}
}

// closeIfUnread closes the connection after the answer when the request's
// body is streamed and may not have been read: fasthttp does not skip the
// rest of a streamed body, and would read it as the next request.
func closeIfUnread(ctx *fasthttp.RequestCtx) {
	if ctx.Request.IsBodyStream() && ctx.Request.Header.ContentLength() != 0 {
		ctx.SetConnectionClose()
	}
}

// Limits of the fasthttp.Server that NewServer returns.
const (
	DefaultMaxBody      = 4 << 20          // a request body, as httprpc.DefaultMaxBody
	DefaultMaxBuffered  = 64 << 20         // Handler.MaxBuffered, as httprpc.DefaultMaxBuffered
	DefaultReadTimeout  = 30 * time.Second // a request's headers and body
	DefaultWriteTimeout = 30 * time.Second // a response
	DefaultIdleTimeout  = 2 * time.Minute  // a keep-alive connection between requests
)

// NewServer returns a fasthttp.Server that serves srv with a Handler and its
// ErrorHandler, the body limit DefaultMaxBody (4 MiB, fasthttp's default
// too), bounded timeouts (DefaultReadTimeout, DefaultWriteTimeout and
// DefaultIdleTimeout), and request bodies streamed to the handler, so that
// a connection holds the bytes its client sent and not the length it
// declared (StreamRequestBody and DisablePreParseMultipartForm; see Request
// bodies). Its fields may be changed before it serves; the handler takes
// the body limit from MaxRequestBodySize.
func NewServer(srv transport.Handler) *fasthttp.Server {
	h := &Handler{Server: srv}
	s := &fasthttp.Server{
		ErrorHandler:                 h.ErrorHandler,
		MaxRequestBodySize:           DefaultMaxBody,
		ReadTimeout:                  DefaultReadTimeout,
		WriteTimeout:                 DefaultWriteTimeout,
		IdleTimeout:                  DefaultIdleTimeout,
		StreamRequestBody:            true,
		DisablePreParseMultipartForm: true,
	}
	s.Handler = func(ctx *fasthttp.RequestCtx) { h.serve(ctx, s.MaxRequestBodySize) }
	return s
}

// ErrorHandler answers a request that fasthttp could not read, for use as
// the fasthttp.Server's ErrorHandler: 413 for a body over the server's
// MaxRequestBodySize, 408 for a read timeout, and 400 for anything else.
// The connection is closed after the answer. The Handler's Logger logs it.
func (h *Handler) ErrorHandler(ctx *fasthttp.RequestCtx, err error) {
	var timeout interface{ Timeout() bool }
	switch {
	case errors.Is(err, fasthttp.ErrBodyTooLarge):
		h.refuse(ctx, "jsonrpc: request body larger than the server's limit", fasthttp.StatusRequestEntityTooLarge)
	case errors.As(err, &timeout) && timeout.Timeout():
		h.refuse(ctx, "jsonrpc: timed out reading the request", fasthttp.StatusRequestTimeout)
	default:
		h.refuse(ctx, "jsonrpc: reading the request: "+err.Error(), fasthttp.StatusBadRequest)
	}
	ctx.SetConnectionClose()
}

// isJSON is transport.IsJSONContentType for the usual header without
// converting it to a string (which would allocate).
func isJSON(ct []byte) bool {
	if string(ct) == "application/json" {
		return true
	}
	return transport.IsJSONContentType(string(ct))
}

// An exchange is the per-request state, pooled: the buffer of a streamed
// request and of the response, the reply callback, bound once, and the
// channel it signals.
type exchange struct {
	buf         []byte
	ctx         *fasthttp.RequestCtx
	rc          *httphost.Request // the calls' context: the server's refusals
	single      bool              // the request is one object, not a batch
	refused     int               // the status of a single request's call refused for who calls; 0 for none
	compressMin int               // the smallest answer compressed; 0: none is
	reply       func([]byte)
	abandoned   func([]byte)  // x.goexit, bound when x is made
	done        chan struct{} // capacity 1: reply never waits for the handler

	// The client named last by clientOf, kept with the exchange so that
	// the requests from one address cost no string each.
	ip     net.IP
	client string

	last httphost.LastView // the view of a budget for a client made last

	meta *transport.ResourceMetadata // what the challenge of a refusal names
}

// clientOf is transport.ClientOf(addr), the name of the client of a
// request from addr, made again only when addr's IP address is not the
// one of the last request that used x.
func (x *exchange) clientOf(addr net.Addr) string {
	a, ok := addr.(*net.TCPAddr)
	if !ok {
		return transport.ClientOf(addr)
	}
	if x.client == "" || !x.ip.Equal(a.IP) {
		x.ip = append(x.ip[:0], a.IP...)
		x.client = transport.ClientOf(a)
	}
	return x.client
}

var exchanges = sync.Pool{New: func() any {
	x := &exchange{buf: make([]byte, 0, 1024), done: make(chan struct{}, 1)}
	x.reply = x.write
	x.abandoned = x.goexit
	return x
}}

// maxBuffer is the largest buffer the pool keeps: the buffers of larger
// streamed bodies are dropped after their request.
const maxBuffer = transport.SmallMessage

func putExchange(x *exchange) {
	if cap(x.buf) > maxBuffer {
		return
	}
	exchanges.Put(x)
}

// write is the ProcessAsync reply. The response is copied, or compressed,
// into fasthttp's body buffer, so x.buf can be reused at once. (A response
// that outgrew x.buf is not kept as the new buffer: it may be a buffer of
// the server's, when a Blocking method answered.)
func (x *exchange) write(resp []byte) {
	ctx := x.ctx
	if x.single {
		if ref := x.rc.Refused(); ref != nil {
			// A single request whose call was refused for who calls:
			// the status and challenge of RFC 6750, the error object
			// as the body.
			status, challenge := httphost.RefusalAnswer(ref, httphost.Metadata(x.meta))
			ctx.Response.Header.Set(fasthttp.HeaderWWWAuthenticate, challenge)
			ctx.SetStatusCode(status)
			x.refused = status
			if len(resp) > 0 {
				ctx.SetContentType("application/json")
				ctx.SetBody(resp)
			}
			x.done <- struct{}{}
			return
		}
	}
	if len(resp) == 0 {
		ctx.SetStatusCode(fasthttp.StatusNoContent)
	} else {
		ctx.SetContentType("application/json")
		if x.compressMin > 0 && len(resp) >= x.compressMin {
			ctx.Response.ResetBody()
			compress(ctx.Response.BodyWriter(), resp)
			if len(ctx.Response.Body()) < len(resp) {
				ctx.Response.Header.SetContentEncodingBytes(gzipEncoding)
				ctx.Response.Header.SetCanonical(varyKey, acceptEncoding)
				x.done <- struct{}{}
				return
			}
		}
		ctx.SetBody(resp)
	}
	x.done <- struct{}{}
}

// goexit writes the answer of a request whose method ended the handler's
// goroutine with runtime.Goexit (see httphost.Process), and closes the
// connection: fasthttp neither writes the response of a handler that did
// not return nor closes its connection. answer is nil when the response
// was set already. x is not put back in its pool.
func (x *exchange) goexit(answer []byte) {
	ctx := x.ctx
	if answer != nil {
		ctx.Response.Reset()
		if len(answer) == 0 {
			ctx.SetStatusCode(fasthttp.StatusNoContent)
		} else {
			ctx.SetContentType("application/json")
			ctx.SetBody(answer)
		}
	}
	ctx.Response.SetConnectionClose()
	c := ctx.Conn()
	c.SetWriteDeadline(time.Now().Add(DefaultWriteTimeout))
	w := bufio.NewWriter(c)
	if ctx.Response.Write(w) == nil {
		w.Flush()
	}
	c.Close()
}

// Header keys and values of a compressed answer.
var (
	gzipEncoding   = []byte("gzip")
	varyKey        = []byte(fasthttp.HeaderVary)
	acceptEncoding = []byte(fasthttp.HeaderAcceptEncoding)
)

// serveMetadata answers a request of the resource's metadata as
// transport.ResourceMetadata.ServeHTTP answers it.
func serveMetadata(ctx *fasthttp.RequestCtx, m *transport.ResourceMetadata) {
	ctx.Response.Header.Set("Access-Control-Allow-Origin", "*")
	switch {
	case ctx.IsGet() || ctx.IsHead():
	case ctx.IsOptions():
		ctx.Response.Header.Set("Access-Control-Allow-Methods", "GET, HEAD, OPTIONS")
		ctx.Response.Header.Set("Access-Control-Allow-Headers", "*")
		ctx.SetStatusCode(fasthttp.StatusNoContent)
		return
	default:
		ctx.Error("jsonrpc: method not allowed; use GET", fasthttp.StatusMethodNotAllowed)
		ctx.Response.Header.Set("Allow", "GET, HEAD, OPTIONS") // after Error, which resets the headers
		ctx.Response.Header.Set("Access-Control-Allow-Origin", "*")
		return
	}
	b, err := json.Marshal(m)
	if err != nil {
		ctx.Error("jsonrpc: "+err.Error(), fasthttp.StatusInternalServerError)
		return
	}
	ctx.SetContentType("application/json")
	ctx.Response.Header.Set("Cache-Control", "max-age=300")
	ctx.SetBody(b) // fasthttp sends no body for HEAD
}
