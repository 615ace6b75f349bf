module github.com/jsonrpc-go/jsonrpc/bench/peers

go 1.25.0

require (
	github.com/creachadair/jrpc2 v1.3.5
	github.com/jsonrpc-go/jsonrpc v0.0.0
	github.com/sourcegraph/jsonrpc2 v0.2.3
)

require (
	github.com/creachadair/mds v0.30.5 // indirect
	golang.org/x/sync v0.22.0 // indirect
)

replace github.com/jsonrpc-go/jsonrpc => ../..
