// Command jsonrpcd serves the demo services (the calculator, the JSON-RPC 2.0
// specification's example methods and echo; see package demo), and over
// TCP, WebSocket and the sessions of Streamable HTTP (-sessions) the
// methods of two-way connections (demo.RegisterTwoWay: subscribe,
// unsubscribe and publish on a feed of notifications, progress and
// callback).
//
// By default it listens on loopback: HTTP on 127.0.0.1:8080 (JSON-RPC at /,
// WebSocket at /ws) and TCP on 127.0.0.1:9090, newline-delimited unless
// -framing says otherwise. It prints where it listens and shuts down
// gracefully on SIGINT or SIGTERM: every listener stops accepting at once,
// and the calls in flight on every connection finish and are answered. Calls still running after
// -shutdown-timeout (10 s) lose their connections, and it exits with
// status 1.
//
//	$ go run ./cmd/jsonrpcd
//	$ curl -s -H 'Content-Type: application/json' \
//	    -d '{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}' http://127.0.0.1:8080/
//	{"jsonrpc":"2.0","result":3,"id":1}
//
// It answers rpc.discover with the OpenRPC document of its methods:
//
//	$ curl -s -H 'Content-Type: application/json' \
//	    -d '{"jsonrpc":"2.0","method":"rpc.discover","id":1}' http://127.0.0.1:8080/
//	{"jsonrpc":"2.0","result":{"openrpc":"1.3.2","info":{"title":"jsonrpcd demo services",...
//
// With -stdio it serves standard input and output instead, one request or
// batch per line, one response per line; notifications get no line:
//
//	$ go run ./cmd/jsonrpcd -stdio
//	{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}
//	{"jsonrpc":"2.0","result":3,"id":1}
//
// -framing header frames the messages of TCP and -stdio as the Language
// Server Protocol does, each after a Content-Length header, so that an LSP
// client (an editor's, or client.Command with framing.Header) can talk to
// it; -framing raw takes JSON values back to back.
//
// Flags:
//
//	-http ADDR
//		HTTP address (default 127.0.0.1:8080; empty disables HTTP and WebSocket)
//	-tcp ADDR
//		TCP address (default 127.0.0.1:9090; empty disables)
//	-ws
//		serve WebSocket at /ws of the HTTP address (default true)
//	-streamable
//		serve Streamable HTTP at /mcp of the HTTP address: a POST is
//		answered with JSON, or with server-sent events when its method
//		reports progress or notifies (default true)
//	-sessions METHOD
//		give Streamable HTTP sessions (streamhttp.Handler.SessionMethod):
//		a POST to /mcp of a request of METHOD, such as subscribe, without
//		an Mcp-Session-Id header begins a session, whose id its answer
//		carries; the requests that carry the id run on the session's one
//		connection, so that subscribe and callback work there as over
//		TCP: what a call sends while it runs (progress, callback's call)
//		goes on the event stream of its POST, and what the session is
//		sent outside any call (the feed's notifications) on its GET
//		stream; a client resumes a broken stream with Last-Event-ID
//		(default empty: no sessions, each POST on a connection of its
//		own)
//	-mcp
//		serve /mcp as an MCP server of the handshake era (2025-11-25,
//		2025-06-18, 2025-03-26): sessions begun by initialize (as
//		-sessions initialize), one message per POST, cancellation and
//		progress as MCP has them (mcp.Protocol()), and the demo methods as
//		tools (tools/list, tools/call), each described by the OpenRPC
//		document of its params. A session's tool calls run concurrently,
//		each on a goroutine of its own, so that a ping is answered and a
//		notifications/cancelled reaches its call while a tool runs; the
//		tool subscribe subscribes the session
//		to the feed, whose values reach it as subscription notifications
//		on its GET stream. A request of MCP 2026-07-28 is answered
//		UnsupportedProtocolVersion (default false)
//	-allowed-hosts NAMES
//		host names, separated by commas, that every HTTP listener (/,
//		/ws, /mcp and -fasthttp's) accepts in the Host header of a
//		request that came to a loopback address, beside localhost and
//		the loopback addresses (the AllowedHosts of httprpc.Handler,
//		ws.Handler, streamhttp.Handler and fasthttprpc.Handler;
//		transport.CheckHost): the names by which clients reach a proxy
//		on the same machine, such as nginx, that passes their Host on.
//		Any other name is answered 403, so that a web page cannot reach
//		jsonrpcd on loopback through DNS rebinding (default empty)
//	-allowed-origins ORIGINS
//		values of the Origin header, separated by commas, that every
//		HTTP listener accepts beside its own host's, such as
//		https://app.example.com; * accepts every origin (AllowedOrigins;
//		transport.CheckOrigin). A request or WebSocket upgrade from a
//		browser page of another origin is answered 403; one without
//		Origin, as other clients send it, is served (default empty)
//	-max-sessions N
//		sessions open at once under -sessions; past it, a request that
//		would begin one is answered 503 with Retry-After (default 4096)
//	-max-sessions-per-client N
//		sessions one client (its IP address) may hold at once under
//		-sessions, so that one cannot take them all; past it, its request
//		that would begin one is answered 429 with Retry-After (default 0:
//		half of -max-sessions)
//	-session-idle D
//		how long a session unused is kept under -sessions, while none of
//		its calls runs; a session unused since its initialize is kept 30s
//		at most (streamhttp.Handler.NewSessionIdle) (default 10m; 0: no
//		end but the 30s of a session left after its initialize)
//	-replica NAME
//		under -sessions, begin each session id with NAME and a '.', so
//		that a load balancer sends a session's requests to the replica
//		that holds it (streamhttp.Handler.Replica; deploy/nginx shows
//		how) (default empty: no prefix)
//	-stream-idle D, -stream-lifetime D
//		end the response of a GET that carries a session's stream once no
//		event was sent on it for -stream-idle, or once it has been open
//		-stream-lifetime, however busy; the stream goes on, and its client
//		opens it again (streamhttp.Handler.StreamIdle, StreamLifetime)
//		(defaults 5m and 30m; 0: never)
//	-session-store redis://HOST:PORT
//		under -sessions, keep the sessions and their streams' events in
//		Redis (package redisrpc), shared by the replicas: a replica serves
//		a session another began, or one begun before it restarted, and a
//		stream resumed there replays the events it missed (default empty:
//		in memory)
//	-fasthttp ADDR
//		an HTTP/1.1 address served with fasthttp (package fasthttprpc),
//		with the same protocol, limits and timeouts as -http's, without
//		WebSocket (default empty: none)
//	-stdio
//		serve standard input and output only
//	-protocol none|lsp|mcp
//		the notifications by which the connections of TCP, WebSocket and
//		-stdio cancel calls and report progress (package peer): none,
//		the default, has neither; lsp is lsp.Protocol() ($/cancelRequest, and
//		$/progress on a call's workDoneToken); mcp is mcp.Protocol()
//		(notifications/cancelled, and notifications/progress on its
//		_meta.progressToken). The method progress reports only under lsp
//		or mcp. Streamable HTTP (/mcp) speaks MCP's whatever it says
//	-framing line|header|raw
//		how messages are framed over TCP and -stdio: line, one message
//		per line (the default); header, each message after a
//		Content-Length header, as the Language Server Protocol frames
//		them, so that an LSP client can talk to jsonrpcd; raw, JSON
//		values back to back
//	-max-message N
//		largest request accepted, in bytes (default 4 MiB)
//	-max-buffered N
//		bytes that messages larger than 64 KiB may hold at once while
//		they are read and handled, over every listener together (HTTP,
//		WebSocket, Streamable HTTP, TCP and -fasthttp share one
//		transport.Budget): past it such a message is refused (503 over
//		HTTP, an error answer over TCP, close status 1013 on a WebSocket)
//		(default 64 MiB)
//	-max-buffered-per-client N
//		bytes of -max-buffered one client (its IP address) may hold at
//		once, so that the unfinished messages of one cannot spend the
//		room of the others: past it its message is refused as past
//		-max-buffered (default half of -max-buffered)
//	-max-conns-per-client N
//		connections one client (its IP address) may hold at once on each
//		listener, so that one cannot lock the others out: past it a TCP
//		connection gets one -32005 error and is closed, an HTTP
//		connection (-http, -fasthttp; idle keep-alive connections and
//		WebSocket connections count) is answered 429 with Retry-After
//		and closed, a WebSocket upgrade 429. Behind a proxy, whose
//		connections all come from its address, give it -max-conns
//		(default 0: half of -max-conns)
//	-max-conns N
//		connections open at once on each listener, WebSocket connections
//		counted in HTTP's (default 4096); at the cap a new connection waits
//		in the kernel's backlog until one closes
//	-read-timeout D
//		time to read a request: over HTTP its headers and body, over TCP
//		and WebSocket a message once its first byte has come (default 30s;
//		0 disables)
//	-write-timeout D
//		time to write an answer (default 30s; 0 disables). Over HTTP,
//		net/http counts it from the end of the request's headers, and
//		jsonrpcd adds the read timeout for the body: a call that runs longer
//		than the two loses its answer, and its connection is closed
//	-idle-timeout D
//		how long a connection with nothing in flight is kept open: an HTTP
//		keep-alive connection between requests, a TCP or WebSocket
//		connection with no call running (default 2m; 0 disables)
//	-shutdown-timeout D
//		bound of the graceful shutdown (default 10s)
//	-health
//		answer the probes of load balancers and Kubernetes on the HTTP
//		addresses (-http, -fasthttp; transport.Health): GET /healthz,
//		liveness, 200 while the process serves; GET /readyz, readiness,
//		200 until the shutdown begins, then 503 while the calls in flight
//		complete (default true)
//	-drain D
//		on SIGINT or SIGTERM, answer /readyz with 503 and go on serving,
//		listeners open, for D before closing them, so that a load balancer
//		that probes /readyz stops sending first: give it the balancer's
//		probe interval times its failure threshold. A second signal ends
//		the wait (default 0: the listeners close at once)
//	-memory-limit MiB
//		soft limit of the Go runtime's memory (debug.SetMemoryLimit), so
//		that the collector frees what attacks leave behind before the
//		process grows past it (default 192; 0 leaves the runtime's default;
//		the GOMEMLIMIT environment variable, when set, wins)
//	-log-level debug|info|warn|error|off
//		the least severe records logged to standard error, as slog's
//		text handler writes them (default info): debug adds each
//		connection opened and closed; info, the shutdown's progress;
//		warn, protocol errors (malformed framing, messages over the limit,
//		requests that are not JSON) and refusals at a limit (-max-conns
//		reached, a request refused at shutdown or for its size); error, a
//		method's panic with its stack, which the client never gets. off
//		logs nothing. At every level, at most 10 records of one level
//		and message are written in 10 seconds, then one record of how
//		many were dropped ("log records dropped"; package ratelog), so
//		that no client can make the log grow faster. Standard output
//		keeps the lines that say where jsonrpcd listens
//	-metrics ADDR
//		serve the calls' metrics (otelrpc: rpc.server.duration, its
//		count by method and error code, and rpc.server.active_calls) and
//		the process's for Prometheus at http://ADDR/metrics, on a
//		listener of their own, on a loopback address, such as
//		127.0.0.1:9464 (default empty: none). An address that is not
//		loopback, or :PORT (every interface), is refused unless
//		-metrics-public is given: the metrics say what the server runs
//		and how it fares, for whoever can reach them
//	-metrics-public
//		let -metrics listen on an address that is not loopback
//	-otlp URL
//		export a span per call (otelrpc) by OTLP over HTTP to the
//		collector at URL, such as http://127.0.0.1:4318/v1/traces; spans
//		are batched, and those left are sent at shutdown. The parent of a
//		call's span comes from a W3C traceparent header or
//		params._meta.traceparent (default empty: none)
//	-items
//		serve items too: a method whose result is a sequence of n items
//		of size bytes each (params {"n": N, "size": SIZE}), streamed as
//		each connection's protocol has it ($/enumerator pulls over TCP
//		and WebSocket, LSP's partial results, one array over HTTP), for
//		the attacks of bench/soak on result streams (default false)
//	-broker URL
//		carry the feed (subscribe, publish) between replicas on a message
//		broker: nats://HOST:PORT (package natsrpc) or redis://HOST:PORT
//		(package redisrpc). Every jsonrpcd on the same broker is then one
//		feed: what is published on any reaches the subscribers of all,
//		and publish answers 0. The connection reconnects by itself; what
//		is published while a replica is away from the broker is lost to
//		its subscribers (default empty: the feed of this process only)
//	-tls-cert FILE, -tls-key FILE
//		serve every network listener over TLS (TLS 1.2 at least) with
//		the certificate of FILE, a PEM chain with the leaf first, and
//		its key: HTTPS and wss on -http (HTTP/2 too, for clients that
//		negotiate it), HTTPS on -fasthttp, TLS on -tcp (client.DialTLS).
//		A plain request to the HTTP listener is answered 400, and a
//		plain TCP connection closed (default empty: plain listeners)
//	-tls-client-ca FILE
//		with -tls-cert, require of every client a certificate issued by
//		an authority of FILE (PEM), and refuse the handshake of a client
//		without one (mutual TLS); the subject of a client's certificate
//		is the Principal of its calls (jsonrpc.PrincipalOf) (default
//		empty: no client certificates asked for)
//	-jwt-issuer URL, -jwt-audience URLS, -jwt-jwks URL
//		take on every HTTP listener (/, /ws, /mcp, -fasthttp) only the
//		requests bearing a JWT of the issuer URL (its "iss") for one of
//		the audience's URLs (its "aud"), unexpired and signed by a key of
//		the issuer's key set at the -jwt-jwks URL (module jwtauth: fetched,
//		kept an hour, fetched again for a key rotated in); the others are
//		answered 401 with a Bearer challenge that names the resource's
//		metadata, published at /.well-known/oauth-protected-resource
//		(RFC 9728; its resource the first audience). Every method then
//		needs a caller (jsonrpc.RequireAuth): over TCP, one with a
//		certificate of -tls-client-ca (default empty: no tokens)
//
// With -stdio, records go to standard error as well, and standard output
// holds only the answers.
//
// Over TLS, curl trusts the authority of the server's certificate with
// --cacert, and presents a client certificate with --cert and --key:
//
//	$ go run ./cmd/jsonrpcd -tls-cert server.crt -tls-key server.key -tls-client-ca ca.crt
//	$ curl -s --cacert ca.crt --cert client.crt --key client.key -H 'Content-Type: application/json' \
//	    -d '{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}' https://127.0.0.1:8080/
//	{"jsonrpc":"2.0","result":3,"id":1}
//
// The HTTP server also reads a request's headers within 10 s (or the read
// timeout, when shorter) and refuses headers over 64 KiB with 431.
package main

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/framing"
	"github.com/jsonrpc-go/jsonrpc/httprpc"
	"github.com/jsonrpc-go/jsonrpc/internal/demo"
	"github.com/jsonrpc-go/jsonrpc/openrpc"
	"github.com/jsonrpc-go/jsonrpc/peer"
	"github.com/jsonrpc-go/jsonrpc/protocol/lsp"
	"github.com/jsonrpc-go/jsonrpc/protocol/mcp"
	"github.com/jsonrpc-go/jsonrpc/ratelog"
	"github.com/jsonrpc-go/jsonrpc/stream"
	"github.com/jsonrpc-go/jsonrpc/streamhttp"
	"github.com/jsonrpc-go/jsonrpc/transport"
	"github.com/jsonrpc-go/jsonrpc/ws"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// Defaults of the flags, and the limits without a flag.
