// Command benchchart draws the benchmark results recorded in docs/bench/ as
// SVG charts and checks that the figures of docs/PERFORMANCE.md and the
// headline table of the README's performance summary are the recorded ones.
//
// Run it from the repository root:
//
//	go run ./bench/benchchart          # write docs/bench/charts/*.svg
//	go run ./bench/benchchart -check   # verify the charts and the documents' figures
//	go run ./bench/benchchart -tables  # print the peer tables of docs/PERFORMANCE.md
//
// It reads every *.json file of the data directory that bench/rpcbench -json
// wrote (a file it does not understand is skipped with a warning on stderr)
// and renders, from the latest result set of each kind (by its date):
//
//	async-inline.svg  median calls/s of each row of the async-inline set at
//	                  each worker count, with min–max whiskers
//	hosting.svg       requests/s of the tcp set's rows and of the http sets'
//	                  rows by connection count, with min–max whiskers
//	scaling.svg       calls/s by worker count of the calc-mix rows of the
//	                  async-inline set (Process and ProcessAsync)
//	peers-headline.svg  from the peers set of bench/peers, for each scenario:
//	                  this library, the fastest JSON-RPC 2.0 peer, gRPC where
//	                  measured, and the floor
//	peers-*.svg       every row of one scenario of the peers set (tcp,
//	                  http-16, http-1, inproc)
//	peers-real.svg    from the peers-real set of bench/peers -workload real,
//	                  when there is one: every row of each method
//
// The SVG is written by hand with fixed formatting, so the same data gives the
// same bytes.
//
// With -check it writes nothing: it renders the charts in memory and fails
// (exit 1, naming each file) when a chart on disk is missing or differs; it
// compares the figures of the performance document (-perf, by default
// docs/PERFORMANCE.md) listed in perfFigures below with the data points they
// quote, and the peer tables of the performance document and of the README
// (-readme, by default README.md) with the latest peers set, naming the
// expected value of each mismatch. Exit status 2 means it could not do its
// job (unreadable files, bad flags).
//
// # Figures
//
// Each entry of perfFigures names a table row of the performance document by
// the "## " heading of its section and its first cell (plus the value of a
// key column where two rows share a first cell), the column compared (by its
// header), and the data point it quotes: a result file of the data
// directory, a row name and one worker count per " / "-separated part of the
// cell. The expected cell is the row's median_rps at those worker counts,
// each formatted as the documents write rates (see formatRate: "7.81 M" at
// 100k and above, "32.7 k" below), joined by " / ". The comparison is of the
// exact cell text.
//
//	section     row (first cell)                                  compared    data
//	Async       calc mix through `Process`                        calls/s     async-inline  calc-mix/Process  1 / 2
//	Async       calc mix through `ProcessAsync`, inline           calls/s     async-inline  calc-mix          1 / 2
//	Async       method of a registered service, inline            calls/s     async-inline  service           1 / 2
//	Transports  `Process`, no network (same run)                  requests/s  tcp           process           1
//	Transports  TCP, newline framing, `Inline` ordering, calc mix requests/s  tcp           tcp-inline        1
//	Transports  TCP, `Concurrent` ordering, calc mix              requests/s  tcp           tcp-concurrent    1
//	Transports  TCP, `Concurrent`, every call a `Blocking` method requests/s  tcp           tcp-suspend       1
//	Transports  HTTP/1.1 keep-alive, calc mix (connections 1)     requests/s  http-1        http              1
//	Transports  HTTP/1.1 keep-alive, calc mix (connections 16)    requests/s  http-16       http              16
//
// where the files are docs/bench/2026-11-29-{async-inline,tcp,http-1,http-16}.json.
// When the document quotes a newer result set, update the file names here.
//
// The document's WebAssembly table, in its "## WebAssembly" section, quotes
// the set of rpcbench wasm (wasmFigures, docs/bench/2026-12-01-wasm.json):
// the rows native, js/wasm and wasip1 at one worker, each in the columns
// calls/s (median_rps, as above), ns/call (ns_per_call, a whole number) and
// "over native" (its ns_per_call over the native row's, "6.3×").
//
// # Peer tables
//
// Two sections quote the latest peers set (see perfPeerSection and
// readmePeerSection): "## Against the peers" of the performance document, in
// a headline table and the full peer table, and "## Performance" of the
// README, in the headline table alone. Each table is checked cell by cell
// and both ways (a scenario or peer of the set that a table lacks is a
// problem, as is a row or column the set does not have); see
// checkPeerTables. Both sections must also name the set's file. A README
// that also shows the peer table has it checked as well.
//
//	headline table  header "scenario", then the headers of headlineColumns;
//	                one row per scenario title: this library's rate, the
//	                fastest JSON-RPC 2.0 peer ("name: rate") and this
//	                library's speed over it ("**35.0×**"), gRPC, the floor,
//	                and this library's rate over the floor's ("0.57")
//	peer table      header "peer", then scenario titles; one row per peer of
//	                the set, each cell "rate (ratio×)", empty where the peer
//	                has no row in that scenario
//
// The scenario titles are those of the scenarios variable ("one TCP
// connection, pipelined", ...), and rates and ratios are written by
// formatRate and formatRatio.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// perfFigures is the mapping from table cells of the performance document to
// data points, its WebAssembly table's among them (wasmFigures); see the
// package documentation.
var perfFigures = append([]figure{
	{Section: "Async", Row: "calc mix through `Process`", Column: "calls/s",
		File: "2026-11-29-async-inline.json", Name: "calc-mix/Process", Workers: []int{1, 2}},
	{Section: "Async", Row: "calc mix through `ProcessAsync`, inline", Column: "calls/s",
		File: "2026-11-29-async-inline.json", Name: "calc-mix", Workers: []int{1, 2}},
	{Section: "Async", Row: "method of a registered service, inline", Column: "calls/s",
		File: "2026-11-29-async-inline.json", Name: "service", Workers: []int{1, 2}},
	{Section: "Transports", Row: "`Process`, no network (same run)", Column: "requests/s",
		File: "2026-11-29-tcp.json", Name: "process", Workers: []int{1}},
	{Section: "Transports", Row: "TCP, newline framing, `Inline` ordering, calc mix", Column: "requests/s",
		File: "2026-11-29-tcp.json", Name: "tcp-inline", Workers: []int{1}},
	{Section: "Transports", Row: "TCP, `Concurrent` ordering, calc mix", Column: "requests/s",
		File: "2026-11-29-tcp.json", Name: "tcp-concurrent", Workers: []int{1}},
	{Section: "Transports", Row: "TCP, `Concurrent`, every call a `Blocking` method", Column: "requests/s",
		File: "2026-11-29-tcp.json", Name: "tcp-suspend", Workers: []int{1}},
	{Section: "Transports", Row: "HTTP/1.1 keep-alive, calc mix", KeyColumn: "connections", KeyValue: "1", Column: "requests/s",
		File: "2026-11-29-http-1.json", Name: "http", Workers: []int{1}},
	{Section: "Transports", Row: "HTTP/1.1 keep-alive, calc mix", KeyColumn: "connections", KeyValue: "16", Column: "requests/s",
		File: "2026-11-29-http-16.json", Name: "http", Workers: []int{16}},
}, wasmFigures("2026-12-01-wasm.json")...)

