//go:build jsonrpc_noadapters

package bind

// fastTable is empty under the build tag jsonrpc_noadapters: the generated
// adapters (table.go, adapters.go) are left out of the binary, and every
// function registered with Register is called through reflection.
var fastTable = map[tableKey]func(*Func) fastInvoker{}