const (
	defaultMaxConns        = 4096             // connections open on each listener
	defaultReadTimeout     = 30 * time.Second // reading a request
	defaultWriteTimeout    = 30 * time.Second // writing an answer
	defaultIdleTimeout     = 2 * time.Minute  // a connection with nothing in flight
	defaultShutdownTimeout = 10 * time.Second // the graceful shutdown
	defaultMemoryLimit     = 192              // MiB: the runtime's soft memory limit

	readHeaderTimeout = 10 * time.Second // reading an HTTP request's headers, at most
	maxHeaderBytes    = 64 << 10         // an HTTP request's headers
)

// discoveryInfo heads the OpenRPC document that rpc.discover answers.
var discoveryInfo = openrpc.Info{
	Title:       "jsonrpcd demo services",
	Description: "The calculator of JSON-RPC.NET's benchmark, the example methods of the JSON-RPC 2.0 specification, echo, sleep and repeat; over TCP and WebSocket, subscribe, unsubscribe, publish, progress and callback.",
	Version:     "1.0.0",
}

// run serves until ctx ends (or, with -stdio, until the input ends) and
// returns the exit status.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cfg, status, ok := parseFlags(args, stderr)
	if !ok {
		return status
	}
	if cfg.memoryLimit > 0 && os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(cfg.memoryLimit << 20)
	}
	logger := newLogger(stderr, cfg.logLevel)
	tel, err := startTelemetry(ctx, cfg, logger)
	if err != nil {
		fmt.Fprintln(stderr, "jsonrpcd:", err)
		return 1
	}
	defer tel.shutdown(stderr)
	opts := tel.options()
	if logger != nil {
		opts = append(opts, jsonrpc.UseLogger(logger))
	}
	if cfg.jwtIssuer != "" {
		// Every method needs a caller: a token on HTTP, a client
		// certificate on TCP.
		opts = append(opts, jsonrpc.RequireAuth())
	}
	srv := demo.NewServer(opts...)
	feed, err := demo.RegisterTwoWay(srv)
	if err != nil {
		fmt.Fprintln(stderr, "jsonrpcd:", err)
		return 1
	}
	logRedis(cfg, logger)
	if cfg.brokerURL != "" {
		b, closeBroker, err := dialBroker(ctx, cfg.brokerURL, logger)
		if err != nil {
			fmt.Fprintln(stderr, "jsonrpcd:", err)
			return 1
		}
		defer closeBroker()
		feed.SetBroker(b)
		defer feed.Close()
		fmt.Fprintf(stdout, "jsonrpcd: feed on the broker %s\n", cfg.brokerURL)
	}
	if cfg.items {
		if err := demo.RegisterItems(srv); err != nil {
			fmt.Fprintln(stderr, "jsonrpcd:", err)
			return 1
		}
	}
	if cfg.discover {
		if err := openrpc.Register(srv, discoveryInfo); err != nil {
			fmt.Fprintln(stderr, "jsonrpcd:", err)
			return 1
		}
	}
	if tel.metricsAddr != nil {
		fmt.Fprintf(stdout, "jsonrpcd: metrics on http://%s/metrics\n", tel.metricsAddr)
	}
	if cfg.stdio {
		return serveStdio(ctx, srv, stdin, stdout, stderr, cfg, logger)
	}
	return serveNetwork(ctx, srv, cfg, stdout, stderr, logger)
}

