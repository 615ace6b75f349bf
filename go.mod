module github.com/jsonrpc-go/jsonrpc

go 1.25
