module github.com/jsonrpc-go/jsonrpc

go 1.26.0

require (
	github.com/coder/websocket v1.8.15
	github.com/valyala/fasthttp v1.74.0
)

require (
	github.com/klauspost/compress v1.20.0 // indirect
	github.com/molecule-man/go-brrr v1.0.1 // indirect
	github.com/valyala/bytebufferpool v1.0.0 // indirect
)
