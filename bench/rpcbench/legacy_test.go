package main

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/bench/internal/loadgen"
	"github.com/jsonrpc-go/jsonrpc/internal/demo"
)

func TestLegacy(t *testing.T) {
	path := filepath.Join(t.TempDir(), "legacy.json")
	code, out, errOut := runCmd(t, "legacy", "-d", "20ms", "-json", path)
	if code != 0 {
		t.Fatalf("status %d, stderr:\n%s", code, errOut)
	}
	rep, raw := readReport(t, path)
	if rep.Mode != "legacy" || rep.Duration != "20ms" {
		t.Errorf("mode %q duration %q", rep.Mode, rep.Duration)
	}
	wantRows := []string{"legacy", "legacy-batch5", "legacy-batch20", "legacy-batch100"}
	var got []string
	for i, r := range rep.Rows {
		got = append(got, r.Name)
		if r.Batch != defaultBatches[i] || r.Workers != 1 || len(r.Runs) != 3 {
			t.Errorf("row %+v: want batch %d, 1 worker, 3 runs", r, defaultBatches[i])
		}
		if !strings.Contains(out, r.Name) {
			t.Errorf("table has no row %s:\n%s", r.Name, out)
		}
	}
	if !slices.Equal(got, wantRows) {
		t.Fatalf("rows %v, want %v", got, wantRows)
	}
	// ProcessString allocates the response: one allocation per document
	// at least.
	if r := rep.Rows[0]; r.AllocsPerCall < 0.99 {
		t.Errorf("single requests: %v allocs/call, want at least 1", r.AllocsPerCall)
	}

	if _, ok := raw["best"]; !ok || rep.Best == nil {
		t.Fatalf("no best batch size in the JSON")
	}
	b := rep.Best
	var best Row
	for _, r := range rep.Rows {
		if r.MedianRPS > best.MedianRPS {
			best = r
		}
	}
	if b.Row != best.Name || b.Batch != best.Batch || b.MedianRPS != best.MedianRPS || b.Workers != 1 || len(b.Sizes) != len(rep.Rows) {
		t.Errorf("best %+v, want row %s", b, best.Name)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, fmt.Sprintf("best batch size: %d (", b.Batch)) ||
		!strings.HasSuffix(last, ": "+loadgen.FormatRate(b.MedianRPS)+" calls/s") {
		t.Errorf("last line %q is not the best size, %d at %s calls/s:\n%s", last, b.Batch, loadgen.FormatRate(b.MedianRPS), out)
	}
	for _, name := range wantRows {
		if !strings.Contains(errOut, "running "+name+" w=1 run 3/3... ") {
			t.Errorf("no progress line for %s:\n%s", name, errOut)
		}
	}
}

// Batch documents of any size answer correctly through ProcessString.
func TestLegacyRows(t *testing.T) {
	code, out, errOut := runCmd(t, "legacy", "-d", "5ms", "-runs", "1", "-batches", "3,1,7", "-workers", "2")
	if code != 0 {
		t.Fatalf("status %d, stderr:\n%s", code, errOut)
	}
	for _, name := range []string{"legacy-batch3", "legacy", "legacy-batch7"} {
		if !strings.Contains(errOut, "running "+name+" w=2 run 1/1... ") {
			t.Errorf("no progress line for %s:\n%s", name, errOut)
		}
	}
	if !strings.Contains(out, "best batch size: ") {
		t.Errorf("no best-size line:\n%s", out)
	}
	r := legacyRow(demoServer, 7)
	if r.callsPerOp != 7 || strings.Count(r.reqs[0], `"method"`) != 7 || !strings.Contains(r.reqs[0], `"id":7}]`) {
		t.Errorf("batch of 7: %+v", r)
	}
	if withID(demo.Requests[4], 12) != strings.Replace(demo.Requests[4], `"id":5}`, `"id":12}`, 1) {
		t.Errorf("withID: %s", withID(demo.Requests[4], 12))
	}
}

// calcServer serves the calculator mix with add answered wrong.
func calcServer() (*jsonrpc.Server, error) {
	var c demo.Calculator
	s := jsonrpc.NewServer()
	err := errors.Join(
		s.Register("add", func(a, b float64) float64 { return a - b }),
		s.Register("addInt", c.AddInt),
		s.Register("NullableFloatToNullableFloat", c.NullableFloatToNullableFloat),
		s.Register("Test2", c.Test2),
		s.Register("StringMe", c.StringMe),
	)
	return s, err
}

