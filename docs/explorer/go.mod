module github.com/jsonrpc-go/jsonrpc/docs/explorer

go 1.26.0

require (
	github.com/chromedp/cdproto v0.159.0
	github.com/chromedp/chromedp v0.23.0
)

require github.com/go-json-experiment/json v1.27.2 // indirect
