// Command mcpserver is a small Model Context Protocol server: it speaks MCP
// (protocol version 2025-06-18) over standard input and output, one JSON
// message per line, as an agent starts a local tool server.
//
//	$ go build -o mcpserver ./examples/mcpserver
//
// and configure the agent to run ./mcpserver. It answers:
//
//   - initialize, with its protocol version, capabilities ({"tools": {}})
//     and serverInfo; a client that asks for another version is answered
//     with 2025-06-18, the one it speaks. notifications/initialized.
//   - ping, with {}.
//   - tools/list: the tools echo and sleep, with their input schemas.
//   - tools/call: echo {"text": string} answers the text; sleep
//     {"ms": number} waits ms milliseconds, sending notifications/progress
//     every 50 ms when the call's _meta.progressToken asks for it, and
//     stops when the client sends notifications/cancelled, after which the
//     call gets no answer, as MCP says. An unknown tool, or arguments that
//     do not fit, are answered with the error -32602 (Invalid params).
//
// Any other method is answered "Method not found", also before
// initialize. The server exits with status 0 when its input ends.
//
// It is built on package stream (with framing.Line) and package peer
// (peer.MCP cancellation and progress).
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/framing"
	"github.com/jsonrpc-go/jsonrpc/peer"
	"github.com/jsonrpc-go/jsonrpc/stream"
)

// protocolVersion is the version of MCP this server speaks.
const protocolVersion = "2025-06-18"

// progressEvery is how often sleep reports its progress.
const progressEvery = 50 * time.Millisecond

func main() {
	os.Exit(run(os.Stdin, os.Stdout, os.Stderr))
}

// run serves the client on r and w until its input ends, and returns the
// exit status.
func run(r io.Reader, w io.Writer, stderr io.Writer) int {
	s := &stream.Server{
		Server:   newServer(),
		Framing:  framing.Line,
		Protocol: peer.MCP,
		Limits: peer.Limits{
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

func newServer() *jsonrpc.Server {
	// Clients send fields this server does not model (_meta, and those of
	// later versions of the protocol).
	srv := jsonrpc.NewServer(jsonrpc.AllowUnknownFields())
	srv.MustRegister("initialize", initialize)
	srv.MustRegister("notifications/initialized", func(struct{}) {})
	srv.MustRegister("ping", func(struct{}) struct{} { return struct{}{} })
	srv.MustRegister("tools/list", func(struct{}) listToolsResult { return listToolsResult{Tools: tools} })
	// Blocking: sleep waits, on a goroutine of its own, and sees its
	// context cancelled by notifications/cancelled.
	srv.MustRegister("tools/call", callTool, jsonrpc.Blocking())
	return srv
}

// The messages of MCP that this server reads and writes, with only the
// fields it uses.
type (
	implementation struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	}
	initializeParams struct {
		ProtocolVersion string         `json:"protocolVersion"`
		ClientInfo      implementation `json:"clientInfo"`
	}
	initializeResult struct {
		ProtocolVersion string             `json:"protocolVersion"`
		Capabilities    serverCapabilities `json:"capabilities"`
		ServerInfo      implementation     `json:"serverInfo"`
	}
	serverCapabilities struct {
		Tools struct{} `json:"tools"`
	}

	tool struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		InputSchema json.RawMessage `json:"inputSchema"`
	}
	listToolsResult struct {
		Tools []tool `json:"tools"`
	}

	callToolParams struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	content struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	callToolResult struct {
		Content []content `json:"content"`
	}
)

// tools are the tools of tools/list.
var tools = []tool{
	{
		Name:        "echo",
		Description: "Answers the text it is given.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string","description":"The text to answer."}},"required":["text"],"additionalProperties":false}`),
	},
	{
		Name:        "sleep",
		Description: "Waits for ms milliseconds, reporting progress, and can be cancelled.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"ms":{"type":"number","minimum":0,"maximum":600000,"description":"How long to wait, in milliseconds."}},"required":["ms"],"additionalProperties":false}`),
	},
}

// initialize answers the version the client asked for when it is this
// server's, and this server's otherwise, as MCP's version negotiation
// says: the client then decides whether it can go on.
func initialize(_ initializeParams) initializeResult {
	return initializeResult{
		ProtocolVersion: protocolVersion,
		ServerInfo:      implementation{Name: "mcpserver", Version: "1.0.0"},
	}
}

// invalidParams is MCP's error for an unknown tool or arguments that do
// not fit its schema.
func invalidParams(format string, args ...any) *jsonrpc.Error {
	return jsonrpc.NewError(jsonrpc.CodeInvalidParams, fmt.Sprintf(format, args...))
}

func callTool(ctx context.Context, p callToolParams) (*callToolResult, error) {
	switch p.Name {
	case "echo":
		var args struct {
			Text *string `json:"text"`
		}
		if err := json.Unmarshal(p.Arguments, &args); err != nil || args.Text == nil {
			return nil, invalidParams("echo: the arguments must be {\"text\": string}")
		}
		return &callToolResult{Content: []content{{Type: "text", Text: *args.Text}}}, nil
	case "sleep":
		var args struct {
			MS *float64 `json:"ms"`
		}
		if err := json.Unmarshal(p.Arguments, &args); err != nil || args.MS == nil || *args.MS < 0 || *args.MS > 600000 {
			return nil, invalidParams("sleep: the arguments must be {\"ms\": number from 0 to 600000}")
		}
		if err := sleep(ctx, *args.MS); err != nil {
			return nil, err
		}
		return &callToolResult{Content: []content{{Type: "text", Text: fmt.Sprintf("slept %g ms", *args.MS)}}}, nil
	}
	return nil, invalidParams("Unknown tool: %s", p.Name)
}

// sleep waits for ms milliseconds, reporting its progress to the caller
// when it asked for it (peer.ProgressOf), and returns ctx's error when ctx
// ends first: cancelled by the client, the call gets no answer.
func sleep(ctx context.Context, ms float64) error {
	p := peer.ProgressOf(ctx) // nil, reporting nothing, without a progressToken
	d := time.Duration(ms * float64(time.Millisecond))
	start := time.Now()
	tick := time.NewTicker(progressEvery)
	defer tick.Stop()
	done := time.NewTimer(d)
	defer done.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-done.C:
			return nil
		case <-tick.C:
			elapsed := float64(time.Since(start).Milliseconds())
			p.Report(ctx, peer.MCPProgress{
				Progress: min(elapsed, ms),
				Total:    ms,
				Message:  fmt.Sprintf("slept %g of %g ms", min(elapsed, ms), ms),
			})
		}
	}
}
