package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jsonrpc-go/jsonrpc/httprpc"
	"github.com/jsonrpc-go/jsonrpc/internal/demo"
)

// The dotnet mode runs the scenarios of the benchmark JSON-RPC.NET 2.0
// publishes in its README, in their shape, and prints its two tables with
// that README's columns, so that the two libraries can be compared on one
// machine:
//
//   - Sync (its --sync): the byte entry point, (*jsonrpc.Server).Process,
//     called in a loop by 1, 2, 4, ... workers up to GOMAXPROCS, each with a
//     buffer of its own; columns Threads, RPC/s, ns per request per thread,
//     Allocations per request.
//   - Transports (its --kestrel): the same calls in process at N workers,
//     then over loopback from N connections of a load generator in the same
//     process: HTTP/1.1 with one request per POST, HTTP with batches of 100
//     per POST (net/http and httprpc.Handler), and TCP with 256 requests
//     pipelined per connection (stream.Server, newline framing); columns
//     Transport, RPC/s, Note. N is GOMAXPROCS, as JSON-RPC.NET's 16
//     connections are its machine's 16 hardware threads.
//
// Every row sends the calculator mix of JSON-RPC.NET's harness (add, addInt,
// NullableFloatToNullableFloat, Test2, StringMe). An RPC/s cell is the low
// and the high of the runs, as JSON-RPC.NET writes them ("4.6 M to 5.0 M").

const (
	dotnetInflight = 256 // requests in flight per TCP connection
	dotnetBatch    = 100 // requests per POST of the batch row
)

// dotnetD is the dotnet mode's default -d: short, so that the whole mode
// takes seconds at the defaults.
const dotnetD = 500 * time.Millisecond

// The columns of JSON-RPC.NET's two tables, as its README writes them.
var (
	dotnetSyncCols      = []string{"Threads", "RPC/s", "ns per request per thread", "Allocations per request"}
	dotnetTransportCols = []string{"Transport", "RPC/s", "Note"}
)

// doublingWorkers is 1, 2, 4, ... below GOMAXPROCS, then GOMAXPROCS.
func doublingWorkers() intList {
	p := runtime.GOMAXPROCS(0)
	var w intList
	for n := 1; n < p; n *= 2 {
		w = append(w, n)
	}
	return append(w, p)
}