// newLogger returns the logger of -log-level, writing slog's text to w, or
// nil for off. Its records are within ratelog's default bounds (10 of one
// level and message in 10 s, then one of how many were dropped), shared
// by every host and by the server, so that no client can make the log
// grow faster than that: a record each time something goes wrong would
// let one line that is not JSON, two bytes, write a hundred.
func newLogger(w io.Writer, level slog.Level) *slog.Logger {
	if level == levelOff {
		return nil
	}
	return slog.New(ratelog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level}), ratelog.Options{}))
}

// levelOff is -log-level off: above every level that is logged.
const levelOff = slog.Level(100)

// logLevels are the values of -log-level.
var logLevels = map[string]slog.Level{
	"debug": slog.LevelDebug,
	"info":  slog.LevelInfo,
	"warn":  slog.LevelWarn,
	"error": slog.LevelError,
	"off":   levelOff,
}

// with returns l with the attribute key=value, or nil when l is nil.
func with(l *slog.Logger, key, value string) *slog.Logger {
	if l == nil {
		return nil
	}
	return l.With(key, value)
}

// config is what the flags ask for.
type config struct {
	httpAddr, tcpAddr    string
	fastHTTPAddr         string // "": no fasthttp listener
	ws, stdio            bool
	streamable           bool          // Streamable HTTP at /mcp
	sessionMethod        string        // its sessions begin with this method; "": none
	mcp                  bool          // /mcp is an MCP server, its sessions begun by initialize
	allowedHosts         []string      // Host names /mcp accepts on loopback beside loopback names
	allowedOrigins       []string      // Origins /mcp accepts beside its own
	maxSessions          int           // of its sessions
	maxSessionsPerClient int           // of one client's
	sessionIdle          time.Duration // a session unused
	streamIdle           time.Duration // a GET stream's response without an event; 0: never
	streamLifetime       time.Duration // a GET stream's response; 0: never
	items                bool          // serve items (demo.Items)
	replica              string        // the prefix of its session ids; "": none
	sessionStore         string        // redis:// URL of its shared stores; "": in memory
	discover             bool          // serve rpc.discover
	framing              framing.Framing
	protocol             peer.Protocol // of TCP, WebSocket and stdio
	maxMessage           int
	maxConns             int
	maxConnsPerClient    int               // 0: half of maxConns
	maxBuffered          int64             // of every listener together
	maxBufferedPerClient int64             // of maxBuffered, of one client; 0: half
	budget               *transport.Budget // of maxBuffered, shared by the listeners; made by serveNetwork
	probes               *transport.Health // of -health, shared by the HTTP hosts; made by serveNetwork; nil: none

	readTimeout, writeTimeout, idleTimeout time.Duration // 0: none
	shutdownTimeout                        time.Duration
	health                                 bool            // /healthz and /readyz on the HTTP addresses
	drain                                  time.Duration   // readiness 503 this long before the listeners close
	drainEnd                               <-chan struct{} // ends the drain early; nil: a second signal
	memoryLimit                            int64           // MiB; 0: the runtime's default

	logLevel      slog.Level // levelOff: none
	metricsAddr   string     // "": no metrics
	metricsPublic bool       // -metrics may be an address that is not loopback
	otlpURL       string     // "": no traces
	brokerURL     string     // the feed's broker; "": none

	tlsCert, tlsKey string      // -tls-cert, -tls-key: PEM files; "": plain listeners
	tlsClientCA     string      // -tls-client-ca: PEM file of the clients' authorities; "": no client certificates
	tls             *tls.Config // of the network listeners, loaded by serveNetwork; nil: plain

	jwtIssuer   string   // -jwt-issuer; "": no bearer tokens
	jwtAudience []string // -jwt-audience: the resource's identifiers
	jwtJWKS     string   // -jwt-jwks: the URL of the issuer's key set

	tokens   transport.TokenVerifier     // of -jwt-*, made by serveNetwork; nil: none
	resource *transport.ResourceMetadata // of -jwt-*: published by the HTTP listeners
}

