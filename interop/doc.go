// Package interop holds the tests that drive this library's example
// servers with clients written by others: the official MCP Go SDK and the
// MCP TypeScript SDK (its 1.x line, @modelcontextprotocol/sdk, and its 2.x
// line, @modelcontextprotocol/client; the scripts in mcpts/) drive
// examples/mcpserver, and Node's vscode-jsonrpc, the JSON-RPC library of
// Visual Studio Code's language client, drives examples/langserver (the
// script in lsp/); the official MCP conformance suite
// (@modelcontextprotocol/conformance, in mcpconformance/) checks
// examples/mcpserver over Streamable HTTP. The other way round, this
// library's client.HTTP drives the MCP Go SDK's Streamable HTTP server
// (a session, progress, the server's calls, its GET stream). The MCP Go
// SDK's client and the TypeScript SDK's (mcpts/jsonrpcd.mjs) drive
// cmd/jsonrpcd -mcp too, its demo methods as tools, and the TypeScript
// SDK's the README's MCP quick start, built as it is written
// (mcpts/quickstart.mjs). go-ethereum's RPC
// client drives an Ethereum-style API on this library's HTTP, WebSocket
// and IPC hosts (hex quantities, a balance past 2^64, a batch, a revert's
// code and data, eth_subscribe), and the client of creachadair/jrpc2 a
// stream.Server in line and header framing (calls, a batch, the server's
// notifications and its calls back to the client). The npm package
// json-rpc-2.0 (the script in jsonrpcjs/) drives cmd/jsonrpcd over HTTP
// and, both ways, over TCP. The Agent Client Protocol's official SDKs
// spawn examples/acpagent and drive it over its stdin and stdout: the
// client of github.com/coder/acp-go-sdk, and the TypeScript SDK's client
// app and ClientSideConnection (@agentclientprotocol/sdk 2.x and 1.x, the
// script in acpts/). It is a module of its own, so that the library gains
// no dependency from them.
//
// The Node tests need the scripts' packages, installed with npm ci in
// lsp/, mcpts/, jsonrpcjs/, acpts/ and mcpconformance/; without them they
// skip, and fail when JSONRPC_INTEROP=required (as CI sets it).
package interop