// dotnet runs JSON-RPC.NET's scenarios and prints its tables.
func (e *env) dotnet(args []string) int {
	fs := e.flags("dotnet", "[-d 500ms] [-runs R] [-workers 1,2,4] [-conns N] [-batch 100] [-inflight 256] [-window 64] [-json FILE]",
		"Runs the scenarios of JSON-RPC.NET 2.0's published benchmark on this library, in\n"+
			"their shape, and prints its two tables with the same columns:\n"+
			"  Sync: (*jsonrpc.Server).Process called in a loop by each count of -workers;\n"+
			"  Transports: the same in process at -conns workers, then from -conns\n"+
			"  connections over loopback: HTTP/1.1 one request per POST, HTTP batches of\n"+
			"  -batch per POST (net/http, httprpc.Handler), and TCP with -inflight\n"+
			"  requests pipelined per connection (stream.Server, newline framing).\n"+
			"Every row sends the calculator mix. The runs are interleaved; an RPC/s cell is\n"+
			"the low and the high of them.")
	rf := runFlags{
		d:        fs.Duration("d", dotnetD, "duration of each run"),
		runs:     fs.Int("runs", defaultRuns, "interleaved runs; a cell shows their low and high"),
		jsonFile: fs.String("json", "", "write the results as JSON to `FILE`"),
	}
	workers := doublingWorkers()
	fs.Var(&workers, "workers", "comma-separated worker `counts` of the Sync table (default 1, 2, 4, ... up to GOMAXPROCS)")
	conns := fs.Int("conns", runtime.GOMAXPROCS(0), "connections of each transport row, and workers of its in-process row")
	batch := fs.Int("batch", dotnetBatch, "requests per POST of the batch row")
	inflight := fs.Int("inflight", dotnetInflight, "most unanswered requests per TCP connection (`W`), a multiple of -window")
	window := fs.Int("window", headTCPWindow, "TCP requests per write (`K`)")
	if code, ok := e.parse(fs, args); !ok {
		return code
	}
	if msg := rf.problem(); msg != "" {
		return e.badFlag(fs, msg)
	}
	switch {
	case *conns < 1:
		return e.badFlag(fs, "-conns must be at least 1")
	case *batch < 1:
		return e.badFlag(fs, "-batch must be at least 1")
	case *window < 1:
		return e.badFlag(fs, "-window must be at least 1")
	case *inflight < *window || *inflight%*window != 0:
		return e.badFlag(fs, "-inflight must be a positive multiple of -window")
	}
	d, runs := *rf.d, *rf.runs

	// Every row is built and checked before anything is measured. The
	// in-process row of the transport table is the Sync row at -conns
	// workers, measured once for both tables.
	counts := slices.Clone([]int(workers))
	if !slices.Contains(counts, *conns) {
		counts = append(counts, *conns)
	}
	slices.Sort(counts)
	proc, err := e.scaleRow.target(syncEntry)
	if err != nil {
		return e.refuse(err)
	}
	net, cleanup, err := e.dotnetNetRows(*conns, *batch, *window, *inflight)
	defer cleanup()
	if err != nil {
		return e.refuse(err)
	}
	shapes, err := shapeAllocs(proc)
	if err != nil {
		return e.refuse(err)
	}

	e.noteOversubscribed(counts)
	syncMs := make([][]Measurement, len(counts))
	netMs := make([][]Measurement, len(net))
	lats := make([]*latHist, len(net))
	for i := range lats {
		lats[i] = new(latHist)
	}
	for k := range runs {
		for i, w := range counts {
			m, err := e.measure(proc, w, d, k+1, runs)
			if err != nil {
				return e.refuse(err)
			}
			syncMs[i] = append(syncMs[i], m)
		}
		for i, r := range net {
			fmt.Fprintf(e.stderr, "running %s conns=%d run %d/%d... ", r.name, *conns, k+1, runs)
			m, lat, err := r.measure(d)
			if err != nil {
				fmt.Fprintln(e.stderr, "failed")
				return e.refuse(err)
			}
			e.netProgress(m, lat)
			netMs[i] = append(netMs[i], m)
			lats[i].add(lat)
		}
	}

	rep := newReport("dotnet", d)
	for i, w := range counts {
		rep.Rows = append(rep.Rows, newRow("sync", w, syncMs[i]))
	}
	for i, r := range net {
		row := netRow(r.name, *conns, netMs[i], lats[i], "")
		row.Note = r.note(row)
		row.What = r.label
		rep.Rows = append(rep.Rows, row)
	}

	e.header(rep, "JSON-RPC.NET's benchmark scenarios, calculator mix", runs)
	fmt.Fprintf(e.stdout, "\nSync: (*jsonrpc.Server).Process in a loop, one buffer per worker (JSON-RPC.NET's --sync)\n\n")
	var cells [][]string
	for _, w := range workers {
		r := rep.find("sync", w)
		allocs := fmt.Sprintf("%.2f over the run", r.AllocsPerCall)
		if w == workers[0] {
			allocs += "; " + shapes
		}
		cells = append(cells, []string{strconv.Itoa(w), dotnetRange(*r), fmt.Sprintf("%.0f", r.NsPerCall), allocs})
	}
	writeMarkdown(e.stdout, dotnetSyncCols, []bool{true, true, true, false}, cells)

	fmt.Fprintf(e.stdout, "\nTransports: %d connections on loopback, the load generator in this process (JSON-RPC.NET's --kestrel)\n\n", *conns)
	in := rep.find("sync", *conns)
	cells = [][]string{{fmt.Sprintf("in-process, %d workers", *conns), dotnetRange(*in), "`(*jsonrpc.Server).Process`, no network"}}
	for _, r := range rep.Rows[len(counts):] {
		cells = append(cells, []string{r.What, dotnetRange(r), r.Note})
	}
	writeMarkdown(e.stdout, dotnetTransportCols, []bool{false, true, false}, cells)
	fmt.Fprintf(e.stdout, "\nRPC/s: the low and the high of %d interleaved run(s) of %s; ns per request per thread: workers / median RPC/s.\n", runs, d)
	return e.writeJSON(rep, *rf.jsonFile, 0)
}

