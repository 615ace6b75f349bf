// Package registry is how packages of this module learn what a Server has
// registered without the root package exporting more: the root package sets
// its variables at init, and packages such as openrpc call them.
package registry

import "github.com/jsonrpc-go/jsonrpc/internal/bind"

// A Method is one registered method.
type Method struct {
	Name     string
	Blocking bool      // registered with Blocking
	Func     bind.Info // its params and result
}

// Methods returns the methods registered on srv, a *jsonrpc.Server, in no
// particular order. It is set by the root package at init.
var Methods func(srv any) []Method

// RegisterReserved registers fn under name on srv, a *jsonrpc.Server, where
// name starts with "rpc.", the prefix the specification reserves for the
// protocol's own methods and Register refuses. It is set by the root
// package at init.
var RegisterReserved func(srv any, name string, fn any) error
