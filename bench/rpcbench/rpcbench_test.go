package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
)

// runCmd runs the command line in-process and returns the exit status and
// both outputs.
func runCmd(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// readReport parses a -json file into the types and, separately, into a map
// so that the field names are checked as written.
func readReport(t *testing.T, path string) (*Report, map[string]any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rep Report
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatalf("%s: %v\n%s", path, err, b)
	}
	var raw map[string]any
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"date", "go", "goos", "goarch", "cpu", "cores", "gomaxprocs", "mode", "duration", "rows"} {
		if _, ok := raw[k]; !ok {
			t.Errorf("JSON has no %q: %s", k, b)
		}
	}
	if _, err := time.Parse(time.RFC3339, rep.Date); err != nil {
		t.Errorf("date %q: %v", rep.Date, err)
	}
	if rep.Go == "" || rep.GOOS == "" || rep.GOARCH == "" || rep.Cores < 1 || rep.GOMAXPROCS < 1 {
		t.Errorf("machine fields missing: %+v", rep)
	}
	rows, _ := raw["rows"].([]any)
	for _, r := range rows {
		m, _ := r.(map[string]any)
		for _, k := range []string{"name", "workers", "runs", "median_rps", "min_rps", "max_rps", "ns_per_call", "allocs_per_call"} {
			if _, ok := m[k]; !ok {
				t.Errorf("row has no %q: %v", k, m)
			}
		}
	}
	for _, r := range rep.Rows {
		checkRow(t, r)
	}
	return &rep, raw
}

// checkRow checks that a row measured something consistent.
func checkRow(t *testing.T, r Row) {
	t.Helper()
	if len(r.Runs) == 0 {
		t.Errorf("%s w=%d: no runs", r.Name, r.Workers)
		return
	}
	for _, x := range r.Runs {
		if !(x > 0) {
			t.Errorf("%s w=%d: run of %v req/s", r.Name, r.Workers, x)
		}
	}
	if !(r.MinRPS <= r.MedianRPS && r.MedianRPS <= r.MaxRPS) || r.MinRPS != slices.Min(r.Runs) || r.MaxRPS != slices.Max(r.Runs) {
		t.Errorf("%s w=%d: min %v median %v max %v of %v", r.Name, r.Workers, r.MinRPS, r.MedianRPS, r.MaxRPS, r.Runs)
	}
	if !(r.NsPerCall > 0) || !(r.AllocsPerCall >= 0) {
		t.Errorf("%s w=%d: %v ns/call, %v allocs/call", r.Name, r.Workers, r.NsPerCall, r.AllocsPerCall)
	}
}

func TestUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		want string // in stderr
	}{
		// No mode runs the headline suite (TestHeadline), whose flags
		// these are.
		{[]string{"-h"}, 0, "modes:"},
		{[]string{"-help"}, 0, "flags of the headline suite"},
		{[]string{"help"}, 0, "modes:"},
		{[]string{"-bogus"}, 2, "modes:"},
		{[]string{"-d", "0s"}, 2, "-d must be positive"},
		{[]string{"-runs", "0"}, 2, "-runs must be at least 1"},
		{[]string{"-d", "1s", "sync"}, 2, `unexpected argument "sync"`},
		{[]string{"bogus"}, 2, `unknown mode "bogus"`},
		{[]string{"legacy", "-h"}, 0, "usage: rpcbench legacy"},
		{[]string{"legacy", "-batches", "0"}, 2, "usage: rpcbench legacy"},
		{[]string{"legacy", "-runs", "0"}, 2, "-runs must be at least 1"},
		{[]string{"legacy", "-workers", "0"}, 2, "-workers must be at least 1"},
		{[]string{"legacy", "-d", "0s"}, 2, "-d must be positive"},
		{[]string{"sync", "-h"}, 0, "usage: rpcbench sync"},
		{[]string{"sync", "-bogus"}, 2, "usage: rpcbench sync"},
		{[]string{"sync", "-d", "0s"}, 2, "-d must be positive"},
		{[]string{"sync", "-workers", "1,x"}, 2, "usage: rpcbench sync"},
		{[]string{"sync", "-workers", "0"}, 2, "usage: rpcbench sync"},
		{[]string{"sync", "-runs", "0"}, 2, "-runs must be at least 1"},
		{[]string{"sync", "-rows", "nope"}, 2, `unknown row "nope"`},
		{[]string{"sync", "extra"}, 2, `unexpected argument "extra"`},
		{[]string{"scale", "-h"}, 0, "usage: rpcbench scale"},
		{[]string{"scale", "-bogus"}, 2, "usage: rpcbench scale"},
		{[]string{"scale", "-min-ratio", "-1"}, 2, "-min-ratio"},
		{[]string{"scale", "-min-ratio", "NaN"}, 2, "-min-ratio"},
	} {
		code, out, errOut := runCmd(t, tc.args...)
		if code != tc.code || !strings.Contains(errOut, tc.want) {
			t.Errorf("rpcbench %q: status %d, stderr:\n%s\nwant status %d and %q", tc.args, code, errOut, tc.code, tc.want)
		}
		if out != "" {
			t.Errorf("rpcbench %q wrote to stdout:\n%s", tc.args, out)
		}
	}
	_, _, errOut := runCmd(t, "-h")
	for _, f := range []string{"-d", "-runs", "-json"} {
		if !strings.Contains(errOut, "  "+f+" ") {
			t.Errorf("usage does not list the headline flag %s:\n%s", f, errOut)
		}
	}
	for _, m := range modes {
		if !strings.Contains(errOut, "  "+m.name+" ") {
			t.Errorf("usage does not list mode %s:\n%s", m.name, errOut)
		}
	}
}

// TestRowsAnswer checks that every row's server answers each of its
// requests correctly, and that the check catches wrong answers.
func TestRowsAnswer(t *testing.T) {
	for _, def := range append(slices.Clone(syncRows), calcMix) {
		tg, err := def.target(syncEntry)
		if err != nil {
			t.Errorf("row %s: %v", def.name, err)
			continue
		}
		p := tg.NewWorker()
		for i, req := range tg.Reqs {
			got := p(nil, req)
			if err := checkResponse(got, tg.Want[i]); err != nil {
				t.Errorf("row %s: %v", def.name, err)
			}
		}
	}
	for _, tc := range []struct{ got, want string }{
		{``, `{"jsonrpc":"2.0","result":1,"id":1}`},
		{`{"jsonrpc":"2.0","result":2,"id":1}`, `{"jsonrpc":"2.0","result":1,"id":1}`},
		{`{"jsonrpc":"2.0","result":1,"id":2}`, `{"jsonrpc":"2.0","result":1,"id":1}`},
		{`[{"id":1},{"id":1}]`, `[{"id":1},{"id":2}]`},
		{`[{"id":1}]`, `[{"id":1},{"id":2}]`},
		{`{"jsonrpc":"2.0","result":1,"id":1`, `{"jsonrpc":"2.0","result":1,"id":1}`},
	} {
		if checkResponse([]byte(tc.got), []byte(tc.want)) == nil {
			t.Errorf("checkResponse(%s, %s) accepted", tc.got, tc.want)
		}
	}
	if err := checkResponse([]byte(`[{"id":2},{"id":1}]`), []byte(`[{"id":1},{"id":2}]`)); err != nil {
		t.Errorf("batch in another order: %v", err)
	}
}

