module github.com/jsonrpc-go/jsonrpc/bench

go 1.26.0

require (
	github.com/bytedance/sonic v1.15.5
	github.com/jsonrpc-go/jsonrpc v0.0.0
	github.com/jsonrpc-go/jsonrpc/codec/fast v0.0.0
	github.com/jsonrpc-go/jsonrpc/fasthttprpc v0.0.0
	github.com/tetratelabs/wazero v1.12.0
	github.com/valyala/fasthttp v1.74.0
)

require (
	github.com/bytedance/gopkg v0.1.3 // indirect
	github.com/bytedance/sonic/loader v0.5.3 // indirect
	github.com/cloudwego/base64x v0.1.6 // indirect
	github.com/go-json-experiment/json v1.27.2 // indirect
	github.com/goccy/go-json v0.12.0 // indirect
	github.com/klauspost/compress v1.20.1 // indirect
	github.com/klauspost/cpuid/v2 v2.3.0 // indirect
	github.com/molecule-man/go-brrr v1.0.1 // indirect
	github.com/stretchr/testify v1.12.1 // indirect
	github.com/twitchyliquid64/golang-asm v0.15.1 // indirect
	github.com/valyala/bytebufferpool v1.0.0 // indirect
	golang.org/x/arch v0.0.0-20210923205945-b76863e36670 // indirect
	golang.org/x/sys v0.48.0 // indirect
)

replace (
	github.com/jsonrpc-go/jsonrpc => ../
	github.com/jsonrpc-go/jsonrpc/codec/fast => ../codec/fast
	github.com/jsonrpc-go/jsonrpc/fasthttprpc => ../fasthttprpc
)

tool github.com/tetratelabs/wazero/cmd/wazero
