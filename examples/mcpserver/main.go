// Command mcpserver is a small Model Context Protocol server: it speaks MCP
// over standard input and output, one JSON message per line, as an agent
// starts a local tool server, or over Streamable HTTP.
//
//	$ go build -o mcpserver ./examples/mcpserver
//
// and configure the agent to run ./mcpserver. With -http ADDR it serves
// Streamable HTTP instead, at http://ADDR/mcp, both eras on the one
// endpoint (package streamhttp, with its MCP profile): sessions of
// 2025-11-25 and 2025-06-18 (Mcp-Session-Id, minted by initialize; the
// GET stream; resumption with Last-Event-ID), and the requests of
// 2026-07-28 each on its own, their headers checked against their body;
// it says where it listens on standard output, and an interrupt shuts it
// down gracefully.
//
//	$ ./mcpserver -http 127.0.0.1:8931
//	mcpserver: Streamable HTTP on http://127.0.0.1:8931/mcp
//
// # Versions
//
// It speaks three versions of MCP, and both eras of the protocol at once:
//
//   - 2026-07-28, the stateless revision. There is no handshake: every
//     request carries, in its params' _meta, the protocol version
//     (io.modelcontextprotocol/protocolVersion, required), the client's
//     capabilities for that request (io.modelcontextprotocol/clientCapabilities,
//     required) and, if the client likes, its identity
//     (io.modelcontextprotocol/clientInfo). A request that names another
//     version is answered with UnsupportedProtocolVersion (-32022, data
//     {"supported": ["2026-07-28", "2025-11-25", "2025-06-18"],
//     "requested": ...}); one that lacks a required field, or holds a
//     malformed one, with -32602. Every result carries "resultType"
//     ("complete", or "input_required") and, in its _meta, the server's
//     identity (io.modelcontextprotocol/serverInfo); the cacheable ones
//     (server/discover, the lists, resources/read) carry ttlMs and
//     cacheScope. The methods of the handshake's era (initialize, ping,
//     resources/subscribe, ...) are not methods of this version (-32601).
//   - 2025-11-25 and 2025-06-18, which begin with initialize: a client that
//     asks for one of them is answered with it, any other with 2025-11-25,
//     the newest of the two; the client then decides whether it can go on.
//     Their requests carry no protocol version in their _meta, and before
//     initialize only ping is answered (-32602 for the others: they lack
//     the _meta of 2026-07-28, and no handshake came first).
//
// A client that probes with server/discover (as 2026-07-28 asks of a
// client that speaks both eras) learns the versions above; one that
// starts with initialize gets the handshake.
//
// # Methods
//
//   - server/discover (2026-07-28): the supported versions, the
//     capabilities ({"tools": {}, "resources": {"subscribe": true},
//     "prompts": {}, "logging": {}, "completions": {}}) and the server's
//     identity.
//   - initialize and notifications/initialized, ping (earlier versions).
//   - tools/list: the tools echo, sleep, note and confirm, with their input
//     schemas, then the conformance suite's (below).
//   - tools/call: echo {"text": string} answers the text; sleep
//     {"ms": number} waits ms milliseconds, sending notifications/progress
//     every 50 ms when the call's _meta.progressToken asks for it, and stops
//     when the client sends notifications/cancelled, after which the call
//     gets no answer, as MCP says; note {"text": string} replaces the text
//     of the resource note://current; confirm {"action": string} asks the
//     user to confirm the action and answers what they said. An unknown
//     tool is answered with -32602; arguments that do not fit with -32602
//     under 2025-06-18, and with a tool result with "isError": true from
//     2025-11-25 on, so that the model can correct itself.
//   - resources/list and resources/read: the resource note://current, the
//     text note sets. An unknown resource is answered with -32602 under
//     2026-07-28 and -32002 (resource not found) before.
//   - subscriptions/listen (2026-07-28): {"notifications":
//     {"resourceSubscriptions": ["note://current"]}} opens a subscription,
//     acknowledged with notifications/subscriptions/acknowledged, then a
//     notifications/resources/updated each time note changes it, each
//     carrying the id of the listen request in _meta
//     (io.modelcontextprotocol/subscriptionId), so that the client tells
//     its subscriptions apart on the one stream. The client ends it with
//     notifications/cancelled (no answer follows); when the input ends the
//     server ends it itself, with the listen request's result (carrying
//     the subscription id too). Filters the server does not honor (the
//     lists do not change, and other resources do not exist) are left out
//     of the acknowledgment; a subscription to nothing it honors is
//     answered at once.
//   - resources/subscribe and resources/unsubscribe (earlier versions):
//     the same notifications, without a subscription id.
//
// Beside these, the tools, resources and prompts that the official MCP
// conformance suite (@modelcontextprotocol/conformance) calls by name,
// each answering what its scenario asks: the tools test_simple_text,
// test_image_content, test_audio_content, test_embedded_resource,
// test_multiple_content_types, test_tool_with_logging (three
// notifications/message), test_error_handling (a tool error),
// test_tool_with_progress, test_sampling (a sampling/createMessage request
// to the client), test_elicitation, test_elicitation_sep1034_defaults and
// test_elicitation_sep1330_enums (elicitation/create), json_schema_2020_12_tool
// and test_reconnection (which, over HTTP in a session, ends its stream's
// connection before it answers, for the client to resume it); the
// resources test://static-text, test://static-binary and
// test://watched-resource, and the template test://template/{id}/data
// (resources/templates/list); the prompts of prompts/list and prompts/get;
// completion/complete; and logging/setLevel, whose level the session's
// notifications/message honor. Under 2026-07-28 the tools that ask the
// client (test_sampling, test_elicitation*) answer a tool error, as that
// version has no requests to the client (confirm shows its input-required
// round trip).
//
// Any other method is answered "Method not found". Over stdio, the server
// exits with status 0 when its input ends.
//
// # Input from the user
//
// 2026-07-28 has no requests from the server to the client: confirm
// answers a first call with an InputRequiredResult ("resultType":
// "input_required") that holds an elicitation/create request in its
// inputRequests, under the key "confirm", and an opaque requestState; the
// client asks the user, and calls the tool again, with a new id, with the
// user's answer in inputResponses and the requestState as it got it. The
// state is signed with a key the process makes when it starts (HMAC-SHA256)
// and names the action and an expiry ten minutes on: a state that does not
// verify, has expired or names another action is refused (-32602), and a
// retry without the answer is asked again. A client that did not declare
// the elicitation capability (form mode) in its _meta gets
// MissingRequiredClientCapability (-32021). Under the earlier versions
// confirm sends the client an elicitation/create request and waits for its
// answer, if the client declared elicitation at initialize, and answers a
// tool error otherwise.
//
// # Errors
//
// Bad input is answered and the server keeps serving. A call still running
// when the input ends is answered -32603 (not the library's codes for a
// context error: LSP's -32800, and -32010 for a deadline, in the range
// MCP reserves for legacy use). The library's own refusals (a message over
// 4 MiB, calls past its limits, an answer over 16 MiB: jsonrpc.UseCodes)
// are answered with MCP's codes for them, mcp.CodeLimitExceeded (-31005) and
// mcp.CodeShuttingDown (-31006): 2026-07-28 asks implementations not
// to use -32000 to -32019 and reserves -32020 to -32099.
//
// It is built on package stream (with framing.Line), package streamhttp
// (-http) and package peer (mcp.Protocol(): cancellation, progress and those
// codes), with a jsonrpc.Intercept that reads each request's _meta once.
// The state of the handshake (the version, the client's capabilities, the
// subscriptions, the log level) is that of the connection: the one over
// stdio, each session's over HTTP.
package main

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/framing"
	"github.com/jsonrpc-go/jsonrpc/peer"
	"github.com/jsonrpc-go/jsonrpc/protocol/mcp"
	"github.com/jsonrpc-go/jsonrpc/stream"
	"github.com/jsonrpc-go/jsonrpc/streamhttp"
	"github.com/jsonrpc-go/jsonrpc/transport"
)

