package main

import (
	"errors"
	"fmt"
	"math/bits"
	"os"
	"runtime/pprof"
	"text/tabwriter"
	"time"

	"github.com/jsonrpc-go/jsonrpc/bench/internal/loadgen"
)

// What the network modes (tcp, http) share: a latency histogram that costs
// no allocation to record into, the rows' latency fields and their table.

// drainTimeout bounds how long a network run waits, after its duration, for
// the answers still in flight; a server that stops answering fails the run
// instead of hanging it.
// Tests shorten it.
var drainTimeout = 2 * time.Second

// latHist is a log-linear histogram of latencies in nanoseconds: 32 buckets
// per power of two, so a percentile is within about 3% of the exact one.
// Recording is an index computation and an increment; a histogram is
// allocated once per connection, before the run.
type latHist struct {
	n      uint64
	counts [latBuckets]uint64
}

const (
	latSubBits = 5
	latSub     = 1 << latSubBits // buckets per power of two
	latBuckets = (64 - latSubBits + 1) * latSub
)

// record adds one latency of ns nanoseconds.
func (h *latHist) record(ns int64) {
	if ns < 0 {
		ns = 0
	}
	h.counts[latIndex(uint64(ns))]++
	h.n++
}

func latIndex(v uint64) int {
	if v < latSub {
		return int(v)
	}
	e := bits.Len64(v) // > latSubBits
	m := (v >> (e - latSubBits - 1)) & (latSub - 1)
	return (e-latSubBits)*latSub + int(m)
}

// latValue is the middle of bucket i, in nanoseconds.
func latValue(i int) float64 {
	if i < latSub {
		return float64(i)
	}
	e := i/latSub + latSubBits
	m := uint64(i % latSub)
	width := uint64(1) << (e - latSubBits - 1)
	return float64((latSub+m)*width) + float64(width)/2
}

func (h *latHist) reset() { *h = latHist{} }

// add adds the counts of o to h.
func (h *latHist) add(o *latHist) {
	for i, c := range o.counts {
		h.counts[i] += c
	}
	h.n += o.n
}

// quantile returns the q-quantile (0 < q <= 1) in nanoseconds, or 0 for an
// empty histogram.
func (h *latHist) quantile(q float64) float64 {
	if h.n == 0 {
		return 0
	}
	target := uint64(q * float64(h.n))
	if float64(target) < q*float64(h.n) {
		target++
	}
	target = max(target, 1)
	var cum uint64
	for i, c := range h.counts {
		cum += c
		if cum >= target {
			return latValue(i)
		}
	}
	return latValue(latBuckets - 1)
}

// netRow summarizes the runs of a network row: the Row of the other modes,
// with ns/request as wall time per request (1e9 / median req/s: a connection
// is not a core) and the latency percentiles over every sample of every run.
func netRow(name string, conns int, ms []Measurement, lat *latHist, note string) Row {
	r := newRow(name, conns, ms)
	if r.MedianRPS > 0 {
		r.NsPerCall = 1e9 / r.MedianRPS
	}
	if lat != nil && lat.n > 0 {
		r.P50us = lat.quantile(0.50) / 1e3
		r.P90us = lat.quantile(0.90) / 1e3
		r.P99us = lat.quantile(0.99) / 1e3
		r.LatencySamples = lat.n
	}
	r.Note = note
	return r
}

// netTable prints the table of a network mode, and the rows' notes under it.
func (e *env) netTable(rep *Report, what string, runs int) {
	e.header(rep, what, runs)
	tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "row\tconns\treq/s\tmin–max\tns/req\tallocs/req\tp50 µs\tp90 µs\tp99 µs\t")
	for _, r := range rep.Rows {
		lat := "\t-\t-\t-"
		if r.LatencySamples > 0 {
			lat = fmt.Sprintf("\t%.1f\t%.1f\t%.1f", r.P50us, r.P90us, r.P99us)
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%.1f\t%.2f%s\t\n",
			r.Name, r.Workers, loadgen.FormatRate(r.MedianRPS), fmtRange(r), r.NsPerCall, r.AllocsPerCall, lat)
	}
	tw.Flush()
	for _, r := range rep.Rows {
		if r.Note != "" {
			fmt.Fprintf(e.stdout, "  %s: %s\n", r.Name, r.Note)
		}
	}
}

// netProgress prints the result of one network run after a progress line.
func (e *env) netProgress(m Measurement, lat *latHist) {
	fmt.Fprintf(e.stderr, "%s req/s, %.1f ns/req, %.2f allocs/req", loadgen.FormatRate(m.RPS()), ratio(1e9, m.RPS()), m.AllocsPerCall())
	if lat != nil && lat.n > 0 {
		fmt.Fprintf(e.stderr, ", p50 %.1f µs, p99 %.1f µs", lat.quantile(0.5)/1e3, lat.quantile(0.99)/1e3)
	}
	fmt.Fprintln(e.stderr)
}

// startProfile starts a CPU profile into path when path is set; the
// returned function stops it.
func startProfile(path string) (func() error, error) {
	if path == "" {
		return func() error { return nil }, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() error {
		pprof.StopCPUProfile()
		return f.Close()
	}, nil
}

// isTimeout reports whether err is a deadline's.
func isTimeout(err error) bool {
	return errors.Is(err, os.ErrDeadlineExceeded)
}
