package main

import (
	"errors"
	"flag"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/jsonrpc-go/jsonrpc/bench/internal/loadgen"
)

// The network rows of the headline suite run as the tcp and http modes do at
// these settings.
const (
	headTCPWindow   = 64
	headTCPInflight = 256
	headHTTPConns   = 16
)

// headlineOpts are the flags of the headline suite.
type headlineOpts struct {
	d        time.Duration
	runs     int
	jsonFile string
}

// headlineFlags returns the flag set of the headline suite (rpcbench with no
// mode), whose usage is rpcbench's.
func (e *env) headlineFlags() (*flag.FlagSet, *headlineOpts) {
	o := new(headlineOpts)
	fs := flag.NewFlagSet("rpcbench", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.Usage = e.usage
	fs.DurationVar(&o.d, "d", time.Second, "duration of each measurement")
	fs.IntVar(&o.runs, "runs", 3, "interleaved runs; the table shows the median")
	fs.StringVar(&o.jsonFile, "json", "", "write the results as JSON to `FILE`")
	return fs, o
}

// A headRow is a row of the headline suite, built and checked, ready to
// measure.
type headRow struct {
	name, what string
	target     *Target                                            // an in-process row, measured at 1 worker
	net        func(time.Duration) (Measurement, *latHist, error) // a network row
	conns      int                                                // of a network row
	note       string                                             // of a network row
	batch      int                                                // of a legacy row
}

// headline runs the headline suite: one row per entry point, each measured
// -runs times for -d in interleaved runs, and one table with each row's
// ratio to the sync row.
func (e *env) headline(args []string) int {
	fs, o := e.headlineFlags()
	if code, ok := e.parse(fs, args); !ok {
		return code
	}
	switch {
	case o.d <= 0:
		return e.badFlag(fs, "-d must be positive")
	case o.runs < 1:
		return e.badFlag(fs, "-runs must be at least 1")
	}
	began := time.Now()

	// Every row is built and checked before anything is measured.
	rows, cleanup, err := e.headlineRows(o.d)
	defer cleanup()
	if err != nil {
		return e.refuse(err)
	}
	ms := make([][]Measurement, len(rows))
	lats := make([]*latHist, len(rows))
	for i := range lats {
		lats[i] = new(latHist)
	}
	for k := range o.runs {
		for i, r := range rows {
			var m Measurement
			if r.target != nil {
				if m, err = e.measure(r.target, 1, o.d, k+1, o.runs); err != nil {
					return e.refuse(err)
				}
			} else {
				fmt.Fprintf(e.stderr, "running %s conns=%d run %d/%d... ", r.name, r.conns, k+1, o.runs)
				var lat *latHist
				if m, lat, err = r.net(o.d); err != nil {
					fmt.Fprintln(e.stderr, "failed")
					return e.refuse(err)
				}
				e.netProgress(m, lat)
				lats[i].add(lat)
			}
			ms[i] = append(ms[i], m)
		}
	}

	rep := newReport("headline", o.d)
	var legacy []Row
	for i, r := range rows {
		var row Row
		if r.target != nil {
			row = newRow(r.name, 1, ms[i])
		} else {
			row = netRow(r.name, r.conns, ms[i], lats[i], r.note)
		}
		row.What, row.Batch = r.what, r.batch
		if r.batch > 0 {
			legacy = append(legacy, row)
			continue
		}
		rep.Rows = append(rep.Rows, row)
	}
	rep.Best = bestBatch(legacy)
	for _, r := range legacy {
		if r.Name == rep.Best.Row {
			rep.Rows = append(rep.Rows, r)
		}
	}
	base := rep.Rows[0].MedianRPS // the sync row
	for i := range rep.Rows {
		rep.Rows[i].RatioToSync = ratio(rep.Rows[i].MedianRPS, base)
	}

	e.header(rep, "the headline suite, one row per entry point", o.runs)
	tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "row\tcalls/s\tmin–max\tns/call\tallocs/call\tvs sync\t  what")
	for _, r := range rep.Rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%.1f\t%.2f\t%.2f\t  %s\n",
			r.Name, loadgen.FormatRate(r.MedianRPS), fmtRange(r), r.NsPerCall, r.AllocsPerCall, r.RatioToSync, r.What)
	}
	tw.Flush()
	sizes := make([]string, len(rep.Best.Sizes))
	for i, s := range rep.Best.Sizes {
		sizes[i] = fmt.Sprintf("%d: %s", s.Batch, loadgen.FormatRate(s.MedianRPS))
	}
	fmt.Fprintf(e.stdout, "  %s: the best of the batch sizes measured (median calls/s by size: %s)\n",
		rep.Best.Row, strings.Join(sizes, ", "))
	fmt.Fprintf(e.stdout, "  ns/call: per core for the in-process rows (one worker); wall time per call for tcp and http\n")
	for _, r := range rep.Rows {
		if r.Note != "" {
			fmt.Fprintf(e.stdout, "  %s: %s\n", r.Name, r.Note)
		}
	}
	fmt.Fprintf(e.stderr, "headline suite: %d measurements in %s\n", len(rows)*o.runs, time.Since(began).Round(100*time.Millisecond))
	return e.writeJSON(rep, o.jsonFile, 0)
}

