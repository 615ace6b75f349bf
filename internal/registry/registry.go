// Package registry is how packages of this module learn what a Server has
// registered without the root package exporting more: the root package sets
// its variables at init, and packages such as openrpc call them.
package registry

import (
	"context"

	"github.com/jsonrpc-go/jsonrpc/internal/bind"
	"github.com/jsonrpc-go/jsonrpc/internal/wire"
)

// A Method is one registered method.
type Method struct {
	Name     string
	Blocking bool      // registered with Blocking
	Func     bind.Info // its params and result
	Public   bool      // declared public (jsonrpc.Public)
	Guarded  bool      // its calls require a Principal (jsonrpc.RequireScopes, RequireAuth)
	Scopes   []string  // the scopes they require
}

// Methods returns the methods registered on srv, a *jsonrpc.Server, in no
// particular order. It is set by the root package at init.
var Methods func(srv any) []Method

// Generation returns a value that changes whenever the methods of srv, a
// *jsonrpc.Server, change (its method table, replaced whole on each
// registration), for a cache of what Methods describes. It is set by the
// root package at init.
var Generation func(srv any) any

// RegisterReserved registers fn under name on srv, a *jsonrpc.Server, with
// opts (each a jsonrpc.MethodOption), where name starts with "rpc.", the
// prefix the specification reserves for the protocol's own methods and
// Register refuses. It is set by the root package at init.
var RegisterReserved func(srv any, name string, fn any, opts []any) error

// ProcessScannedBatch answers req, a batch that the caller has scanned
// with wire.Scanner.ScanBatch, of the default depth, into reqs (at least
// BatchScan records), with its results arr, n and err, as ProcessAsync
// would, without scanning it again, and reports true; it reports false,
// having done nothing, when the server must scan req itself (a scanner of
// another depth, a large request). srv is a *jsonrpc.Server. It is set by
// the root package at init. (A single request goes through the typed
// (*jsonrpc.Server).ProcessRequest.)
var ProcessScannedBatch func(srv any, ctx context.Context, dst, req, arr []byte, reqs []wire.Request, n int, err error, reply func([]byte)) bool

// KeepRunning keeps one of the Limits.MaxRunning slots of the server of
// the call of ctx (and of its client's share, MaxRunningPerClient) past
// the call's answer, for work that goes on after it: the producer of a
// sequence result left open. It is the call's own slot when the call ran
// on a goroutine of its own, and a new one otherwise. It returns the
// function that gives the slot back (once; later calls do nothing), or
// false when no slot is free. For a ctx of no call it keeps nothing and
// reports true. It is set by the root package at init.
var KeepRunning func(ctx context.Context) (release func(), ok bool)

// ConnMethod binds fn as a method of a connection's protocol, name, that
// runs as a Blocking method, with its params named names, and returns it
// for a keys.MethodLookup: the Server of a call over a connection whose
// context carries the lookup runs it when it has no method of that name.
// It is set by the root package at init.
var ConnMethod func(name string, fn any, names ...string) (any, error)

// BatchScan is how many requests of a batch the server's scan records
// (the rest are found again as they are answered); set by the root
// package at init.
var BatchScan int