// parseFlags reads the command line. ok is false when the command is to
// exit at once with status (after -h, or a bad command line).
func parseFlags(args []string, stderr io.Writer) (cfg config, status int, ok bool) {
	fs := flag.NewFlagSet("jsonrpcd", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&cfg.httpAddr, "http", "127.0.0.1:8080", "HTTP `address`; empty disables HTTP and WebSocket")
	fs.StringVar(&cfg.tcpAddr, "tcp", "127.0.0.1:9090", "TCP `address`, newline-delimited; empty disables")
	fs.BoolVar(&cfg.ws, "ws", true, "serve WebSocket at /ws of the HTTP address")
	fs.BoolVar(&cfg.streamable, "streamable", true, "serve Streamable HTTP (JSON or server-sent events) at /mcp of the HTTP address")
	fs.StringVar(&cfg.sessionMethod, "sessions", "", "give Streamable HTTP sessions, begun by a request of `METHOD` (such as subscribe) without Mcp-Session-Id; empty: none")
	fs.BoolVar(&cfg.mcp, "mcp", false, "serve /mcp as an MCP server (2025-11-25's sessions, begun by initialize), the methods as tools")
	fs.Func("allowed-hosts", "host `names`, separated by commas, that every HTTP listener (/, /ws, /mcp, -fasthttp) accepts in the Host header of a request to a loopback address (a proxy's), beside loopback names", func(v string) error {
		cfg.allowedHosts = commaList(v)
		return nil
	})
	fs.Func("allowed-origins", "`origins`, separated by commas, such as https://app.example.com, that every HTTP listener (/, /ws, /mcp, -fasthttp) accepts in the Origin header beside its own host's; * accepts every origin", func(v string) error {
		cfg.allowedOrigins = commaList(v)
		return nil
	})
	fs.IntVar(&cfg.maxSessions, "max-sessions", streamhttp.DefaultMaxSessions, "Streamable HTTP sessions open at once, under -sessions")
	fs.IntVar(&cfg.maxSessionsPerClient, "max-sessions-per-client", 0, "Streamable HTTP sessions one client address may hold at once (0: half of -max-sessions)")
	fs.DurationVar(&cfg.sessionIdle, "session-idle", streamhttp.DefaultSessionIdle, "how long a Streamable HTTP session unused is kept (one unused since its initialize: at most 30s); 0 never ends one")
	fs.DurationVar(&cfg.streamIdle, "stream-idle", streamhttp.DefaultStreamIdle, "end the response of a GET stream of a session after this long without an event, for the client to open it again; 0 never")
	fs.DurationVar(&cfg.streamLifetime, "stream-lifetime", streamhttp.DefaultStreamLifetime, "end the response of a GET stream of a session once it has been open this long; 0 never")
	fs.BoolVar(&cfg.items, "items", false, "serve items, a method whose result is a sequence of n items of size bytes, for bench/soak")
	fs.StringVar(&cfg.replica, "replica", "", "begin the session ids with `NAME` and '.', for a load balancer to route by")
	fs.StringVar(&cfg.sessionStore, "session-store", "", "keep sessions and their events in Redis at `redis://host:port`, shared by replicas")
	fs.StringVar(&cfg.fastHTTPAddr, "fasthttp", "", "HTTP/1.1 `address` served with fasthttp (package fasthttprpc); empty: none")
	fs.BoolVar(&cfg.stdio, "stdio", false, "serve standard input and output only")
	fs.BoolVar(&cfg.discover, "discover", true, "answer rpc.discover with the OpenRPC document of the methods (made once, kept until they change)")
	protocolFlag := fs.String("protocol", "none", "cancel and progress notifications of TCP, WebSocket and -stdio: `none`, lsp (lsp.Protocol()) or mcp (mcp.Protocol())")
	framingFlag := fs.String("framing", "line", "framing over TCP and -stdio: `line` (one message per line), header (Content-Length, as LSP) or raw (JSON values back to back)")
	fs.IntVar(&cfg.maxMessage, "max-message", framing.DefaultMaxMessage, "largest request accepted, in `bytes`")
	fs.IntVar(&cfg.maxConns, "max-conns", defaultMaxConns, "connections open at once on each listener; at the cap, new ones wait to be accepted")
	fs.Int64Var(&cfg.maxBuffered, "max-buffered", transport.Limits{}.WithDefaults().MaxBuffered, "`bytes` that messages larger than 64 KiB may hold at once, over every listener together")
	fs.Int64Var(&cfg.maxBufferedPerClient, "max-buffered-per-client", 0, "`bytes` of -max-buffered one client may hold at once (0: half of it)")
	fs.IntVar(&cfg.maxConnsPerClient, "max-conns-per-client", 0, "connections one client address may hold at once on each listener (0: half of -max-conns)")
	fs.DurationVar(&cfg.readTimeout, "read-timeout", defaultReadTimeout, "time to read a request: over HTTP its headers and body, over TCP a message once begun; 0 disables")
	fs.DurationVar(&cfg.writeTimeout, "write-timeout", defaultWriteTimeout, "time to write an answer; over HTTP from the end of the request's headers, with the read timeout added: it bounds the call too; 0 disables")
	fs.DurationVar(&cfg.idleTimeout, "idle-timeout", defaultIdleTimeout, "how long a connection with nothing in flight stays open; 0 disables")
	fs.DurationVar(&cfg.shutdownTimeout, "shutdown-timeout", defaultShutdownTimeout, "bound of the graceful shutdown, after which the connections left are closed")
	fs.BoolVar(&cfg.health, "health", true, "answer GET /healthz (liveness) and /readyz (readiness: 503 once the shutdown begins) on the HTTP addresses")
	fs.DurationVar(&cfg.drain, "drain", 0, "on SIGINT or SIGTERM, answer /readyz with 503 and keep serving for `D` before closing the listeners, for a load balancer to stop sending first; a second signal ends the wait")
	fs.Int64Var(&cfg.memoryLimit, "memory-limit", defaultMemoryLimit, "soft limit of the runtime's memory, in `MiB` (0: the runtime's default; GOMEMLIMIT wins)")
	logLevel := fs.String("log-level", "info", "least severe `level` logged to standard error: debug, info, warn, error or off")
	fs.StringVar(&cfg.metricsAddr, "metrics", "", "serve Prometheus metrics at http://`ADDR`/metrics (a loopback address, unless -metrics-public); empty: none")
	fs.BoolVar(&cfg.metricsPublic, "metrics-public", false, "let -metrics listen on an address that is not loopback, or on every interface (:PORT)")
	fs.StringVar(&cfg.otlpURL, "otlp", "", "export a span per call by OTLP/HTTP to `URL` (such as http://127.0.0.1:4318/v1/traces); empty: none")
	fs.StringVar(&cfg.tlsCert, "tls-cert", "", "serve every network listener over TLS with the certificate (chain) of the PEM `file`, with -tls-key")
	fs.StringVar(&cfg.tlsKey, "tls-key", "", "the PEM `file` of -tls-cert's private key")
	fs.StringVar(&cfg.jwtIssuer, "jwt-issuer", "", "take on every HTTP listener (/, /ws, /mcp, -fasthttp) only requests bearing a JWT of the issuer `URL` for -jwt-audience, verified by the keys of -jwt-jwks, and require a caller of every method (TCP: a certificate of -tls-client-ca)")
	fs.Func("jwt-audience", "with -jwt-issuer, the `URLs`, separated by commas, that name this server: a token for none of them is refused; the first is the resource of the metadata at /.well-known/oauth-protected-resource", func(v string) error {
		cfg.jwtAudience = commaList(v)
		return nil
	})
	fs.StringVar(&cfg.jwtJWKS, "jwt-jwks", "", "with -jwt-issuer, the `URL` of the issuer's key set (its jwks_uri), fetched, kept an hour and fetched again for a key rotated in")
	fs.StringVar(&cfg.tlsClientCA, "tls-client-ca", "", "with -tls-cert, require of every client a certificate issued by an authority of the PEM `file` (mutual TLS)")
	fs.StringVar(&cfg.brokerURL, "broker", "", "carry the feed between replicas on the broker at `URL`: nats://HOST:PORT or redis://HOST:PORT; empty: this process only")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: jsonrpcd [-http ADDR] [-tcp ADDR] [-ws=false] [-fasthttp ADDR] [-mcp] [-sessions METHOD [-max-sessions N] [-max-sessions-per-client N] [-session-idle D] [-stream-idle D] [-stream-lifetime D] [-replica NAME] [-session-store URL]] [-allowed-hosts NAMES] [-allowed-origins ORIGINS] [-stdio] [-framing line|header|raw] [-protocol none|lsp|mcp] [-max-message N] [-max-buffered N [-max-buffered-per-client N]] [-max-conns N]\n\t[-read-timeout D] [-write-timeout D] [-idle-timeout D] [-shutdown-timeout D] [-health=false] [-drain D] [-memory-limit MiB]\n\t[-log-level debug|info|warn|error|off] [-metrics ADDR [-metrics-public]] [-otlp URL] [-broker URL] [-items]\n\t[-tls-cert FILE -tls-key FILE [-tls-client-ca FILE]] [-jwt-issuer URL -jwt-audience URLS -jwt-jwks URL]\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return cfg, 0, false
		}
		return cfg, 2, false
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return cfg, 2, false
	}
	var known bool
	if cfg.logLevel, known = logLevels[*logLevel]; !known {
		fmt.Fprintf(stderr, "jsonrpcd: -log-level must be debug, info, warn, error or off, not %q\n", *logLevel)
		return cfg, 2, false
	}
	if cfg.framing, known = framings[*framingFlag]; !known {
		fmt.Fprintf(stderr, "jsonrpcd: -framing must be line, header or raw, not %q\n", *framingFlag)
		return cfg, 2, false
	}
	if cfg.protocol, known = protocols[*protocolFlag]; !known {
		fmt.Fprintf(stderr, "jsonrpcd: -protocol must be none, lsp or mcp, not %q\n", *protocolFlag)
		return cfg, 2, false
	}
	if cfg.metricsAddr != "" && !cfg.metricsPublic {
		if err := loopbackAddr(cfg.metricsAddr); err != nil {
			fmt.Fprintf(stderr, "jsonrpcd: -metrics %s: %v; give a loopback address, such as 127.0.0.1:9464, or add -metrics-public to serve it there\n", cfg.metricsAddr, err)
			return cfg, 2, false
		}
	}
	if cfg.maxConns <= 0 {
		fmt.Fprintln(stderr, "jsonrpcd: -max-conns must be at least 1")
		return cfg, 2, false
	}
	if cfg.maxBuffered <= 0 {
		fmt.Fprintln(stderr, "jsonrpcd: -max-buffered must be at least 1")
		return cfg, 2, false
	}
	if cfg.maxBufferedPerClient < 0 {
		fmt.Fprintln(stderr, "jsonrpcd: -max-buffered-per-client must be 0 (half of -max-buffered) or more")
		return cfg, 2, false
	}
	if cfg.maxSessions <= 0 {
		fmt.Fprintln(stderr, "jsonrpcd: -max-sessions must be at least 1")
		return cfg, 2, false
	}
	if cfg.mcp {
		if cfg.sessionMethod != "" && cfg.sessionMethod != "initialize" {
			fmt.Fprintf(stderr, "jsonrpcd: -mcp begins sessions with initialize, not -sessions %s\n", cfg.sessionMethod)
			return cfg, 2, false
		}
		if !cfg.streamable {
			fmt.Fprintln(stderr, "jsonrpcd: -mcp needs -streamable")
			return cfg, 2, false
		}
		cfg.sessionMethod = "initialize"
	}
	if err := checkReplicas(cfg); err != nil {
		fmt.Fprintln(stderr, "jsonrpcd:", err)
		return cfg, 2, false
	}
	switch {
	case (cfg.tlsCert == "") != (cfg.tlsKey == ""):
		fmt.Fprintln(stderr, "jsonrpcd: -tls-cert and -tls-key go together")
		return cfg, 2, false
	case cfg.tlsClientCA != "" && cfg.tlsCert == "":
		fmt.Fprintln(stderr, "jsonrpcd: -tls-client-ca needs -tls-cert and -tls-key")
		return cfg, 2, false
	case cfg.tlsCert != "" && cfg.stdio:
		fmt.Fprintln(stderr, "jsonrpcd: -tls-cert applies to the network listeners, not -stdio")
		return cfg, 2, false
	case (cfg.jwtIssuer == "") != (len(cfg.jwtAudience) == 0) || (cfg.jwtIssuer == "") != (cfg.jwtJWKS == ""):
		fmt.Fprintln(stderr, "jsonrpcd: -jwt-issuer, -jwt-audience and -jwt-jwks go together")
		return cfg, 2, false
	case cfg.jwtIssuer != "" && cfg.stdio:
		fmt.Fprintln(stderr, "jsonrpcd: -jwt-issuer applies to the network listeners, not -stdio")
		return cfg, 2, false
	}
	if cfg.readTimeout < 0 || cfg.writeTimeout < 0 || cfg.idleTimeout < 0 || cfg.shutdownTimeout < 0 || cfg.drain < 0 {
		fmt.Fprintln(stderr, "jsonrpcd: a timeout cannot be negative")
		return cfg, 2, false
	}
	return cfg, 0, true
}