func main() {
	addr := flag.String("http", "", "serve Streamable HTTP at http://ADDR/mcp, instead of standard input and output")
	flag.Parse()
	if *addr != "" {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		os.Exit(serveHTTP(ctx, *addr, os.Stdout, os.Stderr))
	}
	os.Exit(run(os.Stdin, os.Stdout, os.Stderr))
}

// serveHTTP serves Streamable HTTP on addr at /mcp, both eras of MCP on
// the one endpoint, until ctx ends, and returns the exit status. It
// writes the endpoint's URL to stdout once it listens.
func serveHTTP(ctx context.Context, addr string, stdout, stderr io.Writer) int {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintln(stderr, "mcpserver:", err)
		return 1
	}
	s := newServer(newNotes())
	h := &streamhttp.Handler{
		Server:   s.rpc,
		Protocol: mcp.Protocol(),
		MCP:      &streamhttp.MCP{Supported: supportedVersions},
		Logger:   slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(stdout, "mcpserver: Streamable HTTP on http://%s/mcp\n", ln.Addr())
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		fmt.Fprintln(stderr, "mcpserver:", err)
		return 1
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	h.Shutdown(sctx)
	hs.Shutdown(sctx)
	return 0
}

// run serves the client on r and w until its input ends, and returns the
// exit status.
func run(r io.Reader, w io.Writer, stderr io.Writer) int {
	s := &stream.Server{
		Server:   newServer(newNotes()).rpc,
		Framing:  framing.Line,
		Protocol: mcp.Protocol(),
		Limits: transport.Limits{
			IdleTimeout: -1, // an agent may stay idle as long as it likes
			ReadTimeout: -1,
		},
	}
	if err := s.ServeConn(context.Background(), stream.ReadWriteCloser(r, w)); err != nil {
		fmt.Fprintln(stderr, "mcpserver:", err)
		return 1
	}
	return 0
}

// A server serves one client, over one connection: the session is that
// connection's, and the notes are the process's.
type server struct {
	rpc   *jsonrpc.Server
	notes *notes
	key   []byte // signs requestState (confirm)

	mu       sync.Mutex // protects the field below
	sessions map[*peer.Conn]*session
}

