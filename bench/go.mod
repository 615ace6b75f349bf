module github.com/jsonrpc-go/jsonrpc/bench

go 1.26.0

require (
	github.com/jsonrpc-go/jsonrpc v0.0.0
	github.com/jsonrpc-go/jsonrpc/fasthttprpc v0.0.0
	github.com/valyala/fasthttp v1.74.0
)

require (
	github.com/klauspost/compress v1.20.0 // indirect
	github.com/molecule-man/go-brrr v1.0.1 // indirect
	github.com/tetratelabs/wazero v1.12.0 // indirect
	github.com/valyala/bytebufferpool v1.0.0 // indirect
	golang.org/x/sys v0.47.0 // indirect
)

replace (
	github.com/jsonrpc-go/jsonrpc => ../
	github.com/jsonrpc-go/jsonrpc/fasthttprpc => ../fasthttprpc
)

tool github.com/tetratelabs/wazero/cmd/wazero