// framings are the values of -framing, and what the TCP listener says of
// each when it starts; protocols are the values of -protocol.
var (
	framings = map[string]framing.Framing{
		"line":   framing.Line,
		"header": framing.Header,
		"raw":    framing.Raw,
	}
	protocols = map[string]peer.Protocol{
		"none": {},
		"lsp":  lsp.Protocol(),
		"mcp":  mcp.Protocol(),
	}
	framingNames = map[framing.Framing]string{
		framing.Line:   "newline-delimited",
		framing.Header: "Content-Length framing",
		framing.Raw:    "raw JSON values",
	}
)

// serveStdio answers the messages of stdin on stdout until stdin ends.
func serveStdio(ctx context.Context, srv *jsonrpc.Server, stdin io.Reader, stdout, stderr io.Writer, cfg config, logger *slog.Logger) int {
	s := &stream.Server{
		Server:   srv,
		Framing:  cfg.framing,
		Protocol: cfg.protocol,
		Logger:   with(logger, "transport", "stdio"),
		Limits: transport.Limits{
			MaxMessage:  cfg.maxMessage,
			IdleTimeout: -1, // a console may wait as long as it likes
			ReadTimeout: -1,
		},
	}
	if err := s.ServeConn(ctx, stream.ReadWriteCloser(stdin, stdout)); err != nil && !errors.Is(err, io.EOF) && ctx.Err() == nil {
		fmt.Fprintln(stderr, "jsonrpcd:", err)
		return 1
	}
	return 0
}

