package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/internal/demo"
)

// A rowDef is one row of the benchmark: a server built once, the requests a
// worker cycles through and the responses they must get. It does not say
// how requests reach the server; an entry does.
type rowDef struct {
	name       string
	callsPerOp int // calls per request document; 0 means 1
	server     func() (*jsonrpc.Server, error)
	reqs       []string
	want       []string
	via        entry // the entry point, when not the mode's
}

// An entry is an entry point of the server: it returns the factory of
// per-worker ProcessFuncs that reach srv through it. A mode measures its rows
// through one entry (syncEntry for the sync and scale modes).
type entry func(srv *jsonrpc.Server) func() ProcessFunc

// syncEntry calls (*jsonrpc.Server).Process, the synchronous byte entry
// point, on the worker's goroutine.
func syncEntry(srv *jsonrpc.Server) func() ProcessFunc {
	return func() ProcessFunc {
		ctx := context.Background()
		return func(dst, req []byte) []byte { return srv.Process(ctx, dst, req) }
	}
}

// target builds the row's server, connects it through e and validates one
// response per request. It refuses a row that does not answer correctly.
func (r rowDef) target(e entry) (*Target, error) {
	srv, err := r.server()
	if err != nil {
		return nil, fmt.Errorf("row %s: setup: %w", r.name, err)
	}
	t := &Target{
		Name:       r.name,
		CallsPerOp: max(r.callsPerOp, 1),
		Reqs:       byteSlices(r.reqs),
		Want:       byteSlices(r.want),
		NewWorker:  e(srv),
	}
	if err := t.Validate(); err != nil {
		return nil, err
	}
	return t, nil
}

func byteSlices(ss []string) [][]byte {
	bs := make([][]byte, len(ss))
	for i, s := range ss {
		bs[i] = []byte(s)
	}
	return bs
}

// The single-method rows call add(1.5, 2.25), as BenchmarkShapes does.
const (
	addReq  = `{"jsonrpc":"2.0","method":"add","params":[1.5,2.25],"id":1}`
	addWant = `{"jsonrpc":"2.0","result":3.75,"id":1}`
)

// mixWant are the responses to demo.Requests, in order.
var mixWant = []string{
	`{"jsonrpc":"2.0","result":3.75,"id":1}`,
	`{"jsonrpc":"2.0","result":7,"id":2}`,
	`{"jsonrpc":"2.0","result":2.5,"id":3}`,
	`{"jsonrpc":"2.0","result":3.75,"id":4}`,
	`{"jsonrpc":"2.0","result":"hello world","id":5}`,
}

// calcMix is the calculator mix of the README's performance table; the
// scale mode measures it.
var calcMix = rowDef{
	name:   "calc-mix",
	server: demoServer,
	reqs:   demo.Requests,
	want:   mixWant,
}

// syncRows are the rows of the sync mode, in table order.
var syncRows = []rowDef{
	calcMix,
	{
		name:   "func",
		server: addServer(func(a, b float64) float64 { return a + b }),
		reqs:   []string{addReq},
		want:   []string{addWant},
	},
	{
		name:   "context",
		server: addServer(func(_ context.Context, a, b float64) float64 { return a + b }),
		reqs:   []string{addReq},
		want:   []string{addWant},
	},
	{
		name:   "func-error",
		server: addServer(func(a, b float64) (float64, error) { return a + b, nil }),
		reqs:   []string{addReq},
		want:   []string{addWant},
	},
	{
		name: "service",
		server: func() (*jsonrpc.Server, error) {
			s := jsonrpc.NewServer()
			return s, s.RegisterService("", demo.Calculator{})
		},
		reqs: []string{addReq},
		want: []string{addWant},
	},
	{
		name:       "batch5",
		callsPerOp: len(demo.Requests),
		server:     demoServer,
		reqs:       []string{demo.Batch},
		want:       []string{"[" + strings.Join(mixWant, ",") + "]"},
	},
}

