// Package misuse holds registrations that pass an option where it does not
// apply. Each must fail to compile with the error its comment gives;
// TestOptionMisuseDoesNotCompile builds the package and checks them.
package misuse

import "github.com/jsonrpc-go/jsonrpc"

type svc struct{}

func (svc) Add(a, b int) int { return a + b }

func misuse(srv *jsonrpc.Server) {
	srv.RegisterService("svc", svc{}, jsonrpc.Blocking())                                   // ERROR "cannot use jsonrpc.Blocking\(\) .* as jsonrpc.ServiceOption value"
	srv.RegisterService("svc", svc{}, jsonrpc.ParamNames("name"))                           // ERROR "cannot use jsonrpc.ParamNames\(.name.\) .* as jsonrpc.ServiceOption value"
	srv.RegisterService("svc", svc{}, jsonrpc.Defaults(1))                                  // ERROR "cannot use jsonrpc.Defaults\(1\) .* as jsonrpc.ServiceOption value"
	srv.RegisterService("svc", svc{}, jsonrpc.BorrowStrings())                              // ERROR "cannot use jsonrpc.BorrowStrings\(\) .* as jsonrpc.ServiceOption value"
	srv.Register("add", svc{}.Add, jsonrpc.ForMethod("Add", jsonrpc.Blocking()))            // ERROR "cannot use jsonrpc.ForMethod\(.Add., jsonrpc.Blocking\(\)\) .* as jsonrpc.MethodOption value"
	srv.Register("add", svc{}.Add, jsonrpc.Rename("Add", "sum"))                            // ERROR "cannot use jsonrpc.Rename\(.Add., .sum.\) .* as jsonrpc.MethodOption value"
	srv.Register("add", svc{}.Add, jsonrpc.Skip("Add"))                                     // ERROR "cannot use jsonrpc.Skip\(.Add.\) .* as jsonrpc.MethodOption value"
	srv.RegisterService("c", svc{}, jsonrpc.ForMethod("Add", jsonrpc.Rename("Add", "zzz"))) // ERROR "cannot use jsonrpc.Rename\(.Add., .zzz.\) .* as jsonrpc.MethodOption value"
	jsonrpc.NewServer(jsonrpc.Blocking())                                                   // ERROR "cannot use jsonrpc.Blocking\(\) .* as jsonrpc.Option value"
	srv.Register("add", svc{}.Add, jsonrpc.UseLimits(jsonrpc.Limits{MaxBatch: 1}))          // ERROR "cannot use jsonrpc.UseLimits\(jsonrpc.Limits{.*}\) .* as jsonrpc.MethodOption value"
}