// A host is one of the servers of serveNetwork, with its listener.
type host struct {
	l        net.Listener
	shutdown func(context.Context) error // graceful: answers the calls in flight
	close    func()                      // at once, when the shutdown's bound has passed
}

// serveNetwork serves the HTTP and TCP listeners until ctx ends, then shuts
// them down gracefully (see shutdown).
func serveNetwork(ctx context.Context, srv *jsonrpc.Server, cfg config, stdout, stderr io.Writer, logger *slog.Logger) int {
	if cfg.httpAddr == "" && cfg.tcpAddr == "" && cfg.fastHTTPAddr == "" {
		fmt.Fprintln(stderr, "jsonrpcd: nothing to serve: -http and -tcp are both empty (use -stdio for the console)")
		return 2
	}
	if cfg.tlsCert != "" && cfg.tls == nil {
		var err error
		if cfg.tls, err = loadTLS(cfg.tlsCert, cfg.tlsKey, cfg.tlsClientCA); err != nil {
			fmt.Fprintln(stderr, "jsonrpcd:", err)
			return 1
		}
	}
	// Every listener first, so that nothing is announced, nor served, when
	// one of the addresses cannot be had.
	httpL, tcpL, fastL, err := listenAll(cfg)
	if err != nil {
		fmt.Fprintln(stderr, "jsonrpcd:", err)
		return 1
	}
	errc := make(chan error, 3)
	var hosts []host
	var announce []string // what stdout says, once every host runs
	// The probes of every HTTP host; readiness fails when the shutdown
	// begins, before any listener closes.
	if cfg.health {
		cfg.probes = &transport.Health{}
	}
	// One budget of large messages for every listener, so that an attack
	// on all of them together holds no more than on one.
	cfg.budget = transport.NewBudgetPerClient(cfg.maxBuffered, cfg.maxBufferedPerClient)
	cfg.tokens, cfg.resource = tokens(cfg)
	// The limits of the WebSocket and TCP connections.
	limits := transport.Limits{
		MaxMessage:        cfg.maxMessage,
		MaxConns:          cfg.maxConns,
		MaxConnsPerClient: cfg.maxConnsPerClient,
		ReadTimeout:       orNone(cfg.readTimeout),
		WriteTimeout:      orNone(cfg.writeTimeout),
		IdleTimeout:       orNone(cfg.idleTimeout),
	}

	if httpL != nil {
		httpLog := with(logger, "transport", "http")
		l := httpListener(httpL, cfg, httpLog)
		mux := http.NewServeMux()
		mux.Handle("/", &httprpc.Handler{Server: srv, MaxBody: int64(cfg.maxMessage), Budget: cfg.budget, ReadTimeout: orNone(cfg.readTimeout), Logger: httpLog, Health: cfg.probes,
			AllowedHosts: cfg.allowedHosts, AllowedOrigins: cfg.allowedOrigins, Tokens: cfg.tokens, ResourceMetadata: cfg.resource})
		var wh *ws.Handler
		if cfg.ws {
			wh = &ws.Handler{
				Server:   srv,
				Protocol: cfg.protocol,
				Logger:   with(logger, "transport", "ws"),
				Limits:   limits,
				Budget:   cfg.budget,
				Health:   cfg.probes,

				AllowedHosts:   cfg.allowedHosts,
				AllowedOrigins: cfg.allowedOrigins,

				Tokens:           cfg.tokens,
				ResourceMetadata: cfg.resource,
			}
			mux.Handle("/ws", wh)
		}
		var sh *streamhttp.Handler
		if cfg.streamable {
			sh = &streamhttp.Handler{
				Server:               srv,
				Logger:               with(logger, "transport", "streamable"),
				Limits:               limits,
				SessionMethod:        cfg.sessionMethod,
				MaxSessions:          cfg.maxSessions,
				MaxSessionsPerClient: cfg.maxSessionsPerClient,
				SessionIdle:          orNone(cfg.sessionIdle),
				StreamIdle:           orNone(cfg.streamIdle),
				StreamLifetime:       orNone(cfg.streamLifetime),
				Budget:               cfg.budget,
				AllowedHosts:         cfg.allowedHosts,
				AllowedOrigins:       cfg.allowedOrigins,
				Health:               cfg.probes,
				Tokens:               cfg.tokens,
				ResourceMetadata:     cfg.resource,
			}
			if cfg.mcp {
				ms, err := newMCPServer(srv)
				if err != nil {
					fmt.Fprintln(stderr, "jsonrpcd: -mcp:", err)
					closeAll(httpL, tcpL, fastL)
					return 1
				}
				sh.Server, sh.Protocol, sh.MCP = ms, mcp.Protocol(), mcpProfile()
			}
			replicate(sh, cfg)
			mux.Handle("/mcp", sh)
		}
		hs := newHTTPServer(mux, cfg, httpLog)
		if cfg.tls != nil {
			go func() { errc <- hs.ServeTLS(l, "", "") }()
		} else {
			go func() { errc <- hs.Serve(l) }()
		}
		hosts = append(hosts, host{l: l,
			shutdown: func(ctx context.Context) error {
				// net/http does not track WebSocket connections, nor
				// cancel the methods of the streams it waits for: the
				// handlers shut them down, at the same time.
				errs := make(chan error, 2)
				n := 0
				if wh != nil {
					n++
					go func() { errs <- wh.Shutdown(ctx) }()
				}
				if sh != nil {
					n++
					go func() { errs <- sh.Shutdown(ctx) }()
				}
				err := hs.Shutdown(ctx)
				for range n {
					err = errors.Join(err, <-errs)
				}
				return err
			},
			close: func() { hs.Close() }, // the WebSocket handler closes its connections when ctx ends
		})
		scheme, wsScheme, name := "http", "ws", "HTTP"
		if cfg.tls != nil {
			scheme, wsScheme, name = "https", "wss", "HTTPS"
		}
		announce = append(announce, fmt.Sprintf("%s on %s://%s/", name, scheme, l.Addr()))
		if cfg.ws {
			announce = append(announce, fmt.Sprintf("WebSocket on %s://%s/ws", wsScheme, l.Addr()))
		}
		if cfg.streamable {
			announce = append(announce, fmt.Sprintf("Streamable HTTP on %s://%s/mcp", scheme, l.Addr()))
		}
	}
	if tcpL != nil {
		l := newLimitListener(tcpL, cfg.maxConns)
		ts := &stream.Server{
			Server:    srv,
			Framing:   cfg.framing,
			Protocol:  cfg.protocol,
			Order:     stream.Concurrent,
			Logger:    with(logger, "transport", "tcp"),
			Limits:    limits,
			Budget:    cfg.budget,
			TLSConfig: cfg.tls,
		}
		go func() { errc <- ts.Serve(l) }()
		hosts = append(hosts, host{l: l, shutdown: ts.Shutdown, close: func() { ts.Close() }})
		over := ""
		if cfg.tls != nil {
			over = " over TLS"
		}
		announce = append(announce, fmt.Sprintf("TCP (%s%s) on %s", framingNames[cfg.framing], over, l.Addr()))
	}
	if fastL != nil {
		h := serveFastHTTP(fastL, srv, cfg, logger, errc)
		hosts = append(hosts, h)
		if cfg.tls != nil {
			announce = append(announce, fmt.Sprintf("HTTPS (fasthttp) on https://%s/", h.l.Addr()))
		} else {
			announce = append(announce, fmt.Sprintf("HTTP (fasthttp) on http://%s/", h.l.Addr()))
		}
	}
	for _, line := range announce {
		fmt.Fprintln(stdout, "jsonrpcd:", line)
	}

	status := 0
	select {
	case <-ctx.Done():
		// Readiness fails first; the listeners stay open for -drain.
		cfg.probes.Drain()
		if err := drain(cfg, errc, stdout, logger); err != nil {
			fmt.Fprintln(stderr, "jsonrpcd:", err)
			status = 1
		}
	case err := <-errc:
		cfg.probes.Drain()
		fmt.Fprintln(stderr, "jsonrpcd:", err)
		status = 1
	}
	for _, h := range hosts {
		h.l.Close()
	}
	fmt.Fprintln(stdout, "jsonrpcd: shutting down")
	if logger != nil {
		logger.Info("shutting down", "timeout", cfg.shutdownTimeout)
	}
	if !shutdown(hosts, cfg.shutdownTimeout, stderr) {
		status = 1
	} else if logger != nil {
		logger.Info("shutdown complete")
	}
	return status
}

