package main

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/bench/internal/loadgen"
	"github.com/jsonrpc-go/jsonrpc/internal/demo"
)

// defaultBatches are the batch sizes of the legacy mode, and those the
// headline suite chooses its legacy row from.
var defaultBatches = []int{1, 5, 20, 100}

// legacy measures the legacy string API (*jsonrpc.Server).ProcessString on
// the calculator mix at several batch sizes, as JSON-RPC.NET's harness did,
// and names the fastest size.
func (e *env) legacy(args []string) int {
	fs := e.flags("legacy", "[-d 1s] [-runs 3] [-batches 1,5,20,100] [-workers N] [-json FILE]",
		"Measures the legacy string API (*jsonrpc.Server).ProcessString on the calculator\n"+
			"mix at each batch size of -batches: size 1 sends single requests cycling the\n"+
			"mix; size K sends one batch document of K calculator requests, built once,\n"+
			"counting K calls per document. Rows are named legacy (size 1) and\n"+
			"legacy-batchK; the last line names the size with the most calls/s.")
	rf := addRunFlags(fs, "duration of each run", "runs per batch size; the table shows the median")
	d, runs, jsonFile := rf.d, rf.runs, rf.jsonFile
	batches := intList(slices.Clone(defaultBatches))
	fs.Var(&batches, "batches", "comma-separated batch `sizes` (1: single requests)")
	workers := fs.Int("workers", 1, "worker goroutines (`N`)")
	if code, ok := e.parse(fs, args); !ok {
		return code
	}
	if msg := rf.problem(); msg != "" {
		return e.badFlag(fs, msg)
	}
	if *workers < 1 {
		return e.badFlag(fs, "-workers must be at least 1")
	}
	defs := make([]rowDef, len(batches))
	for i, k := range batches {
		defs[i] = legacyRow(e.legacySrv(), k)
	}
	rep := newReport("legacy", *d)
	return e.measureRows(rep, "(*jsonrpc.Server).ProcessString, calculator mix by batch size", defs, stringEntry,
		[]int{*workers}, *d, *runs, *jsonFile, func() {
			for i := range rep.Rows {
				rep.Rows[i].Batch = batches[i]
			}
			rep.Best = bestBatch(rep.Rows)
			e.printBest(rep.Best)
		})
}

// legacySrv returns the server setup of the legacy rows.
func (e *env) legacySrv() func() (*jsonrpc.Server, error) {
	if e.legacyServer != nil {
		return e.legacyServer
	}
	return demoServer
}

// stringEntry calls the legacy string API (*jsonrpc.Server).ProcessString.
// The request bytes, built once and never written, are viewed as a string
// without a copy, and the response string is handed back as the worker's
// buffer without a copy either (dst is not used, and nothing writes to the
// result), so that a call costs what ProcessString costs, including its
// allocation of the response.
func stringEntry(srv *jsonrpc.Server) func() ProcessFunc {
	return func() ProcessFunc {
		return func(_, req []byte) []byte {
			resp := srv.ProcessString(context.Background(), unsafe.String(unsafe.SliceData(req), len(req)))
			return unsafe.Slice(unsafe.StringData(resp), len(resp))
		}
	}
}

// legacyRow is the row of batch size k: single requests cycling the
// calculator mix for k = 1, otherwise one batch document of k calculator
// requests with ids 1 to k.
func legacyRow(server func() (*jsonrpc.Server, error), k int) rowDef {
	if k <= 1 {
		return rowDef{name: "legacy", server: server, reqs: demo.Requests, want: mixWant, via: stringEntry}
	}
	reqs := make([]string, k)
	want := make([]string, k)
	for i := range k {
		reqs[i] = withID(demo.Requests[i%len(demo.Requests)], i+1)
		want[i] = withID(mixWant[i%len(mixWant)], i+1)
	}
	return rowDef{
		name:       "legacy-batch" + strconv.Itoa(k),
		callsPerOp: k,
		server:     server,
		reqs:       []string{"[" + strings.Join(reqs, ",") + "]"},
		want:       []string{"[" + strings.Join(want, ",") + "]"},
		via:        stringEntry,
	}
}

// withID replaces the trailing "id" member of a request or response object
// of the mix (which ends with it) with id.
func withID(doc string, id int) string {
	i := strings.LastIndex(doc, `"id":`)
	if i < 0 || !strings.HasSuffix(doc, "}") {
		return doc
	}
	return doc[:i] + `"id":` + strconv.Itoa(id) + "}"
}

// bestBatch returns the legacy row with the highest median, or nil for
// none; rows must have Batch set.
func bestBatch(rows []Row) *BestBatch {
	var b *BestBatch
	var sizes []BatchMedian
	for _, r := range rows {
		sizes = append(sizes, BatchMedian{Batch: r.Batch, MedianRPS: r.MedianRPS})
		if b == nil || r.MedianRPS > b.MedianRPS {
			b = &BestBatch{Row: r.Name, Batch: r.Batch, Workers: r.Workers, MedianRPS: r.MedianRPS}
		}
	}
	if b != nil {
		b.Sizes = sizes
	}
	return b
}

// printBest prints the final line of the legacy mode.
func (e *env) printBest(b *BestBatch) {
	if b == nil {
		return
	}
	what := fmt.Sprintf("batches of %d", b.Batch)
	if b.Batch == 1 {
		what = "single requests"
	}
	fmt.Fprintf(e.stdout, "best batch size: %d (%s, row %s): %s calls/s\n", b.Batch, what, b.Row, loadgen.FormatRate(b.MedianRPS))
}