// A dotnetNetRow is a row of the transport table over the network, built
// and checked, ready to measure.
type dotnetNetRow struct {
	name    string // in the -json report
	label   string // the Transport cell
	measure func(time.Duration) (Measurement, *latHist, error)
	note    func(Row) string // the Note cell, from the row's results
}

// dotnetNetRows builds and checks the network rows of the transport table:
// HTTP one request per POST, HTTP batches per POST and pipelined TCP, each
// from conns connections. cleanup shuts their servers down; it is never nil.
func (e *env) dotnetNetRows(conns, batch, window, inflight int) (rows []dotnetNetRow, cleanup func(), err error) {
	var closers []func()
	cleanup = func() {
		for _, c := range closers {
			c()
		}
	}
	h, err := e.httpServer()
	if err != nil {
		return nil, cleanup, fmt.Errorf("row http: setup: %w", err)
	}
	const httpHost = "net/http, httprpc.Handler"

	// HTTP, one request per POST: the http mode's row.
	single, err := httpServers["net/http"].target(h, conns)
	if err != nil {
		return nil, cleanup, err
	}
	closers = append(closers, single.close)
	rows = append(rows, dotnetNetRow{
		name:    single.name,
		label:   "HTTP, 1 request per POST",
		measure: single.measure,
		note: func(r Row) string {
			return fmt.Sprintf("%s µs per round trip per connection; %s", perUnit(r, float64(conns)), httpHost)
		},
	})

	// HTTP, a batch per POST: the calculator mix repeated, ids 1 to batch.
	doc, want, err := mixBatch(batch)
	if err != nil {
		return nil, cleanup, err
	}
	bt, err := newHTTPTarget("http-batch", &httprpc.Handler{Server: h}, []string{doc}, []string{want}, conns)
	if err != nil {
		return nil, cleanup, err
	}
	closers = append(closers, bt.close)
	rows = append(rows, dotnetNetRow{
		name:  bt.name,
		label: fmt.Sprintf("HTTP, batch of %d per POST", batch),
		measure: func(d time.Duration) (Measurement, *latHist, error) {
			m, lat, err := bt.measure(d)
			m.Calls *= int64(batch)
			return m, lat, err
		},
		note: func(r Row) string {
			return fmt.Sprintf("%s µs per POST per connection; %s", perUnit(r, float64(conns*batch)), httpHost)
		},
	})

	// TCP, pipelined: the tcp mode's first row (the default ordering,
	// methods inline).
	var tdef *tcpRowDef
	for i := range e.tcpRows {
		if !e.tcpRows[i].async {
			tdef = &e.tcpRows[i]
			break
		}
	}
	if tdef == nil {
		return nil, cleanup, errors.New("no tcp row")
	}
	tt, err := newTCPTarget(*tdef, conns, window, inflight)
	if err != nil {
		return nil, cleanup, err
	}
	closers = append(closers, tt.close)
	rows = append(rows, dotnetNetRow{
		name:    "tcp",
		label:   fmt.Sprintf("TCP, %d pipelined", inflight),
		measure: tt.measure,
		note: func(Row) string {
			return fmt.Sprintf("stream.Server, newline framing, methods inline; the client writes %d requests at a time", window)
		},
	})
	return rows, cleanup, nil
}

// perUnit formats the wall time of one unit of work of a network row, given
// the calls per unit across the connections (connections for a round trip
// per connection): the low and the high over the runs, in microseconds.
func perUnit(r Row, calls float64) string {
	if r.MinRPS <= 0 {
		return "-"
	}
	lo, hi := calls*1e6/r.MaxRPS, calls*1e6/r.MinRPS
	if s, t := fmt.Sprintf("%.0f", lo), fmt.Sprintf("%.0f", hi); s != t {
		return s + " to " + t
	}
	return fmt.Sprintf("%.0f", lo)
}

// mixBatch returns a batch of n requests of the calculator mix, in turn,
// with the ids 1 to n, and the response it must get.
func mixBatch(n int) (doc, want string, err error) {
	reqs := make([]string, n)
	resps := make([]string, n)
	for i := range n {
		j := i % len(demo.Requests)
		if reqs[i], err = renumber(demo.Requests[j], j+1, i+1); err != nil {
			return "", "", err
		}
		if resps[i], err = renumber(mixWant[j], j+1, i+1); err != nil {
			return "", "", err
		}
	}
	return "[" + strings.Join(reqs, ",") + "]", "[" + strings.Join(resps, ",") + "]", nil
}