func newServer(n *notes) *server {
	s := &server{notes: n, key: make([]byte, 32), sessions: map[*peer.Conn]*session{}}
	rand.Read(s.key)
	// Clients send fields this server does not model (those of later
	// versions of the protocol, and _meta, which intercept reads).
	s.rpc = jsonrpc.NewServer(jsonrpc.AllowUnknownFields(), jsonrpc.UseCodes(mcp.Protocol().Codes), jsonrpc.Intercept(s.intercept))
	s.rpc.MustRegister("server/discover", s.discover)
	s.rpc.MustRegister("initialize", s.initialize)
	s.rpc.MustRegister("notifications/initialized", func(struct{}) {})
	s.rpc.MustRegister("ping", func(struct{}) struct{} { return struct{}{} })
	s.rpc.MustRegister("tools/list", s.listTools)
	// Blocking: sleep waits, and confirm may wait for the client, on a
	// goroutine of their own, and see their context cancelled by
	// notifications/cancelled.
	s.rpc.MustRegister("tools/call", s.callTool, jsonrpc.Blocking())
	s.rpc.MustRegister("resources/list", s.listResources)
	s.rpc.MustRegister("resources/read", s.readResource)
	s.rpc.MustRegister("resources/subscribe", s.subscribe)
	s.rpc.MustRegister("resources/unsubscribe", s.unsubscribe)
	s.rpc.MustRegister("resources/templates/list", s.listTemplates)
	s.rpc.MustRegister("prompts/list", s.listPrompts)
	s.rpc.MustRegister("prompts/get", s.getPrompt)
	s.rpc.MustRegister("completion/complete", s.complete)
	s.rpc.MustRegister("logging/setLevel", s.setLevel)
	// Blocking: a subscription lasts until it is cancelled.
	s.rpc.MustRegister("subscriptions/listen", s.listen, jsonrpc.Blocking())
	return s
}

// ended answers a call that its context ended without the client's
// cancel (the input ended while it ran: the client cancelled calls get no
// answer at all) with -32603 instead of the library's answers to a context
// error: jsonrpc.CodeCancelled (-32800) is LSP's RequestCancelled, and
// jsonrpc.CodeDeadline (-32010) is in the range MCP 2026-07-28 asks new
// implementations not to use.
func ended(err error) error {
	if code := jsonrpc.ErrorCode(err); code == jsonrpc.CodeCancelled || code == jsonrpc.CodeDeadline {
		return jsonrpc.NewError(jsonrpc.CodeInternalError, "").WithData("the call ended before its result: " + err.Error())
	}
	return err
}

// The messages of MCP that this server reads and writes, with only the
// fields it uses.
type (
	implementation struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	}
	serverCapabilities struct {
		Tools     struct{} `json:"tools"`
		Resources struct {
			Subscribe bool `json:"subscribe"`
		} `json:"resources"`
		Prompts     struct{} `json:"prompts"`
		Logging     struct{} `json:"logging"`
		Completions struct{} `json:"completions"`
	}

	discoverResult struct {
		resultFields
		SupportedVersions []string           `json:"supportedVersions"`
		Capabilities      serverCapabilities `json:"capabilities"`
		cacheFields
	}

	initializeParams struct {
		ProtocolVersion string          `json:"protocolVersion"`
		Capabilities    json.RawMessage `json:"capabilities"`
		ClientInfo      implementation  `json:"clientInfo"`
	}
	initializeResult struct {
		ProtocolVersion string             `json:"protocolVersion"`
		Capabilities    serverCapabilities `json:"capabilities"`
		ServerInfo      implementation     `json:"serverInfo"`
	}
)

// capabilities are this server's, in every version.
var capabilities = func() serverCapabilities {
	var c serverCapabilities
	c.Resources.Subscribe = true
	return c
}()

// discoverTTL is how long, in milliseconds, a client may keep what
// server/discover and tools/list answer: they do not change while the
// process lives.
const discoverTTL = 3_600_000

func (s *server) discover(ctx context.Context, _ struct{}) discoverResult {
	r := requestOf(ctx)
	return discoverResult{
		resultFields:      r.complete(),
		SupportedVersions: supportedVersions,
		Capabilities:      capabilities,
		cacheFields:       r.cache(discoverTTL),
	}
}

// initialize negotiates the version of the connection's requests that do
// not carry their own: the one the client asked for when this server
// speaks it, and 2025-11-25 otherwise, as MCP's version negotiation says;
// the client then decides whether it can go on.
func (s *server) initialize(ctx context.Context, p initializeParams) (initializeResult, error) {
	if p.ProtocolVersion == "" {
		return initializeResult{}, invalidParams("initialize: protocolVersion is required")
	}
	caps, ok := parseCapabilities(p.Capabilities)
	if !ok {
		return initializeResult{}, invalidParams("initialize: capabilities must be an object")
	}
	v := negotiate(p.ProtocolVersion)
	ss := s.sessionOf(ctx, true)
	ss.mu.Lock()
	ss.version, ss.caps = v, caps
	ss.mu.Unlock()
	return initializeResult{ProtocolVersion: v, Capabilities: capabilities, ServerInfo: serverInfo}, nil
}