// wasmFigures maps the performance document's WebAssembly table (in its
// "## WebAssembly" section) to the wasm set file: for each of its rows, its
// calls/s, ns/call and cost over the native row; see the package
// documentation. perfFigures holds them.
func wasmFigures(file string) []figure {
	var figs []figure
	for _, name := range []string{"native", "js/wasm", "wasip1"} {
		for _, c := range []struct{ column, value string }{{"calls/s", ""}, {"ns/call", "ns"}, {"over native", "over"}} {
			figs = append(figs, figure{Section: "WebAssembly", Row: name, Column: c.column,
				File: file, Name: name, Workers: []int{1}, Value: c.value, Base: "native"})
		}
	}
	return figs
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is the command: it returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("benchchart", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dataDir := fs.String("data", filepath.Join("docs", "bench"), "directory of rpcbench -json result files")
	outDir := fs.String("out", filepath.Join("docs", "bench", "charts"), "directory of the SVG charts")
	perf := fs.String("perf", filepath.Join("docs", "PERFORMANCE.md"), "performance document whose figures and peer tables -check compares with the data")
	readme := fs.String("readme", "README.md", "README whose headline table -check compares with the data")
	check := fs.Bool("check", false, "write nothing; fail when a chart or a figure of the documents differs from the data")
	tables := fs.Bool("tables", false, "write nothing; print the peer tables of the performance document from the latest peers set")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: go run ./bench/benchchart [-check | -tables] [-data DIR] [-out DIR] [-perf FILE] [-readme FILE]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return 2
	}

	reports, err := loadDir(*dataDir, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "benchchart: %v\n", err)
		return 2
	}
	charts, err := renderAll(reports)
	if err != nil {
		fmt.Fprintf(stderr, "benchchart: %v\n", err)
		return 2
	}

	if *tables {
		fmt.Fprint(stdout, peerTables(latest(reports, "peers")))
		return 0
	}
	if !*check {
		if err := os.MkdirAll(*outDir, 0o755); err != nil {
			fmt.Fprintf(stderr, "benchchart: %v\n", err)
			return 2
		}
		for _, c := range charts {
			p := filepath.Join(*outDir, c.Name)
			if err := os.WriteFile(p, c.SVG, 0o644); err != nil {
				fmt.Fprintf(stderr, "benchchart: %v\n", err)
				return 2
			}
			fmt.Fprintf(stdout, "wrote %s (%d bytes)\n", p, len(c.SVG))
		}
		return 0
	}

	var problems []string
	stale := false // a chart is missing or differs
	for _, c := range charts {
		before := len(problems)
		p := filepath.Join(*outDir, c.Name)
		disk, err := os.ReadFile(p)
		switch {
		case errors.Is(err, os.ErrNotExist):
			problems = append(problems, fmt.Sprintf("%s: missing (from %s)", p, strings.Join(c.Sources, ", ")))
		case err != nil:
			problems = append(problems, fmt.Sprintf("%s: %v", p, err))
		case !bytes.Equal(disk, c.SVG):
			problems = append(problems, fmt.Sprintf("%s: differs from what %s give", p, strings.Join(c.Sources, ", ")))
		}
		if len(problems) > before {
			stale = true
		}
	}
	perfText, err := os.ReadFile(*perf)
	if err != nil {
		fmt.Fprintf(stderr, "benchchart: %v\n", err)
		return 2
	}
	readmeText, err := os.ReadFile(*readme)
	if err != nil {
		fmt.Fprintf(stderr, "benchchart: %v\n", err)
		return 2
	}
	byFile := map[string]*report{}
	for _, r := range reports {
		byFile[r.File] = r
	}
	problems = append(problems, checkFigures(*perf, string(perfText), perfFigures, *dataDir, byFile)...)
	peers := latest(reports, "peers") // renderAll made sure there is one
	problems = append(problems, checkPeerTables(*perf, string(perfText), perfPeerSection, true, peers, *dataDir)...)
	problems = append(problems, checkPeerTables(*readme, string(readmeText), readmePeerSection, false, peers, *dataDir)...)

	if len(problems) > 0 {
		for _, p := range problems {
			fmt.Fprintln(stderr, p)
		}
		fmt.Fprintf(stderr, "benchchart: %d problem(s)\n", len(problems))
		if stale {
			fmt.Fprintln(stderr, "benchchart: to redraw the charts from the data, run: go run ./bench/benchchart")
		}
		return 1
	}
	fmt.Fprintf(stdout, "benchchart: %d charts in %s, %d figures and the peer tables (%s) of %s, and the headline table of %s match %s\n",
		len(charts), *outDir, len(perfFigures), peers.File, *perf, *readme, *dataDir)
	return 0
}
