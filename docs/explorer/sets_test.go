package explorer

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite ../bench/index.json from the result sets in ../bench")

// benchDir holds the result sets and index.json, relative to this package.
const benchDir = "../bench"

// indexName is the list of result sets that the page reads first.
const indexName = "index.json"

// report is a result set as the page reads it: the fields of bench/rpcbench's
// Report and of the bench/peers report. A pointer field is nil when the file
// lacks it, and the page shows a dash there.
type report struct {
	File       string `json:"-"` // base name in benchDir
	Date       string `json:"date"`
	Go         string `json:"go"`
	GOOS       string `json:"goos"`
	GOARCH     string `json:"goarch"`
	CPU        string `json:"cpu"`
	Cores      *int   `json:"cores"`
	GOMAXPROCS *int   `json:"gomaxprocs"`
	Mode       string `json:"mode"`
	Duration   string `json:"duration"`
	Rows       []row  `json:"rows"`
	Skipped    []skip `json:"skipped"`
}

// row is one benchmark name at one worker count.
type row struct {
	Name     string   `json:"name"`
	Workers  int      `json:"workers"`
	Median   *float64 `json:"median_rps"`
	Min      *float64 `json:"min_rps"`
	Max      *float64 `json:"max_rps"`
	Ns       *float64 `json:"ns_per_call"`
	Allocs   *float64 `json:"allocs_per_call"`
	P50      *float64 `json:"p50_us"`
	P90      *float64 `json:"p90_us"`
	P99      *float64 `json:"p99_us"`
	Note     string   `json:"note"`
	Scenario string   `json:"scenario"`            // peers sets only
	Peer     string   `json:"peer"`                // peers sets only
	Ratio    *float64 `json:"ratio_to_jsonrpc_go"` // peers sets only
}

// skip is a pair of scenario and library that a peers set did not measure.
type skip struct {
	Scenario string `json:"scenario"`
	Peer     string `json:"peer"`
	Why      string `json:"why"`
}

// ownLibrary is the library of the rows without a peer: the sets of
// bench/rpcbench measure this module.
const ownLibrary = "jsonrpc-go"

// scenario is the row's scenario as the page filters it: its own, or the
// mode of its set.
func (r *report) scenario(rw row) string {
	if rw.Scenario != "" {
		return rw.Scenario
	}
	return r.Mode
}

// library is the row's library as the page filters it.
func library(rw row) string {
	if rw.Peer != "" {
		return rw.Peer
	}
	return ownLibrary
}

// index is the content of docs/bench/index.json.
type index struct {
	Sets []indexEntry `json:"sets"`
}

type indexEntry struct {
	File string `json:"file"`
	Mode string `json:"mode"`
	Date string `json:"date"`
}

// parseReport decodes one result set and checks the fields the page needs.
func parseReport(file string, b []byte) (*report, error) {
	r := &report{File: file}
	if err := json.Unmarshal(b, r); err != nil {
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
	return r, nil
}

// loadSets reads every result set of dir (each *.json but index.json), in
// file name order.
func loadSets(t testing.TB, dir string) []*report {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var sets []*report
	for _, e := range entries {
		if !e.Type().IsRegular() || !strings.HasSuffix(e.Name(), ".json") || e.Name() == indexName {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		r, err := parseReport(e.Name(), b)
		if err != nil {
			t.Fatalf("%s is not a result set the explorer can show: %v", filepath.Join(dir, e.Name()), err)
		}
		sets = append(sets, r)
	}
	if len(sets) == 0 {
		t.Fatalf("no result sets in %s", dir)
	}
	return sets
}

// indexOf returns the index of the sets, in the order given.
func indexOf(sets []*report) index {
	idx := index{Sets: []indexEntry{}}
	for _, r := range sets {
		idx.Sets = append(idx.Sets, indexEntry{File: r.File, Mode: r.Mode, Date: r.Date})
	}
	return idx
}

func marshalIndex(idx index) []byte {
	b, err := json.MarshalIndent(idx, "", "  ")
	if err != nil {
		panic(err)
	}
	return append(b, '\n')
}

// TestIndex checks that docs/bench/index.json lists exactly the result sets
// of docs/bench, with their modes and dates, in file name order. With
// -update it writes the file instead.
func TestIndex(t *testing.T) {
	sets := loadSets(t, benchDir)
	want := marshalIndex(indexOf(sets))
	path := filepath.Join(benchDir, indexName)
	if *update {
		if err := os.WriteFile(path, want, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s with %d sets", path, len(sets))
		return
	}
	const fix = "run `go test -run TestIndex -update` in docs/explorer to rewrite it"
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v; %s", err, fix)
	}
	var idx index
	dec := json.NewDecoder(bytes.NewReader(got))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&idx); err != nil {
		t.Fatalf("%s: %v; %s", path, err, fix)
	}

	listed := map[string]indexEntry{}
	for _, e := range idx.Sets {
		if _, dup := listed[e.File]; dup {
			t.Errorf("%s lists %s twice", path, e.File)
		}
		listed[e.File] = e
	}
	present := map[string]bool{}
	for _, r := range sets {
		present[r.File] = true
		e, ok := listed[r.File]
		switch {
		case !ok:
			t.Errorf("%s does not list %s", path, r.File)
		case e.Mode != r.Mode || e.Date != r.Date:
			t.Errorf("%s lists %s with mode %q and date %q, the file has %q and %q", path, r.File, e.Mode, e.Date, r.Mode, r.Date)
		}
	}
	for _, e := range idx.Sets {
		if !present[e.File] {
			t.Errorf("%s lists %s, which is not a result set in %s", path, e.File, benchDir)
		}
	}
	if !t.Failed() && !bytes.Equal(got, want) {
		t.Errorf("%s has the right sets but not in the written form (file name order, two-space indent)", path)
	}
	if t.Failed() {
		t.Log(fix)
	}
}

// TestIndexIgnoresOtherFiles checks the file selection of loadSets on a
// directory of its own: index.json itself, other extensions and
// directories are not result sets.
func TestIndexIgnoresOtherFiles(t *testing.T) {
	dir := t.TempDir()
	set := `{"date":"2026-01-02T03:04:05Z","mode":"tcp","rows":[{"name":"x","workers":1}]}`
	for name, body := range map[string]string{
		"2026-01-02-tcp.json": set,
		"index.json":          `{"sets":[]}`,
		"notes.txt":           "not a set",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "charts.json"), 0o755); err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, r := range loadSets(t, dir) {
		files = append(files, r.File)
	}
	if !slices.Equal(files, []string{"2026-01-02-tcp.json"}) {
		t.Errorf("loadSets found %q, want only the result set", files)
	}
	got := string(marshalIndex(indexOf(loadSets(t, dir))))
	want := "{\n  \"sets\": [\n    {\n      \"file\": \"2026-01-02-tcp.json\",\n      \"mode\": \"tcp\",\n      \"date\": \"2026-01-02T03:04:05Z\"\n    }\n  ]\n}\n"
	if got != want {
		t.Errorf("index:\n%s\nwant:\n%s", got, want)
	}
}