// drain waits for -drain, the listeners open and /readyz failing, so that
// a load balancer stops sending before they close; a second SIGINT or
// SIGTERM (cfg.drainEnd in tests) ends the wait, and a host's failure
// ends it with its error.
func drain(cfg config, errc <-chan error, stdout io.Writer, logger *slog.Logger) error {
	if cfg.drain <= 0 {
		return nil
	}
	var again chan os.Signal // nil (never ready) when the test ends the wait
	if cfg.drainEnd == nil {
		again = make(chan os.Signal, 1)
		signal.Notify(again, os.Interrupt, syscall.SIGTERM)
		defer signal.Stop(again)
	}
	// Said once a second signal would be seen.
	fmt.Fprintf(stdout, "jsonrpcd: draining for %v: /readyz answers 503; a second signal ends the wait\n", cfg.drain)
	if logger != nil {
		logger.Info("draining", "for", cfg.drain)
	}
	t := time.NewTimer(cfg.drain)
	defer t.Stop()
	select {
	case <-t.C:
	case <-cfg.drainEnd:
	case <-again:
	case err := <-errc:
		return err
	}
	return nil
}

// listenAll opens the listeners of -http, -tcp and -fasthttp (nil for an
// empty flag), or none: when one address cannot be had, it closes those it
// opened and returns an error that names the flag, and the other flag
// that names the same address, if any.
func listenAll(cfg config) (httpL, tcpL, fastL net.Listener, err error) {
	flags := []struct {
		name, addr string
		l          *net.Listener
	}{
		{"-http", cfg.httpAddr, &httpL},
		{"-tcp", cfg.tcpAddr, &tcpL},
		{"-fasthttp", cfg.fastHTTPAddr, &fastL},
	}
	for i, f := range flags {
		if f.addr == "" {
			continue
		}
		l, err := net.Listen("tcp", f.addr)
		if err == nil {
			*f.l = l
			continue
		}
		closeAll(httpL, tcpL, fastL)
		hint := ""
		for _, other := range flags[:i] {
			if other.addr != "" && sameAddr(other.addr, f.addr) {
				hint = fmt.Sprintf(" (%s has it: give each listener a port of its own)", other.name)
			}
		}
		if hint == "" && errors.Is(err, syscall.EADDRINUSE) {
			hint = " (another process has it: stop it, or choose another port)"
		}
		return nil, nil, nil, fmt.Errorf("%s %s: %w%s", f.name, f.addr, err, hint)
	}
	return httpL, tcpL, fastL, nil
}

