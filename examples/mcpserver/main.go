// Command mcpserver is a small Model Context Protocol server, built on
// package mcpserver: it speaks MCP over standard input and output, one
// JSON message per line, as an agent starts a local tool server, or over
// Streamable HTTP.
//
//	$ go build -o mcpserver ./examples/mcpserver
//
// and configure the agent to run ./mcpserver. With -http ADDR it serves
// Streamable HTTP instead, at http://ADDR/mcp, both eras on the one
// endpoint: sessions of 2025-11-25 and 2025-06-18 (Mcp-Session-Id, minted
// by initialize; the GET stream; resumption with Last-Event-ID), and the
// stateless requests of 2026-07-28, their headers checked against their
// body; it says where it listens on standard output, and an interrupt
// shuts it down gracefully.
//
//	$ ./mcpserver -http 127.0.0.1:8931
//	mcpserver: Streamable HTTP on http://127.0.0.1:8931/mcp
//
// It speaks MCP 2026-07-28 (stateless: every request carries its version
// and its client's capabilities in its _meta; server/discover), and
// 2025-11-25 and 2025-06-18 (which begin with initialize), deciding for
// each request, as package mcpserver does.
//
// # Tools
//
//   - echo {"text": string} answers the text.
//   - sleep {"ms": number} waits ms milliseconds, reporting its progress
//     every 50 ms when the call's _meta.progressToken asks for it, and
//     stops when the client cancels it (notifications/cancelled), after
//     which the call gets no answer.
//   - note {"text": string} replaces the text of the resource
//     note://current, whose subscribers are told (resources/subscribe, or
//     2026-07-28's subscriptions/listen).
//   - confirm {"action": string} asks the user to confirm the action and
//     answers what they said. Under 2026-07-28, which has no requests from
//     the server to the client, a first call is answered with an
//     InputRequiredResult ("resultType": "input_required") holding an
//     elicitation/create request under the key "confirm", and an opaque
//     requestState, signed with a key the process makes when it starts
//     (HMAC-SHA256) and naming the action and an expiry ten minutes on;
//     the client calls again with the user's answer in inputResponses and
//     the state as it got it. A state that does not verify, has expired or
//     names another action is refused (-32602); a client that did not
//     declare form elicitation gets MissingRequiredClientCapability
//     (-32021). Under the earlier revisions confirm sends the client an
//     elicitation/create request and waits for its answer.
//
// Beside these, the tools, resources and prompts that the official MCP
// conformance suite (@modelcontextprotocol/conformance) calls by name,
// each answering what its scenario asks: the tools test_simple_text,
// test_image_content, test_audio_content, test_embedded_resource,
// test_multiple_content_types, test_tool_with_logging,
// test_error_handling, test_tool_with_progress, test_sampling,
// test_elicitation, test_elicitation_sep1034_defaults,
// test_elicitation_sep1330_enums, json_schema_2020_12_tool (its schema
// given whole, with 2020-12's allOf, anyOf, if/then/else and $anchor),
// the diagnostic tools of 2026-07-28 (test_missing_capability,
// test_streaming_elicitation, test_logging_tool) and test_reconnection (which, over HTTP in a session, ends
// its stream's connection before it answers, for the client to resume
// it); the resources test://static-text, test://static-binary and
// test://watched-resource, and the template test://template/{id}/data;
// the prompts test_simple_prompt, test_prompt_with_arguments,
// test_prompt_with_embedded_resource and test_prompt_with_image; and
// completion/complete. Under 2026-07-28 the tools that ask the client
// (test_sampling, test_elicitation*) answer a tool error.
//
// Over stdio, the server exits with status 0 when its input ends; a call
// still running then is answered -32603.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/jsonrpc-go/jsonrpc/mcpserver"
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

// newServer returns the server with its tools, resources and prompts.
func newServer() *mcpserver.Server {
	s := mcpserver.New("mcpserver", "1.0.0", &mcpserver.Options{ListTTL: time.Hour})
	addTools(s)
	addSuite(s)
	return s
}

// serveHTTP serves Streamable HTTP on addr at /mcp until ctx ends, and
// returns the exit status. It writes the endpoint's URL to stdout once
// it listens.
func serveHTTP(ctx context.Context, addr string, stdout, stderr io.Writer) int {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintln(stderr, "mcpserver:", err)
		return 1
	}
	h := newServer().HTTPHandler()
	h.Logger = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
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
	if err := newServer().ServeStream(context.Background(), r, w); err != nil {
		fmt.Fprintln(stderr, "mcpserver:", err)
		return 1
	}
	return 0
}