// TestRefusesBrokenSetup checks that a row with a wrong answer or a setup
// error is refused before anything is measured.
func TestRefusesBrokenSetup(t *testing.T) {
	good := syncRows[1] // func
	wrong := good
	wrong.name = "wrong-result"
	wrong.want = []string{`{"jsonrpc":"2.0","result":4,"id":1}`}
	missing := good
	missing.name = "no-method"
	missing.server = func() (*jsonrpc.Server, error) { return jsonrpc.NewServer(), nil }
	failing := good
	failing.name = "bad-setup"
	failing.server = addServer(func(chan int) {}) // cannot be registered
	for _, bad := range []rowDef{wrong, missing, failing} {
		for _, args := range [][]string{
			{"sync", "-d", "20ms", "-workers", "1"},
			{"scale", "-d", "20ms", "-workers", "2", "-runs", "1", "-report-only"},
		} {
			var out, errOut bytes.Buffer
			e := &env{stdout: &out, stderr: &errOut, syncRows: []rowDef{good, bad}, scaleRow: bad}
			if code := e.run(args); code != 1 {
				t.Errorf("%s with row %s: status %d, want 1", args[0], bad.name, code)
			}
			if s := errOut.String(); !strings.Contains(s, "refusing to measure: row "+bad.name) || strings.Contains(s, "running") {
				t.Errorf("%s with row %s: stderr:\n%s", args[0], bad.name, s)
			}
			if out.Len() != 0 {
				t.Errorf("%s with row %s printed a table:\n%s", args[0], bad.name, out.String())
			}
		}
	}
}

// TestMeasureChecksUnderLoad checks that a server that stops answering
// correctly during the run is caught by the check of the last responses.
func TestMeasureChecksUnderLoad(t *testing.T) {
	tg, err := calcMix.target(syncEntry)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := demoServer()
	if err != nil {
		t.Fatal(err)
	}
	var calls atomic.Int64
	tg.NewWorker = func() ProcessFunc {
		p := syncEntry(srv)()
		return func(dst, req []byte) []byte {
			if calls.Add(1) > int64(len(tg.Reqs)) { // right only while validated
				return append(dst, `{"jsonrpc":"2.0","result":0,"id":1}`...)
			}
			return p(dst, req)
		}
	}
	if err := tg.Validate(); err != nil {
		t.Fatal(err)
	}
	if _, err := Measure(tg, 1, 5*time.Millisecond); err == nil || !strings.Contains(err.Error(), "last request") {
		t.Errorf("Measure of a server gone wrong: %v", err)
	}
}

