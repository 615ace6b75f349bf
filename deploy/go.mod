module github.com/jsonrpc-go/jsonrpc/deploy

go 1.26.0

replace github.com/jsonrpc-go/jsonrpc => ../

require (
	github.com/coder/websocket v1.8.15
	github.com/jsonrpc-go/jsonrpc v0.0.0
)
