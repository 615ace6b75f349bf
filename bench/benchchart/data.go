package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// report mirrors the part of bench/rpcbench's Report (results.go) that the
// charts and the checks of the documents use. Other fields are ignored.
type report struct {
	File       string `json:"-"` // base name in the data directory
	Date       string `json:"date"`
	Go         string `json:"go"`
	CPU        string `json:"cpu"`
	Cores      int    `json:"cores"`
	GOMAXPROCS int    `json:"gomaxprocs"`
	Mode       string `json:"mode"`
	Duration   string `json:"duration"`
	Rows       []row  `json:"rows"`
}

// row mirrors bench/rpcbench's Row.
type row struct {
	Name          string    `json:"name"`
	Workers       int       `json:"workers"` // connections in the tcp and http modes
	Runs          []float64 `json:"runs"`
	MedianRPS     float64   `json:"median_rps"`
	MinRPS        float64   `json:"min_rps"`
	MaxRPS        float64   `json:"max_rps"`
	NsPerCall     float64   `json:"ns_per_call"`
	AllocsPerCall float64   `json:"allocs_per_call"`
	P50us         float64   `json:"p50_us,omitempty"`
	P90us         float64   `json:"p90_us,omitempty"`
	P99us         float64   `json:"p99_us,omitempty"`
	Note          string    `json:"note,omitempty"`

	// The peers set's fields (bench/peers): the scenario ("tcp", "http",
	// "inproc"), the library, and its protocol ("JSON-RPC 2.0", ...).
	Scenario string `json:"scenario,omitempty"`
	Peer     string `json:"peer,omitempty"`
	Protocol string `json:"protocol,omitempty"`
}

// indexFile is the list of the result sets that the explorer (docs/explorer)
// reads, kept in the data directory; it is not a result set.
const indexFile = "index.json"

// loadDir reads the result files (*.json but index.json) of dir in name order. A file that
// is not a result set (not JSON of that shape, no mode, no rows, a row
// without a name or a positive worker count) is skipped with a warning to
// warn. Only an unreadable directory is an error.
func loadDir(dir string, warn io.Writer) ([]*report, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var reports []*report
	for _, e := range entries { // sorted by name
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".json") || e.Name() == indexFile {
			continue
		}
		p := filepath.Join(dir, e.Name())
		b, err := os.ReadFile(p)
		if err != nil {
			fmt.Fprintf(warn, "benchchart: warning: skipping %s: %v\n", p, err)
			continue
		}
		r, err := parseReport(b)
		if err != nil {
			fmt.Fprintf(warn, "benchchart: warning: skipping %s: not an rpcbench result set: %v\n", p, err)
			continue
		}
		r.File = e.Name()
		reports = append(reports, r)
	}
	return reports, nil
}

// parseReport decodes and validates one result file.
func parseReport(b []byte) (*report, error) {
	var r report
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, err
	}
	switch {
	case r.Mode == "":
		return nil, fmt.Errorf("no mode")
	case len(r.Rows) == 0:
		return nil, fmt.Errorf("no rows")
	}
	for i, rw := range r.Rows {
		if rw.Name == "" || rw.Workers <= 0 {
			return nil, fmt.Errorf("row %d has no name or no positive workers", i)
		}
	}
	return &r, nil
}

// latest returns the report of the given mode with the greatest date (then
// file name), or nil.
func latest(reports []*report, mode string) *report {
	var best *report
	for _, r := range reports {
		if r.Mode != mode {
			continue
		}
		if best == nil || r.Date > best.Date || (r.Date == best.Date && r.File > best.File) {
			best = r
		}
	}
	return best
}

// find returns the row with the given name and worker count, or nil.
func (r *report) find(name string, workers int) *row {
	for i := range r.Rows {
		if r.Rows[i].Name == name && r.Rows[i].Workers == workers {
			return &r.Rows[i]
		}
	}
	return nil
}

// names returns the report's row names in order of first appearance.
func (r *report) names() []string {
	var ns []string
	for _, rw := range r.Rows {
		if !slices.Contains(ns, rw.Name) {
			ns = append(ns, rw.Name)
		}
	}
	return ns
}

// workers returns the report's worker counts, ascending.
func (r *report) workers() []int {
	var ws []int
	for _, rw := range r.Rows {
		if !slices.Contains(ws, rw.Workers) {
			ws = append(ws, rw.Workers)
		}
	}
	slices.Sort(ws)
	return ws
}

// formatRate formats calls or requests per second as the documents write
// them: two decimals in millions from 100 000 up ("7.81 M", "0.64 M"), one
// decimal in thousands from 1 000 ("32.7 k"), and whole numbers below.
func formatRate(v float64) string {
	switch {
	case v >= 1e5:
		return fmt.Sprintf("%.2f M", v/1e6)
	case v >= 1e3:
		return fmt.Sprintf("%.1f k", v/1e3)
	}
	return fmt.Sprintf("%.0f", v)
}
