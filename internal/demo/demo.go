// Package demo holds the services that cmd/jsonrpcd serves and that the
// tests and benchmarks use: the calculator of JSON-RPC.NET's benchmark, the
// example methods of the JSON-RPC 2.0 specification, echo, and two methods
// for load tests: sleep, which waits (a Blocking method), and repeat, which
// answers a small request with a large result.
//
// RegisterTwoWay adds the methods that need a two-way connection (package
// peer), which cmd/jsonrpcd serves over TCP and WebSocket: subscribe,
// unsubscribe and publish on a Feed of notifications, progress, which
// reports its progress on the caller's token, and callback, which calls
// the caller back. Over HTTP they answer that they need such a connection.
package demo

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
)

// Calculator is the benchmark service. Its methods are served under the
// names of the .NET benchmark: add, addInt, NullableFloatToNullableFloat,
// Test2 and StringMe.
type Calculator struct{}

// Add returns a + b.
func (Calculator) Add(a, b float64) float64 { return a + b }

// AddInt returns a + b.
func (Calculator) AddInt(a, b int) int { return a + b }

// NullableFloatToNullableFloat returns its argument, which may be null.
func (Calculator) NullableFloatToNullableFloat(a *float64) *float64 { return a }

// Test2 returns its argument.
func (Calculator) Test2(x float64) float64 { return x }

// StringMe returns its argument.
func (Calculator) StringMe(s string) string { return s }

// Spec holds the example methods of section 7 of the JSON-RPC 2.0
// specification. Notifications it receives are counted.
type Spec struct {
	Updates, Hellos, Sums atomic.Int64
}

// Subtract returns minuend - subtrahend.
func (*Spec) Subtract(minuend, subtrahend float64) float64 { return minuend - subtrahend }

// Sum returns the sum of its params.
func (*Spec) Sum(xs ...float64) float64 {
	var t float64
	for _, x := range xs {
		t += x
	}
	return t
}

// Update takes any number of integers; the specification calls it as a
// notification.
func (s *Spec) Update(...int) { s.Updates.Add(1) }

// NotifyHello takes one integer; the specification calls it as a
// notification.
func (s *Spec) NotifyHello(int) { s.Hellos.Add(1) }

// NotifySum takes any number of numbers; the specification calls it as a
// notification.
func (s *Spec) NotifySum(...float64) { s.Sums.Add(1) }

// GetData returns ["hello", 5].
func (*Spec) GetData() []any { return []any{"hello", 5} }

// Echo returns its single param unchanged.
func Echo(v json.RawMessage) json.RawMessage { return v }

// Sleep waits ms milliseconds, or until the call's context ends, and returns
// ms. It is registered Blocking, as sleep, taking ms by name too.
func Sleep(ctx context.Context, ms int) (int, error) {
	if ms < 0 || ms > maxSleep {
		return 0, jsonrpc.ErrInvalidParams.WithData(fmt.Sprintf("ms must be from 0 to %d", maxSleep))
	}
	t := time.NewTimer(time.Duration(ms) * time.Millisecond)
	defer t.Stop()
	select {
	case <-t.C:
		return ms, nil
	case <-ctx.Done():
		return 0, ctx.Err()
	}
}

// maxSleep is the longest Sleep, in milliseconds: a minute.
const maxSleep = 60_000

// Repeat returns s repeated n times, up to MaxRepeat bytes: a large answer to
// a small request, for load tests of the response limits.
func Repeat(s string, n int) (string, error) {
	if n < 0 || len(s)*n > MaxRepeat {
		return "", jsonrpc.ErrInvalidParams.WithData(fmt.Sprintf("the result would exceed %d bytes", MaxRepeat))
	}
	return strings.Repeat(s, n), nil
}

// MaxRepeat is the largest result of Repeat, in bytes: 64 MiB, more than a
// server's default response limit, so that the limit is what stops it.
const MaxRepeat = 64 << 20

// Register adds the calculator, the specification's methods, echo, sleep and
// repeat to s.
// Calculator methods are plain functions so that they take the fast path;
// the specification's methods show RegisterService with renames.
func Register(s *jsonrpc.Server) (*Spec, error) {
	var c Calculator
	borrow := jsonrpc.BorrowStrings()
	for _, m := range []struct {
		name string
		fn   any
		opts []jsonrpc.MethodOption
	}{
		{"add", c.Add, nil},
		{"addInt", c.AddInt, nil},
		{"NullableFloatToNullableFloat", c.NullableFloatToNullableFloat, []jsonrpc.MethodOption{borrow}},
		{"Test2", c.Test2, nil},
		{"StringMe", c.StringMe, []jsonrpc.MethodOption{borrow}},
		{"echo", Echo, nil},
		{"sleep", Sleep, []jsonrpc.MethodOption{jsonrpc.Blocking(), jsonrpc.ParamNames("ms")}},
		{"repeat", Repeat, []jsonrpc.MethodOption{jsonrpc.ParamNames("s", "n")}},
	} {
		if err := s.Register(m.name, m.fn, m.opts...); err != nil {
			return nil, err
		}
	}
	spec := new(Spec)
	err := s.RegisterService("", spec,
		jsonrpc.ForMethod("Subtract", jsonrpc.ParamNames("minuend", "subtrahend")),
		jsonrpc.Rename("NotifyHello", "notify_hello"),
		jsonrpc.Rename("NotifySum", "notify_sum"),
		jsonrpc.Rename("GetData", "get_data"),
	)
	if err != nil {
		return nil, err
	}
	return spec, nil
}

// NewServer returns a server with the demo services registered.
func NewServer(opts ...jsonrpc.Option) *jsonrpc.Server {
	s := jsonrpc.NewServer(opts...)
	if _, err := Register(s); err != nil {
		panic(err) // the demo services always register
	}
	return s
}

// Requests are the calculator requests of the benchmark mix, one per method.
var Requests = []string{
	`{"jsonrpc":"2.0","method":"add","params":[1.5,2.25],"id":1}`,
	`{"jsonrpc":"2.0","method":"addInt","params":[3,4],"id":2}`,
	`{"jsonrpc":"2.0","method":"NullableFloatToNullableFloat","params":[2.5],"id":3}`,
	`{"jsonrpc":"2.0","method":"Test2","params":[3.75],"id":4}`,
	`{"jsonrpc":"2.0","method":"StringMe","params":["hello world"],"id":5}`,
}

// Batch is the five calculator requests as one batch.
var Batch = "[" + Requests[0] + "," + Requests[1] + "," + Requests[2] + "," + Requests[3] + "," + Requests[4] + "]"