// headlineRows builds and checks the rows of the headline suite. cleanup
// shuts down the servers of the network rows; it is never nil.
func (e *env) headlineRows(d time.Duration) (rows []headRow, cleanup func(), err error) {
	var closers []func()
	cleanup = func() {
		for _, c := range closers {
			c()
		}
	}
	add := func(name, what string, def rowDef, ent entry) error {
		def.name = name
		t, err := def.target(ent)
		if err != nil {
			return err
		}
		rows = append(rows, headRow{name: name, what: what, target: t})
		return nil
	}
	if err := add("sync", "(*Server).Process, calculator mix, 1 worker", e.scaleRow, syncEntry); err != nil {
		return nil, cleanup, err
	}
	if err := add("async-inline", "ProcessAsync, calculator mix, methods inline, 1 worker", e.scaleRow, asyncInlineEntry); err != nil {
		return nil, cleanup, err
	}
	if err := add("async-suspend", "ProcessAsync, add registered Blocking: one suspension per call, 1 worker", suspendRows[0], asyncWaitEntry); err != nil {
		return nil, cleanup, err
	}

	// TCP: the tcp mode's first row (the default ordering, methods inline), one connection.
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
	tt, err := newTCPTarget(*tdef, 1, headTCPWindow, headTCPInflight)
	if err != nil {
		return nil, cleanup, err
	}
	closers = append(closers, tt.close)
	calib, err := clientAllocs(1, headTCPWindow, headTCPInflight, min(d, 200*time.Millisecond))
	if err != nil {
		return nil, cleanup, fmt.Errorf("calibrating the tcp load generator: %w", err)
	}
	rows = append(rows, headRow{
		name:  tt.name,
		what:  fmt.Sprintf("stream.Server over loopback TCP, 1 connection, %d requests pipelined", headTCPInflight),
		net:   tt.measure,
		conns: 1,
		note:  tcpAllocNote(calib),
	})

	// HTTP: the http mode, 16 connections, on net/http and on fasthttp.
	h, err := e.httpServer()
	if err != nil {
		return nil, cleanup, fmt.Errorf("row http: setup: %w", err)
	}
	for _, name := range []string{"net/http", "fasthttp"} {
		hs := httpServers[name]
		ht, err := hs.target(h, headHTTPConns)
		if err != nil {
			return nil, cleanup, err
		}
		closers = append(closers, ht.close)
		rows = append(rows, headRow{
			name:  ht.name,
			what:  fmt.Sprintf("%s over HTTP/1.1 keep-alive, %d connections", hs.handler, headHTTPConns),
			net:   ht.measure,
			conns: headHTTPConns,
			note:  "allocs are process-wide: the " + name + " server's, the handler's and the load generator's",
		})
	}

	// The legacy string API at each batch size; the table keeps the best.
	for _, k := range defaultBatches {
		def := legacyRow(e.legacySrv(), k)
		t, err := def.target(stringEntry)
		if err != nil {
			return nil, cleanup, err
		}
		what := fmt.Sprintf("ProcessString, calculator mix in batches of %d, 1 worker", k)
		if k == 1 {
			what = "ProcessString, calculator mix, single requests, 1 worker"
		}
		rows = append(rows, headRow{name: def.name, what: what, target: t, batch: k})
	}
	return rows, cleanup, nil
}
