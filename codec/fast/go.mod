module github.com/jsonrpc-go/jsonrpc/codec/fast

go 1.26.0

replace github.com/jsonrpc-go/jsonrpc => ../../

require (
	github.com/goccy/go-json v0.12.0
	github.com/jsonrpc-go/jsonrpc v0.0.0
)
