//go:build !js && !wasip1

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMergeRuns: the rows of single runs make one row with their median,
// range and rate-weighted allocations.
func TestMergeRuns(t *testing.T) {
	rows := []Row{
		{Runs: []float64{3e6}, MedianRPS: 3e6, AllocsPerCall: 0},
		{Runs: []float64{1e6}, MedianRPS: 1e6, AllocsPerCall: 2},
		{Runs: []float64{2e6}, MedianRPS: 2e6, AllocsPerCall: 0.5},
	}
	r := mergeRuns("js/wasm", "Node v20", rows)
	if r.Name != "js/wasm" || r.Note != "Node v20" || r.Workers != 1 {
		t.Errorf("name %q, note %q, workers %d", r.Name, r.Note, r.Workers)
	}
	if r.MedianRPS != 2e6 || r.MinRPS != 1e6 || r.MaxRPS != 3e6 || len(r.Runs) != 3 {
		t.Errorf("median %g, min %g, max %g, runs %v; want 2e6, 1e6, 3e6 of three runs", r.MedianRPS, r.MinRPS, r.MaxRPS, r.Runs)
	}
	if r.NsPerCall != 500 {
		t.Errorf("ns/call %g, want 500", r.NsPerCall)
	}
	if want := (2*1e6 + 0.5*2e6) / 6e6; r.AllocsPerCall != want {
		t.Errorf("allocs/call %g, want %g", r.AllocsPerCall, want)
	}
}

// TestRunPortRefuses: a result that is not one run of one row from the
// port's own build is refused.
func TestRunPortRefuses(t *testing.T) {
	dir := t.TempDir()
	p := wasmPort{name: "js/wasm", goos: "js"}
	for _, tc := range []struct{ name, json string }{
		{"native", `{"goos":"linux","goarch":"amd64","rows":[{"name":"calc-mix","workers":1,"runs":[1]}]}`},
		{"two runs", `{"goos":"js","goarch":"wasm","rows":[{"name":"calc-mix","workers":1,"runs":[1,2]}]}`},
		{"no rows", `{"goos":"js","goarch":"wasm","rows":[]}`},
	} {
		run := func(args []string) error {
			return os.WriteFile(filepath.Join(dir, args[len(args)-1]), []byte(tc.json), 0o644)
		}
		if _, err := runPort(p, dir, run, nil); err == nil || !strings.Contains(err.Error(), "want one row of one run") {
			t.Errorf("%s: %v, want a refusal", tc.name, err)
		}
	}
	run := func(args []string) error {
		return os.WriteFile(filepath.Join(dir, args[len(args)-1]), []byte(`{"goos":"js","goarch":"wasm","rows":[{"name":"calc-mix","workers":1,"runs":[5e5],"median_rps":5e5}]}`), 0o644)
	}
	if r, err := runPort(p, dir, run, nil); err != nil || r.MedianRPS != 5e5 {
		t.Errorf("a good result: %+v, %v", r, err)
	}
}
