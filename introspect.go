package jsonrpc

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"unicode/utf8"

	"github.com/jsonrpc-go/jsonrpc/internal/registry"
	"github.com/jsonrpc-go/jsonrpc/internal/wire"
)

// The root package hands package openrpc what registration knows through
// internal/registry, so that describing a server adds nothing to this
// package's API nor to its request path.
func init() {
	registry.Methods = func(srv any) []registry.Method { return srv.(*Server).describe() }
	registry.Generation = func(srv any) any { return srv.(*Server).methods.Load() }
	registry.ProcessScannedBatch = func(srv any, ctx context.Context, dst, req, arr []byte, reqs []wire.Request, n int, err error, reply func([]byte)) bool {
		return srv.(*Server).processScannedBatch(ctx, dst, req, arr, reqs, n, err, reply)
	}
	registry.BatchScan = batchScan
	registry.KeepRunning = keepRunning
	registry.ConnMethod = func(name string, fn any, names ...string) (any, error) {
		return NewServer().build(name, fn, &methodConfig{names: names, blocking: true}, reflect.Value{}, nil)
	}
	registry.RegisterReserved = func(srv any, name string, fn any, opts []any) error {
		var mc methodConfig
		for _, o := range opts {
			o.(MethodOption)(&mc)
		}
		return srv.(*Server).registerReserved(name, fn, &mc)
	}
}

// describe lists the registered methods with what their binding knows.
func (s *Server) describe() []registry.Method {
	t := s.methods.Load()
	if t == nil {
		return nil
	}
	ms := make([]registry.Method, 0, len(t.byName))
	for _, m := range t.byName {
		rm := registry.Method{Name: m.name, Blocking: m.blocking, Func: m.fn.Info(), Public: m.public}
		if m.guard != nil {
			rm.Guarded, rm.Scopes = true, m.guard.scopes
		}
		ms = append(ms, rm)
	}
	return ms
}

// registerReserved registers fn under a name of the "rpc." prefix, which
// Register refuses, for the protocol's own methods (rpc.discover).
func (s *Server) registerReserved(name string, fn any, mc *methodConfig) error {
	if !strings.HasPrefix(name, "rpc.") || len(name) == len("rpc.") || !utf8.ValidString(name) {
		return fmt.Errorf("%w %q: not a reserved method name", ErrInvalidMethod, name)
	}
	m, err := s.build(name, fn, mc, reflect.Value{}, nil)
	if err != nil {
		return err
	}
	return s.add(m)
}
