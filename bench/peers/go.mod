module github.com/jsonrpc-go/jsonrpc/bench/peers

go 1.26.0

require (
	github.com/creachadair/jrpc2 v1.3.5
	github.com/ethereum/go-ethereum v1.17.10
	github.com/gorilla/rpc v1.2.0
	github.com/jsonrpc-go/jsonrpc v0.0.0
	github.com/jsonrpc-go/jsonrpc/bench v0.0.0
	github.com/jsonrpc-go/jsonrpc/codec/fast v0.0.0
	github.com/jsonrpc-go/jsonrpc/fasthttprpc v0.0.0
	github.com/sourcegraph/jsonrpc2 v0.2.3
	github.com/valyala/fasthttp v1.74.0
	go.lsp.dev/jsonrpc2 v1.0.1
	google.golang.org/grpc v1.84.0
	google.golang.org/protobuf v1.36.12
)

require (
	github.com/Microsoft/go-winio v0.6.2 // indirect
	github.com/StackExchange/wmi v1.2.1 // indirect
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/creachadair/mds v0.30.5 // indirect
	github.com/deckarep/golang-set/v2 v2.6.0 // indirect
	github.com/fjl/jsonw v0.1.0 // indirect
	github.com/go-json-experiment/json v1.27.2 // indirect
	github.com/go-logr/logr v1.4.4 // indirect
	github.com/go-logr/stdr v1.2.2 // indirect
	github.com/go-ole/go-ole v1.3.0 // indirect
	github.com/goccy/go-json v0.12.0 // indirect
	github.com/gorilla/websocket v1.5.3 // indirect
	github.com/holiman/uint256 v1.3.2 // indirect
	github.com/klauspost/compress v1.20.1 // indirect
	github.com/molecule-man/go-brrr v1.0.1 // indirect
	github.com/shirou/gopsutil v3.21.4-0.20210419000835-c7a38de76ee5+incompatible // indirect
	github.com/tklauser/go-sysconf v0.3.12 // indirect
	github.com/tklauser/numcpus v0.6.1 // indirect
	github.com/valyala/bytebufferpool v1.0.0 // indirect
	go.opentelemetry.io/auto/sdk v1.2.1 // indirect
	go.opentelemetry.io/otel v1.47.0 // indirect
	go.opentelemetry.io/otel/log v1.47.0 // indirect
	go.opentelemetry.io/otel/metric v1.47.0 // indirect
	go.opentelemetry.io/otel/sdk v1.47.0 // indirect
	go.opentelemetry.io/otel/trace v1.47.0 // indirect
	golang.org/x/net v0.59.0 // indirect
	golang.org/x/sync v0.23.0 // indirect
	golang.org/x/sys v0.48.0 // indirect
	golang.org/x/text v0.42.0 // indirect
	google.golang.org/genproto/googleapis/rpc v0.0.0-20260819154853-08b0e4226688 // indirect
)

replace (
	github.com/jsonrpc-go/jsonrpc => ../..
	github.com/jsonrpc-go/jsonrpc/bench => ..
	github.com/jsonrpc-go/jsonrpc/codec/fast => ../../codec/fast
	github.com/jsonrpc-go/jsonrpc/fasthttprpc => ../../fasthttprpc
)
