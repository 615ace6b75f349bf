module github.com/jsonrpc-go/jsonrpc

go 1.26.0

require (
	github.com/coder/websocket v1.8.15
	github.com/go-json-experiment/json v1.27.2
)