// demoServer is demo.NewServer, returning the error it would panic with.
func demoServer() (*jsonrpc.Server, error) {
	s := jsonrpc.NewServer()
	_, err := demo.Register(s)
	return s, err
}

// addServer returns the setup of a server with fn registered as "add".
func addServer(fn any) func() (*jsonrpc.Server, error) {
	return func() (*jsonrpc.Server, error) {
		s := jsonrpc.NewServer()
		return s, s.Register("add", fn)
	}
}

// findRows returns the rows of defs with the given names, in the order
// given; all of defs when names is empty.
func findRows(defs []rowDef, names []string) ([]rowDef, error) {
	if len(names) == 0 {
		return defs, nil
	}
	var out []rowDef
	for _, n := range names {
		found := false
		for _, d := range defs {
			if d.name == n {
				out = append(out, d)
				found = true
				break
			}
		}
		if !found {
			return nil, fmt.Errorf("unknown row %q (rows: %s)", n, strings.Join(rowNames(defs), ", "))
		}
	}
	return out, nil
}

func rowNames(defs []rowDef) []string {
	names := make([]string, len(defs))
	for i, d := range defs {
		names[i] = d.name
	}
	return names
}

// asyncInlineEntry calls (*jsonrpc.Server).ProcessAsync for rows whose
// methods never block, so that each reply runs before ProcessAsync returns,
// with the answer in the worker's buffer. Rows measured through it must not
// block.
func asyncInlineEntry(srv *jsonrpc.Server) func() ProcessFunc {
	return func() ProcessFunc {
		ctx := context.Background()
		// Padded so that two workers' slots never share a cache line.
		w := new(struct {
			_   [64]byte
			out []byte
			_   [64]byte
		})
		reply := func(resp []byte) { w.out = resp }
		return func(dst, req []byte) []byte {
			w.out = nil
			srv.ProcessAsync(ctx, dst, req, reply)
			return w.out
		}
	}
}

// asyncWaitEntry calls ProcessAsync and waits for the reply, which may run
// on another goroutine: the cost of a call that suspends once.
func asyncWaitEntry(srv *jsonrpc.Server) func() ProcessFunc {
	return func() ProcessFunc {
		ctx := context.Background()
		done := make(chan struct{}, 1)
		var out []byte
		reply := func(resp []byte) {
			out = append(out[:0], resp...)
			done <- struct{}{}
		}
		return func(dst, req []byte) []byte {
			srv.ProcessAsync(ctx, dst, req, reply)
			<-done
			return append(dst[:0], out...)
		}
	}
}

// suspendRows are the rows of async -shape suspend: methods registered with
// jsonrpc.Blocking, which ProcessAsync runs on goroutines of their own.
var suspendRows = []rowDef{
	{
		name: "suspend-add",
		server: func() (*jsonrpc.Server, error) {
			s := jsonrpc.NewServer()
			return s, s.Register("add", func(a, b float64) float64 { return a + b }, jsonrpc.Blocking())
		},
		reqs: []string{addReq},
		want: []string{addWant},
	},
	{
		name: "suspend-chan",
		server: func() (*jsonrpc.Server, error) {
			// A real suspension: the result comes from another goroutine.
			s := jsonrpc.NewServer()
			return s, s.Register("add", func(a, b float64) float64 {
				ch := make(chan float64)
				go func() { ch <- a + b }()
				return <-ch
			}, jsonrpc.Blocking())
		},
		reqs: []string{addReq},
		want: []string{addWant},
	},
	{
		name:       "suspend-batch5",
		callsPerOp: 5,
		server: func() (*jsonrpc.Server, error) {
			s := jsonrpc.NewServer()
			return s, s.Register("add", func(a, b float64) float64 { return a + b }, jsonrpc.Blocking())
		},
		reqs: []string{"[" + strings.Repeat(addReq+",", 4) + addReq + "]"},
		want: []string{"[" + strings.Repeat(addWant+",", 4) + addWant + "]"},
	},
}
