module github.com/jsonrpc-go/jsonrpc/jwtauth

go 1.26.0

require github.com/jsonrpc-go/jsonrpc v0.0.0

require github.com/go-jose/go-jose/v4 v4.1.9

replace github.com/jsonrpc-go/jsonrpc => ../
