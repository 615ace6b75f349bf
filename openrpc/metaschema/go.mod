module github.com/jsonrpc-go/jsonrpc/openrpc/metaschema

go 1.26.0

replace github.com/jsonrpc-go/jsonrpc => ../..

require (
	github.com/jsonrpc-go/jsonrpc v0.0.0
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3
)

require golang.org/x/text v0.42.0 // indirect