// TestMeasureBounded checks that a run ends on time even when each call is
// slow, and that it counts calls per document.
func TestMeasureBounded(t *testing.T) {
	want := []byte(`{"jsonrpc":"2.0","result":1,"id":1}`)
	tg := &Target{
		Name:       "slow",
		CallsPerOp: 3,
		Reqs:       [][]byte{[]byte(`{}`)},
		Want:       [][]byte{want},
		NewWorker: func() ProcessFunc {
			return func(dst, _ []byte) []byte {
				time.Sleep(2 * time.Millisecond)
				return append(dst, want...)
			}
		},
	}
	start := time.Now()
	m, err := Measure(tg, 2, 20*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el > 500*time.Millisecond {
		t.Errorf("a 20ms measurement of 2ms calls took %v", el)
	}
	if m.Ops < 2 || m.Calls != 3*m.Ops || m.Workers != 2 {
		t.Errorf("measurement %+v", m)
	}
}

func TestSync(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sync.json")
	code, out, errOut := runCmd(t, "sync", "-d", "20ms", "-workers", "1,2", "-runs", "1", "-json", path)
	if code != 0 {
		t.Fatalf("status %d, stderr:\n%s", code, errOut)
	}
	rep, _ := readReport(t, path)
	if rep.Mode != "sync" || rep.Duration != "20ms" {
		t.Errorf("mode %q duration %q", rep.Mode, rep.Duration)
	}
	var got []string
	for _, r := range rep.Rows {
		got = append(got, r.Name+"/"+string(rune('0'+r.Workers)))
		if len(r.Runs) != 1 {
			t.Errorf("%s w=%d: %d runs, want 1", r.Name, r.Workers, len(r.Runs))
		}
	}
	var want []string
	for _, name := range []string{"calc-mix", "func", "context", "func-error", "service", "batch5"} {
		want = append(want, name+"/1", name+"/2")
		if !strings.Contains(errOut, "running "+name+" w=2 run 1/1... ") {
			t.Errorf("no progress line for %s w=2:\n%s", name, errOut)
		}
		if !strings.Contains(out, name) {
			t.Errorf("table has no row %s:\n%s", name, out)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("rows %v, want %v", got, want)
	}
	if !strings.Contains(out, "allocs/call") {
		t.Errorf("table has no header:\n%s", out)
	}
}

func TestSyncRuns(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sync.json")
	code, _, errOut := runCmd(t, "sync", "-d", "10ms", "-workers", "1,2", "-runs", "3", "-rows", "batch5", "-json", path)
	if code != 0 {
		t.Fatalf("status %d, stderr:\n%s", code, errOut)
	}
	rep, _ := readReport(t, path)
	if len(rep.Rows) != 2 {
		t.Fatalf("rows %+v", rep.Rows)
	}
	for i, r := range rep.Rows {
		if r.Name != "batch5" || r.Workers != i+1 || len(r.Runs) != 3 {
			t.Errorf("row %+v", r)
		}
	}
	// Runs are interleaved: run k measures every worker count.
	last := -1
	for k := 1; k <= 3; k++ {
		for w := 1; w <= 2; w++ {
			line := fmt.Sprintf("running batch5 w=%d run %d/3... ", w, k)
			i := strings.Index(errOut, line)
			if i <= last {
				t.Errorf("progress line %q missing or out of order:\n%s", line, errOut)
			}
			last = i
		}
	}
}

func TestScale(t *testing.T) {
	for _, tc := range []struct {
		flags []string
		code  int
	}{
		{[]string{"-min-ratio", "1000"}, 1},
		{[]string{"-min-ratio", "0"}, 0},
		{[]string{"-min-ratio", "1000", "-report-only"}, 0},
		{[]string{"-min-ratio", "0", "-report-only"}, 0},
	} {
		path := filepath.Join(t.TempDir(), "scale.json")
		args := append([]string{"scale", "-d", "20ms", "-workers", "2", "-runs", "1", "-json", path}, tc.flags...)
		code, out, errOut := runCmd(t, args...)
		if code != tc.code {
			t.Errorf("rpcbench %q: status %d, want %d; stderr:\n%s", args, code, tc.code, errOut)
		}
		if !strings.Contains(out, "ratio 2/1 of medians") {
			t.Errorf("rpcbench %q: no verdict:\n%s", args, out)
		}
		rep, raw := readReport(t, path)
		if rep.Mode != "scale" || len(rep.Rows) != 2 || rep.Rows[0].Workers != 1 || rep.Rows[1].Workers != 2 {
			t.Fatalf("rows %+v", rep.Rows)
		}
		if _, ok := raw["scale"]; !ok || rep.Scale == nil {
			t.Fatalf("no scale verdict in JSON")
		}
		v := rep.Scale
		if want := rep.Rows[1].MedianRPS / rep.Rows[0].MedianRPS; v.Ratio != want || len(v.PairRatios) != 1 {
			t.Errorf("verdict %+v, ratio want %v", v, want)
		}
		if v.Pass != (v.Ratio >= v.MinRatio) || v.Pass != (tc.flags[1] == "0") {
			t.Errorf("verdict %+v", v)
		}
	}
}

func TestScaleWorkers(t *testing.T) {
	for _, tc := range []struct {
		n    string
		want []int
	}{
		{"1", []int{1, 2}},
		{"3", []int{1, 2, 3}},
	} {
		path := filepath.Join(t.TempDir(), "scale.json")
		code, _, errOut := runCmd(t, "scale", "-d", "10ms", "-workers", tc.n, "-runs", "2", "-json", path)
		if code != 0 {
			t.Fatalf("-workers %s: status %d, stderr:\n%s", tc.n, code, errOut)
		}
		rep, _ := readReport(t, path)
		var got []int
		for _, r := range rep.Rows {
			got = append(got, r.Workers)
			if len(r.Runs) != 2 {
				t.Errorf("-workers %s: w=%d has %d runs, want 2", tc.n, r.Workers, len(r.Runs))
			}
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("-workers %s: worker counts %v, want %v", tc.n, got, tc.want)
		}
		// Paired: each run measures every count before the next run.
		if i, j := strings.Index(errOut, "w=2 run 1/2"), strings.Index(errOut, "w=1 run 2/2"); i < 0 || j < i {
			t.Errorf("-workers %s: runs not paired:\n%s", tc.n, errOut)
		}
	}
}

func TestJSONWriteError(t *testing.T) {
	path := filepath.Join(t.TempDir(), "missing-dir", "out.json")
	code, out, errOut := runCmd(t, "sync", "-d", "5ms", "-workers", "1", "-rows", "func", "-json", path)
	if code != 1 || !strings.Contains(errOut, "out.json") || !strings.Contains(out, "func") {
		t.Errorf("status %d, stdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
}

func TestAsync(t *testing.T) {
	for _, tc := range []struct {
		shape string
		rows  []string
		ratio bool
	}{
		{"inline", []string{"calc-mix/Process", "calc-mix", "func", "context", "func-error", "service", "batch5"}, true},
		{"suspend", []string{"suspend-add", "suspend-chan", "suspend-batch5"}, false},
	} {
		t.Run(tc.shape, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "async.json")
			code, out, errOut := runCmd(t, "async", "-shape", tc.shape, "-d", "20ms", "-workers", "1,2", "-json", path)
			if code != 0 {
				t.Fatalf("status %d, stderr:\n%s", code, errOut)
			}
			rep, _ := readReport(t, path)
			if rep.Mode != "async-"+tc.shape {
				t.Errorf("mode %q", rep.Mode)
			}
			var got []string
			for _, r := range rep.Rows {
				if r.Workers == 1 {
					got = append(got, r.Name)
				}
			}
			if !slices.Equal(got, tc.rows) {
				t.Errorf("rows %v, want %v", got, tc.rows)
			}
			if has := strings.Contains(out, "calc-mix w=2: ProcessAsync/Process "); has != tc.ratio {
				t.Errorf("ratio line present: %v, want %v:\n%s", has, tc.ratio, out)
			}
		})
	}
	if code, _, _ := runCmd(t, "async", "-shape", "sideways"); code != 2 {
		t.Errorf("bad -shape: status %d, want 2", code)
	}
}

// The async entries answer every row of their shape correctly.
func TestAsyncRowsAnswer(t *testing.T) {
	for _, c := range []struct {
		defs []rowDef
		ent  entry
	}{{syncRows, asyncInlineEntry}, {suspendRows, asyncWaitEntry}} {
		for _, def := range c.defs {
			tg, err := def.target(c.ent)
			if err != nil {
				t.Errorf("row %s: %v", def.name, err)
				continue
			}
			p := tg.NewWorker()
			for i, req := range tg.Reqs {
				if err := checkResponse(p(make([]byte, 0, 512), req), tg.Want[i]); err != nil {
					t.Errorf("row %s: %v", def.name, err)
				}
			}
		}
	}
}

// Every measuring mode runs three times by default, and its JSON records the
// runs.
func TestDefaultRuns(t *testing.T) {
	for _, args := range [][]string{
		{"sync", "-d", "2ms", "-workers", "1", "-rows", "func"},
		{"async", "-d", "2ms", "-workers", "1"},
		{"tcp", "-d", "2ms"},
		{"http", "-d", "2ms"},
		{"legacy", "-d", "2ms", "-batches", "5"},
	} {
		path := filepath.Join(t.TempDir(), "out.json")
		code, _, errOut := runCmd(t, append(args, "-json", path)...)
		if code != 0 {
			t.Fatalf("%q: status %d, stderr:\n%s", args, code, errOut)
		}
		rep, _ := readReport(t, path)
		for _, r := range rep.Rows {
			if len(r.Runs) != defaultRuns {
				t.Errorf("%s row %s: %d runs, want %d", args[0], r.Name, len(r.Runs), defaultRuns)
			}
		}
	}
}