// renumber replaces the id from, which doc must end with, by to.
func renumber(doc string, from, to int) (string, error) {
	suffix := `"id":` + strconv.Itoa(from) + "}"
	head, ok := strings.CutSuffix(doc, suffix)
	if !ok {
		return "", fmt.Errorf("batch row: %s does not end with %s", doc, suffix)
	}
	return head + `"id":` + strconv.Itoa(to) + "}", nil
}

// shapeAllocs measures the allocations and bytes of each request of t on one
// goroutine, as JSON-RPC.NET reports them per request shape, and describes
// them for the Sync table: "0 allocations, 0 B for each request of the mix",
// or the requests grouped by cost.
func shapeAllocs(t *Target) (string, error) {
	const n = 2000
	p := t.NewWorker()
	buf := make([]byte, 0, bufSize)
	type cost struct {
		allocs, bytes float64
	}
	var (
		order []cost
		names = map[cost][]string{}
	)
	for _, req := range t.Reqs {
		var env struct{ Method string }
		if err := json.Unmarshal(req, &env); err != nil || env.Method == "" {
			return "", fmt.Errorf("row %s: request %s names no method", t.Name, req)
		}
		for range n / 10 {
			buf = p(buf[:0], req)
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for range n {
			buf = p(buf[:0], req)
		}
		runtime.ReadMemStats(&after)
		c := cost{float64(after.Mallocs-before.Mallocs) / n, float64(after.TotalAlloc-before.TotalAlloc) / n}
		// Rounded as printed, so that noise below it does not split a group.
		c.allocs, c.bytes = roundTo(c.allocs, 100), roundTo(c.bytes, 1)
		if _, ok := names[c]; !ok {
			order = append(order, c)
		}
		names[c] = append(names[c], env.Method)
	}
	desc := func(c cost) string {
		unit := "allocations"
		if c.allocs == 1 {
			unit = "allocation"
		}
		return fmt.Sprintf("%s %s, %.0f B", strconv.FormatFloat(c.allocs, 'f', -1, 64), unit, c.bytes)
	}
	if len(order) == 1 {
		return desc(order[0]) + " for each request of the mix", nil
	}
	parts := make([]string, len(order))
	for i, c := range order {
		parts[i] = desc(c) + ": " + strings.Join(names[c], ", ")
	}
	return strings.Join(parts, "; "), nil
}

// roundTo rounds x to the nearest multiple of 1/per.
func roundTo(x, per float64) float64 {
	return float64(int64(x*per+0.5)) / per
}

// dotnetRange formats a row's RPC/s cell as JSON-RPC.NET does: the low and
// the high of the runs ("4.60 M to 5.02 M"), or one figure when they print
// the same.
func dotnetRange(r Row) string {
	lo, hi := dotnetRate(r.MinRPS), dotnetRate(r.MaxRPS)
	if lo == hi {
		return lo
	}
	return lo + " to " + hi
}

// dotnetRate formats calls per second to three significant figures with a
// spaced unit: 8.96 M, 31.7 M, 915 k, 123.
func dotnetRate(r float64) string {
	unit, v := "", r
	switch {
	case r >= 1e6:
		unit, v = " M", r/1e6
	case r >= 1e3:
		unit, v = " k", r/1e3
	}
	switch {
	case unit == "" || v >= 100:
		return fmt.Sprintf("%.0f%s", v, unit)
	case v >= 10:
		return fmt.Sprintf("%.1f%s", v, unit)
	}
	return fmt.Sprintf("%.2f%s", v, unit)
}

// writeMarkdown writes a Markdown table: the header, the alignment row
// (right-aligned columns where right is set) and one line per row.
func writeMarkdown(w io.Writer, cols []string, right []bool, rows [][]string) {
	line := func(cells []string) {
		fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
	}
	line(cols)
	align := make([]string, len(cols))
	for i := range cols {
		align[i] = "---"
		if right[i] {
			align[i] = "---:"
		}
	}
	line(align)
	for _, r := range rows {
		line(r)
	}
}
