// Command rpcbench is the benchmark harness of jsonrpc-go: it drives a
// server through one of its entry points with W worker goroutines for a set
// time and reports calls per second, the per-core cost of a call and the
// allocations per call.
//
//	rpcbench                      # the headline suite, about 30 s
//	rpcbench -d 2s -runs 5 -json headline.json
//
//	rpcbench sync -d 3s -workers 1,2 -runs 3 -json sync.json
//	rpcbench scale -d 3s -workers 2 -min-ratio 1.6
//	rpcbench legacy -d 2s -runs 3 -batches 1,5,20,100
//
//	rpcbench tcp -d 3s -conns 1 -async -runs 3
//	rpcbench http -d 3s -conns 16
//	rpcbench dotnet -d 3s -runs 3
//	rpcbench twoway -d 1s -runs 3 -callers 16 -subs 100
//	rpcbench seq -d 1s -runs 3
//
//	rpcbench wasm -d 1s -runs 5 -json wasm.json
//	rpcbench real -d 1s -runs 5
//
// Without a mode, rpcbench runs the headline suite: the calculator mix
// through Process, through ProcessAsync inline, one suspending call through
// ProcessAsync, pipelined TCP on one connection, HTTP on 16 connections
// (net/http, and fasthttp with package fasthttprpc) and the legacy
// ProcessString at its best batch size, in interleaved runs, and
// prints one table with each row's ratio to the Process row.
//
// The sync mode measures (*jsonrpc.Server).Process for each method shape
// (the rows); scale is the release gate on how the calculator mix scales
// from one worker to N; legacy measures the string API ProcessString at
// several batch sizes and names the fastest. The tcp mode drives an
// in-process stream.Server over loopback TCP with pipelined requests, and
// the http mode a net/http server with an httprpc.Handler (or, with
// -server fasthttp, a fasthttp server with a fasthttprpc.Handler) over
// HTTP/1.1 keep-alive connections, each with a load generator of its own that
// allocates nothing per request; both add client-side latency percentiles to
// their rows. The dotnet mode runs the scenarios JSON-RPC.NET 2.0 publishes
// in its README (Process from 1, 2, 4, ... workers; N connections over HTTP
// with one request per POST and with batches of 100; N connections over TCP
// with 256 requests pipelined each) and prints its two tables with the same
// columns, N being GOMAXPROCS unless -conns says otherwise. The wasm mode measures the calculator mix through Process
// natively and, built for GOOS=js and GOOS=wasip1 (GOARCH=wasm), under Node
// and under wazero, in interleaved runs of one command, each after a
// warm-up long enough for V8's optimizing compiler (-warmup, 1s). The real
// mode measures the methods of package bench/internal/realistic (a struct by
// named params, a list of twenty items, a block as a map, raw JSON) through
// Process with encoding/json and with codec/fast, each against its floor
// with the same codec: decoding the params and encoding the result, without
// an envelope. Progress
// goes to standard error, one line per measurement, the table to standard
// output, and -json FILE writes the results for machines, with the date,
// the Go version, the CPU model, the core count and GOMAXPROCS.
//
// Before it measures a row, rpcbench checks the response to each of its
// requests, and after each run the last response of every worker: a broken
// setup is refused, never timed.
package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run runs the command line args (without the program name) and returns
// the exit status: 0 done, 1 failed (a broken setup, or the scale gate),
// 2 usage error.
func run(args []string, stdout, stderr io.Writer) int {
	e := &env{stdout: stdout, stderr: stderr, syncRows: syncRows, scaleRow: calcMix, tcpRows: tcpRows,
		httpServer: demoServer, legacyServer: demoServer}
	return e.run(args)
}

// env is what the modes run with: the output streams and the row tables.
// Tests substitute their own tables.
type env struct {
	stdout, stderr io.Writer
	syncRows       []rowDef
	scaleRow       rowDef
	tcpRows        []tcpRowDef
	httpServer     func() (*jsonrpc.Server, error) // what the http mode serves
	legacyServer   func() (*jsonrpc.Server, error) // what the legacy rows call; nil: demoServer
	warm           time.Duration                   // warm-up before each run; 0: warmup(d)
}

// A mode is a subcommand.
type mode struct {
	name    string
	summary string
	run     func(e *env, args []string) int
}

// modes lists the subcommands in usage order. A new mode (async, tcp, http)
// is a row here, a function in modes.go and, for a new entry point, an entry
// in rows.go.
var modes = []mode{
	{"sync", "measure (*jsonrpc.Server).Process for each method shape and worker count", (*env).sync},
	{"async", "measure (*jsonrpc.Server).ProcessAsync, methods inline or suspending", (*env).async},
	{"scale", "release gate: calc-mix req/s at N workers against 1 worker, in paired runs", (*env).scale},
	{"tcp", "pipelined JSON-RPC over loopback TCP to a stream.Server, against Process", (*env).tcp},
	{"http", "JSON-RPC over HTTP/1.1 keep-alive to an httprpc.Handler", (*env).httpMode},
	{"dotnet", "JSON-RPC.NET's published scenarios, printed with the columns of its tables", (*env).dotnet},
	{"twoway", "two-way connections: calls both ways, cancel latency, push to subscribers", (*env).twoway},
	{"seq", "sequence results over TCP: items/s pulled 64 and 1 an answer, against notifications", (*env).seq},
	{"real", "realistic methods (struct params, large results, raw JSON) against their floor", (*env).real},
	{"legacy", "measure the string API (*jsonrpc.Server).ProcessString by batch size", (*env).legacy},
}

func (e *env) run(args []string) int {
	if len(args) > 0 {
		switch args[0] {
		case "-h", "-help", "--help", "help":
			e.usage()
			return 0
		}
		for _, m := range modes {
			if m.name == args[0] {
				return m.run(e, args[1:])
			}
		}
		if !strings.HasPrefix(args[0], "-") {
			fmt.Fprintf(e.stderr, "rpcbench: unknown mode %q\n", args[0])
			e.usage()
			return 2
		}
	}
	// No mode: the headline suite, with its own flags.
	return e.headline(args)
}

func (e *env) usage() {
	w := e.stderr
	fmt.Fprintf(w, "usage: rpcbench [-d 1s] [-runs 3] [-json FILE]\n"+
		"       rpcbench <mode> [flags]\n\n"+
		"rpcbench benchmarks the jsonrpc-go server. Without a mode it runs the headline\n"+
		"suite (about 30 s at the defaults): the calculator mix through Process,\n"+
		"ProcessAsync inline, one suspending call through ProcessAsync, pipelined TCP on\n"+
		"one connection, HTTP on 16 connections and ProcessString at its best batch size,\n"+
		"in interleaved runs, then one table with each row's ratio to Process.\n\n"+
		"modes:\n")
	for _, m := range modes {
		fmt.Fprintf(w, "  %-7s %s\n", m.name, m.summary)
	}
	fmt.Fprintf(w, "\nflags of the headline suite:\n")
	fs, _ := e.headlineFlags()
	fs.SetOutput(w)
	fs.PrintDefaults()
	fmt.Fprintf(w, "\nRun 'rpcbench <mode> -h' for the flags of a mode.\n")
}
