package main

import (
	"encoding/json"
	"os"
	"runtime"
	"slices"
	"time"

	"github.com/jsonrpc-go/jsonrpc/bench/internal/loadgen"
)

// A Report is what -json writes: the machine, the mode and one Row per
// measured (row, worker count). Every mode writes the same shape; a mode with
// a verdict adds its own section (Scale).
type Report struct {
	Date       string        `json:"date"` // RFC 3339, when the mode started
	Go         string        `json:"go"`   // runtime.Version()
	GOOS       string        `json:"goos"`
	GOARCH     string        `json:"goarch"`
	CPU        string        `json:"cpu"`   // model name from /proc/cpuinfo, or ""
	Cores      int           `json:"cores"` // runtime.NumCPU()
	GOMAXPROCS int           `json:"gomaxprocs"`
	Mode       string        `json:"mode"`
	Duration   string        `json:"duration"` // of each run, as time.Duration prints it ("3s")
	Rows       []Row         `json:"rows"`
	Scale      *ScaleVerdict `json:"scale,omitempty"`
	// Best is the fastest batch size of the legacy string API (the legacy
	// mode and the headline suite).
	Best *BestBatch `json:"best,omitempty"`
}

// BestBatch names the batch size at which ProcessString made the most calls
// per second (median of the runs), among the sizes measured.
type BestBatch struct {
	Row       string        `json:"row"`
	Batch     int           `json:"batch"`
	Workers   int           `json:"workers"`
	MedianRPS float64       `json:"median_rps"`
	Sizes     []BatchMedian `json:"sizes"` // every size measured, in flag order
}

// BatchMedian is the median calls per second at one batch size.
type BatchMedian struct {
	Batch     int     `json:"batch"`
	MedianRPS float64 `json:"median_rps"`
}

// A Row is the result of one row at one worker count over one or more runs.
type Row struct {
	Name          string    `json:"name"`
	Workers       int       `json:"workers"`
	Runs          []float64 `json:"runs"` // calls per second of each run, in run order
	MedianRPS     float64   `json:"median_rps"`
	MinRPS        float64   `json:"min_rps"`
	MaxRPS        float64   `json:"max_rps"`
	NsPerCall     float64   `json:"ns_per_call"`     // workers * 1e9 / median_rps; tcp, http: 1e9 / median_rps
	AllocsPerCall float64   `json:"allocs_per_call"` // over all runs

	// The network modes (tcp, http), where Workers counts connections, add
	// client-side latency percentiles in microseconds over every sample of
	// every run (tcp: per window of pipelined requests, from its write to
	// its last response; http: per request), and a note on what the
	// allocation count includes.
	P50us          float64 `json:"p50_us,omitempty"`
	P90us          float64 `json:"p90_us,omitempty"`
	P99us          float64 `json:"p99_us,omitempty"`
	LatencySamples uint64  `json:"latency_samples,omitempty"`
	Note           string  `json:"note,omitempty"`

	// Batch is the batch size of a legacy row (1: single requests).
	Batch int `json:"batch,omitempty"`
	// The headline suite adds what each row measures and its median
	// calls/s over the sync row's; the dotnet mode, what each of its
	// network rows measures (its Transport cell).
	What        string  `json:"what,omitempty"`
	RatioToSync float64 `json:"ratio_to_sync,omitempty"`
}

// ScaleVerdict is the scale mode's gate.
type ScaleVerdict struct {
	Row        string    `json:"row"`
	Workers    int       `json:"workers"`     // N
	Ratio      float64   `json:"ratio"`       // median req/s at N / median at 1
	PairRatios []float64 `json:"pair_ratios"` // N/1 of each paired run
	MinRatio   float64   `json:"min_ratio"`
	ReportOnly bool      `json:"report_only"`
	Pass       bool      `json:"pass"` // Ratio >= MinRatio
}

// newReport describes this machine and process.
func newReport(mode string, d time.Duration) *Report {
	return &Report{
		Date:       time.Now().Format(time.RFC3339),
		Go:         runtime.Version(),
		GOOS:       runtime.GOOS,
		GOARCH:     runtime.GOARCH,
		CPU:        loadgen.CPUModel(),
		Cores:      runtime.NumCPU(),
		GOMAXPROCS: runtime.GOMAXPROCS(0),
		Mode:       mode,
		Duration:   d.String(),
		Rows:       []Row{},
	}
}

// newRow summarizes the runs of one row at one worker count.
func newRow(name string, workers int, ms []Measurement) Row {
	r := Row{Name: name, Workers: workers, Runs: make([]float64, len(ms))}
	var calls int64
	var mallocs uint64
	for i, m := range ms {
		r.Runs[i] = m.RPS()
		calls += m.Calls
		mallocs += m.Mallocs
	}
	r.MedianRPS = loadgen.Median(r.Runs)
	if len(r.Runs) > 0 {
		r.MinRPS = slices.Min(r.Runs)
		r.MaxRPS = slices.Max(r.Runs)
	}
	if r.MedianRPS > 0 {
		r.NsPerCall = float64(workers) * 1e9 / r.MedianRPS
	}
	if calls > 0 {
		r.AllocsPerCall = float64(mallocs) / float64(calls)
	}
	return r
}

// WriteFile writes the report as indented JSON.
func (r *Report) WriteFile(path string) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// fmtRange formats the min–max of a row's runs.
func fmtRange(r Row) string {
	return loadgen.FormatRate(r.MinRPS) + "–" + loadgen.FormatRate(r.MaxRPS)
}

// find returns the row with the given name and worker count, or nil.
func (r *Report) find(name string, workers int) *Row {
	for i := range r.Rows {
		if r.Rows[i].Name == name && r.Rows[i].Workers == workers {
			return &r.Rows[i]
		}
	}
	return nil
}
