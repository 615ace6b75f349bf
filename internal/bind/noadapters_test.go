//go:build jsonrpc_noadapters

package bind

// adapters reports whether the generated adapters are built in.
const adapters = false