// TestLegacyRefusesBrokenSetup checks that the legacy mode and the headline
// suite refuse a legacy server that answers wrong, lacks methods or fails to
// set up, before anything is measured.
func TestLegacyRefusesBrokenSetup(t *testing.T) {
	for _, tc := range []struct {
		name   string
		server func() (*jsonrpc.Server, error)
	}{
		{"wrong-add", calcServer},
		{"no-methods", func() (*jsonrpc.Server, error) { return jsonrpc.NewServer(), nil }},
		{"setup-error", func() (*jsonrpc.Server, error) { return nil, errors.New("no server") }},
	} {
		for _, args := range [][]string{
			{"legacy", "-d", "20ms"},
			{"legacy", "-d", "20ms", "-batches", "20"},
			{"-d", "20ms", "-runs", "1"},
		} {
			var out, errOut bytes.Buffer
			e := &env{stdout: &out, stderr: &errOut, syncRows: syncRows, scaleRow: calcMix, tcpRows: tcpRows,
				httpServer: demoServer, legacyServer: tc.server}
			if code := e.run(args); code != 1 {
				t.Errorf("%s %q: status %d, want 1", tc.name, args, code)
			}
			row := "legacy"
			if slices.Contains(args, "-batches") {
				row = "legacy-batch20"
			}
			if s := errOut.String(); !strings.Contains(s, "refusing to measure: row "+row+":") || strings.Contains(s, "running") {
				t.Errorf("%s %q: stderr:\n%s", tc.name, args, s)
			}
			if out.Len() != 0 {
				t.Errorf("%s %q printed a table:\n%s", tc.name, args, out.String())
			}
		}
	}
}

// TestHeadline runs the headline suite with a tiny duration: every row is
// measured in interleaved runs and the one table has them all.
func TestHeadline(t *testing.T) {
	path := filepath.Join(t.TempDir(), "headline.json")
	start := time.Now()
	code, out, errOut := runCmd(t, "-d", "5ms", "-runs", "2", "-json", path)
	if code != 0 {
		t.Fatalf("status %d, stderr:\n%s", code, errOut)
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("the headline suite at -d 5ms took %v", el)
	}
	rep, _ := readReport(t, path)
	if rep.Mode != "headline" || rep.Duration != "5ms" {
		t.Errorf("mode %q duration %q", rep.Mode, rep.Duration)
	}
	if rep.Best == nil || len(rep.Best.Sizes) != len(defaultBatches) {
		t.Fatalf("best %+v", rep.Best)
	}
	want := []string{"sync", "async-inline", "async-suspend", "tcp-inline", "http", "fasthttp", rep.Best.Row}
	var got []string
	for _, r := range rep.Rows {
		got = append(got, r.Name)
		if len(r.Runs) != 2 || r.What == "" || !(r.RatioToSync > 0) {
			t.Errorf("row %+v", r)
		}
		if want := r.MedianRPS / rep.Rows[0].MedianRPS; r.RatioToSync != want {
			t.Errorf("row %s: ratio %v, want %v", r.Name, r.RatioToSync, want)
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("rows %v, want %v", got, want)
	}
	if !strings.HasPrefix(rep.Best.Row, "legacy") {
		t.Errorf("best legacy row %q", rep.Best.Row)
	}
	for _, r := range rep.Rows[4:6] {
		if r.Workers != headHTTPConns || r.P50us <= 0 {
			t.Errorf("%s row %+v", r.Name, r)
		}
	}

	// One table: a header and a line per row, each with its ratio.
	if strings.Count(out, "vs sync") != 1 {
		t.Errorf("want one table:\n%s", out)
	}
	for _, r := range rep.Rows {
		re := regexp.MustCompile(fmt.Sprintf(`(?m)^ *%s +%s +\S+ +%.1f +%.2f +%.2f +%s$`,
			regexp.QuoteMeta(r.Name), regexp.QuoteMeta(loadgen.FormatRate(r.MedianRPS)), r.NsPerCall, r.AllocsPerCall, r.RatioToSync, regexp.QuoteMeta(r.What)))
		if !re.MatchString(out) {
			t.Errorf("table has no line for %s (%s):\n%s", r.Name, re, out)
		}
	}

	// Progress: one line per measurement, runs interleaved.
	var lines []string
	for k := 1; k <= 2; k++ {
		for _, n := range []string{"sync w=1", "async-inline w=1", "async-suspend w=1", "tcp-inline conns=1",
			fmt.Sprintf("http conns=%d", headHTTPConns), fmt.Sprintf("fasthttp conns=%d", headHTTPConns), "legacy w=1", "legacy-batch5 w=1", "legacy-batch20 w=1", "legacy-batch100 w=1"} {
			lines = append(lines, fmt.Sprintf("running %s run %d/2... ", n, k))
		}
	}
	last := -1
	for _, l := range lines {
		i := strings.Index(errOut, l)
		if i <= last {
			t.Errorf("progress line %q missing or out of order:\n%s", l, errOut)
		}
		last = i
	}
	if n := strings.Count(errOut, "running "); n != len(lines) {
		t.Errorf("%d progress lines, want %d:\n%s", n, len(lines), errOut)
	}
}

// -workers is -conns in the network modes, whose rows' workers are
// connections.
func TestNetWorkersFlag(t *testing.T) {
	path := filepath.Join(t.TempDir(), "http.json")
	code, _, errOut := runCmd(t, "http", "-d", "5ms", "-runs", "1", "-workers", "2", "-json", path)
	if code != 0 {
		t.Fatalf("status %d, stderr:\n%s", code, errOut)
	}
	if rep, _ := readReport(t, path); len(rep.Rows) != 1 || rep.Rows[0].Workers != 2 {
		t.Errorf("rows %+v", rep.Rows)
	}
}
