// Package debugvars publishes the counters of package jsonrpc through
// expvar, as the variable "jsonrpc". Import it for its side effect:
//
//	import _ "github.com/jsonrpc-go/jsonrpc/debugvars"
//
// Like expvar itself, it makes the variables available at /debug/vars on
// http.DefaultServeMux. The root package does not import expvar, so that
// programs that do not want that handler do not get it.
package debugvars

import (
	"expvar"

	"github.com/jsonrpc-go/jsonrpc/internal/asyncbuf"
)

func init() {
	expvar.Publish("jsonrpc", expvar.Func(func() any {
		return map[string]any{"scratch": asyncbuf.ReadStats()}
	}))
}
