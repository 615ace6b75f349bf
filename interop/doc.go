// Package interop holds the tests that drive this library's example
// servers with clients written by others: the official MCP Go SDK drives
// examples/mcpserver, and Node's vscode-jsonrpc, the JSON-RPC library of
// Visual Studio Code's language client, drives examples/langserver (the
// script in lsp/). It is a module of its own, so that the library gains no
// dependency from them.
//
// The Node test needs the script's packages, installed with npm ci in
// lsp/; without them it skips, and fails when JSONRPC_INTEROP=required
// (as CI sets it).
package interop
