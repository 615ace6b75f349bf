module github.com/jsonrpc-go/jsonrpc/docs/explorer

go 1.26.0

require (
	github.com/chromedp/cdproto v0.159.0
	github.com/chromedp/chromedp v0.23.0
	github.com/jsonrpc-go/jsonrpc v0.0.0
)

require github.com/coder/websocket v1.8.15 // indirect

require github.com/go-json-experiment/json v1.27.2 // indirect

replace github.com/jsonrpc-go/jsonrpc => ../..