// sameAddr reports whether two listen addresses name the same port on
// the same host, or one of them on every interface.
func sameAddr(a, b string) bool {
	ha, pa, errA := net.SplitHostPort(a)
	hb, pb, errB := net.SplitHostPort(b)
	if errA != nil || errB != nil {
		return a == b
	}
	return pa == pb && pa != "0" && (ha == hb || ha == "" || hb == "" || ha == "0.0.0.0" || hb == "0.0.0.0" || ha == "::" || hb == "::")
}

// closeAll closes the listeners that are not nil.
func closeAll(ls ...net.Listener) {
	for _, l := range ls {
		if l != nil {
			l.Close()
		}
	}
}

// newHTTPServer returns the HTTP server of h, with every timeout of cfg.
// (A hijacked connection, WebSocket's, has no deadline of net/http's.)
// With a logger, it logs each connection opened and closed at Debug, and
// what net/http reports (TLS handshake errors, panics of handlers, errors
// accepting) at Warn.
func newHTTPServer(h http.Handler, cfg config, logger *slog.Logger) *http.Server {
	var protocols http.Protocols
	protocols.SetHTTP1(true)
	protocols.SetUnencryptedHTTP2(true) // h2c, for clients that ask for it
	protocols.SetHTTP2(cfg.tls != nil)  // over TLS, for clients that negotiate it
	headers := readHeaderTimeout
	if cfg.readTimeout > 0 {
		headers = min(headers, cfg.readTimeout)
	}
	// net/http's write deadline runs from the end of the headers, through
	// the reading of the body: the read timeout is added, so that a body
	// that times out can still be answered with 408.
	write := cfg.writeTimeout
	if write > 0 {
		write += cfg.readTimeout
	}
	hs := &http.Server{
		Handler:           h,
		Protocols:         &protocols,
		ReadHeaderTimeout: headers,
		ReadTimeout:       cfg.readTimeout,         // 0: none
		WriteTimeout:      write,                   // 0: none
		IdleTimeout:       orNone(cfg.idleTimeout), // 0 would mean ReadTimeout
		MaxHeaderBytes:    maxHeaderBytes,
		TLSConfig:         cfg.tls.Clone(), // nil: plain; ServeTLS adds h2 to its copy
	}
	if logger != nil {
		hs.ErrorLog = slog.NewLogLogger(logger.Handler(), slog.LevelWarn)
		hs.ConnState = func(c net.Conn, st http.ConnState) {
			switch st {
			case http.StateNew:
				logger.Debug("connection opened", "remote", c.RemoteAddr().String())
			case http.StateClosed, http.StateHijacked:
				logger.Debug("connection closed", "remote", c.RemoteAddr().String(), "state", st.String())
			}
		}
	}
	return hs
}

// orNone is a flag's duration for the fields of httprpc and stream, where 0
// means the default: 0 (none) becomes -1.
func orNone(d time.Duration) time.Duration {
	if d == 0 {
		return -1
	}
	return d
}

// shutdown stops every host at once: it closes every listener first, then
// shuts the hosts down gracefully at the same time, all under one bound.
// When the bound passes it closes what is left and returns at once, without
// waiting for methods that ignore their contexts: the process is about to
// exit. It reports whether every host shut down in time and without error.
func shutdown(hosts []host, bound time.Duration, stderr io.Writer) bool {
	for _, h := range hosts {
		h.l.Close()
	}
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	errs := make(chan error, len(hosts))
	for _, h := range hosts {
		go func() { errs <- h.shutdown(ctx) }()
	}
	ok := true
	for range hosts {
		select {
		case err := <-errs:
			if err != nil && ctx.Err() == nil {
				fmt.Fprintln(stderr, "jsonrpcd: shutdown:", err)
				ok = false
			}
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			for _, h := range hosts {
				h.close()
			}
			fmt.Fprintf(stderr, "jsonrpcd: shutdown: calls still running after %v; closed their connections\n", bound)
			return false
		}
	}
	return ok
}

// commaList returns the items of a list separated by commas, each trimmed
// of spaces, without the empty ones.
func commaList(v string) []string {
	var items []string
	for item := range strings.SplitSeq(v, ",") {
		if item = strings.TrimSpace(item); item != "" {
			items = append(items, item)
		}
	}
	return items
}
