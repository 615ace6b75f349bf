package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// A mdTable is a Markdown table of the output: its header and its rows.
type mdTable struct {
	cols []string
	rows [][]string
}

// markdownTables returns the Markdown tables of out, in order. It fails the
// test on a table without its alignment row or a row whose cells do not
// match the header.
func markdownTables(t *testing.T, out string) []mdTable {
	t.Helper()
	cells := func(line string) []string {
		fs := strings.Split(strings.TrimSuffix(strings.TrimPrefix(line, "| "), " |"), " | ")
		for i := range fs {
			fs[i] = strings.TrimSpace(fs[i])
		}
		return fs
	}
	var tables []mdTable
	lines := strings.Split(out, "\n")
	for i := 0; i < len(lines); i++ {
		if !strings.HasPrefix(lines[i], "| ") {
			continue
		}
		tb := mdTable{cols: cells(lines[i])}
		if i+1 >= len(lines) || !regexp.MustCompile(`^\| (---:?)( \| ---:?)* \|$`).MatchString(lines[i+1]) {
			t.Fatalf("table %q has no alignment row:\n%s", tb.cols, out)
		}
		if n := len(cells(lines[i+1])); n != len(tb.cols) {
			t.Fatalf("table %q: %d alignment cells:\n%s", tb.cols, n, out)
		}
		for i += 2; i < len(lines) && strings.HasPrefix(lines[i], "| "); i++ {
			r := cells(lines[i])
			if len(r) != len(tb.cols) {
				t.Fatalf("table %q: row %q has %d cells:\n%s", tb.cols, r, len(r), out)
			}
			tb.rows = append(tb.rows, r)
		}
		tables = append(tables, tb)
	}
	return tables
}

// rpsCell is an RPC/s cell as JSON-RPC.NET writes them: "4.60 M to 5.02 M",
// "123 k", "915".
var rpsCell = regexp.MustCompile(`^[0-9]+(\.[0-9]+)?( [kM])?( to [0-9]+(\.[0-9]+)?( [kM])?)?$`)

// TestDotnet runs the dotnet mode for 30 ms a run and checks the shape
// of its two tables (JSON-RPC.NET's columns, one row per worker count and
// per transport) and of its -json report, at the defaults and with every
// flag set.
func TestDotnet(t *testing.T) {
	p := runtime.GOMAXPROCS(0)
	for _, tc := range []struct {
		name    string
		flags   []string
		workers []int // rows of the Sync table
		conns   int
		batch   int
		pipe    int
	}{
		{"defaults", nil, doublingWorkers(), p, 100, 256},
		{"flags", []string{"-workers", "2,1", "-conns", "3", "-batch", "7", "-inflight", "32", "-window", "16"}, []int{2, 1}, 3, 7, 32},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "dotnet.json")
			args := append([]string{"dotnet", "-d", "30ms", "-runs", "1", "-json", path}, tc.flags...)
			code, out, errOut := runCmd(t, args...)
			if code != 0 {
				t.Fatalf("rpcbench %q: status %d, stderr:\n%s", args, code, errOut)
			}
			tables := markdownTables(t, out)
			if len(tables) != 2 {
				t.Fatalf("%d tables, want 2:\n%s", len(tables), out)
			}

			// Sync: JSON-RPC.NET's columns, a row per worker count.
			sync := tables[0]
			if want := []string{"Threads", "RPC/s", "ns per request per thread", "Allocations per request"}; !slices.Equal(sync.cols, want) {
				t.Errorf("Sync columns %q, want %q", sync.cols, want)
			}
			if len(sync.rows) != len(tc.workers) {
				t.Fatalf("Sync: %d rows, want %d:\n%s", len(sync.rows), len(tc.workers), out)
			}
			for i, r := range sync.rows {
				if r[0] != strconv.Itoa(tc.workers[i]) {
					t.Errorf("Sync row %d: Threads %q, want %d", i+1, r[0], tc.workers[i])
				}
				if !rpsCell.MatchString(r[1]) {
					t.Errorf("Sync row %d: RPC/s %q", i+1, r[1])
				}
				if ns, err := strconv.Atoi(r[2]); err != nil || ns <= 0 {
					t.Errorf("Sync row %d: ns per request per thread %q", i+1, r[2])
				}
				if !strings.HasSuffix(r[3], " over the run") && !strings.Contains(r[3], " B") {
					t.Errorf("Sync row %d: Allocations per request %q", i+1, r[3])
				}
			}
			if first := sync.rows[0][3]; !strings.Contains(first, "allocation") || !strings.Contains(first, " B") {
				t.Errorf("Sync: the first row does not give the cost of each request: %q", first)
			}

			// Transports: JSON-RPC.NET's columns, its four rows.
			tr := tables[1]
			if want := []string{"Transport", "RPC/s", "Note"}; !slices.Equal(tr.cols, want) {
				t.Errorf("Transport columns %q, want %q", tr.cols, want)
			}
			wantRows := []string{
				fmt.Sprintf("in-process, %d workers", tc.conns),
				"HTTP, 1 request per POST",
				fmt.Sprintf("HTTP, batch of %d per POST", tc.batch),
				fmt.Sprintf("TCP, %d pipelined", tc.pipe),
			}
			var got []string
			for _, r := range tr.rows {
				got = append(got, r[0])
				if !rpsCell.MatchString(r[1]) {
					t.Errorf("Transport %q: RPC/s %q", r[0], r[1])
				}
				if r[2] == "" {
					t.Errorf("Transport %q: no note", r[0])
				}
			}
			if !slices.Equal(got, wantRows) {
				t.Errorf("Transport rows %q, want %q", got, wantRows)
			}
			if !strings.Contains(tr.rows[1][2], "µs per round trip per connection") {
				t.Errorf("HTTP note %q", tr.rows[1][2])
			}

			// The report: a sync row per worker count measured (the
			// table's and -conns), then the three network rows.
			rep, _ := readReport(t, path)
			if rep.Mode != "dotnet" || rep.Duration != "30ms" {
				t.Errorf("mode %q duration %q", rep.Mode, rep.Duration)
			}
			counts := slices.Clone(tc.workers)
			if !slices.Contains(counts, tc.conns) {
				counts = append(counts, tc.conns)
			}
			slices.Sort(counts)
			var gotRows, wantReport []string
			for _, w := range counts {
				wantReport = append(wantReport, fmt.Sprintf("sync/%d", w))
			}
			for _, n := range []string{"http", "http-batch", "tcp"} {
				wantReport = append(wantReport, fmt.Sprintf("%s/%d", n, tc.conns))
			}
			for _, r := range rep.Rows {
				gotRows = append(gotRows, fmt.Sprintf("%s/%d", r.Name, r.Workers))
				if r.Name != "sync" && (r.What == "" || r.Note == "" || r.LatencySamples == 0) {
					t.Errorf("row %s: what %q, note %q, %d latency samples", r.Name, r.What, r.Note, r.LatencySamples)
				}
			}
			if !slices.Equal(gotRows, wantReport) {
				t.Errorf("report rows %q, want %q", gotRows, wantReport)
			}
		})
	}
}

func TestDotnetUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"dotnet", "-d", "0s"}, "-d must be positive"},
		{[]string{"dotnet", "-runs", "0"}, "-runs must be at least 1"},
		{[]string{"dotnet", "-workers", "0"}, "usage: rpcbench dotnet"},
		{[]string{"dotnet", "-conns", "0"}, "-conns must be at least 1"},
		{[]string{"dotnet", "-batch", "0"}, "-batch must be at least 1"},
		{[]string{"dotnet", "-window", "0"}, "-window must be at least 1"},
		{[]string{"dotnet", "-inflight", "100"}, "-inflight must be"},
		{[]string{"dotnet", "extra"}, `unexpected argument "extra"`},
	} {
		code, out, errOut := runCmd(t, tc.args...)
		if code != 2 || !strings.Contains(errOut, tc.want) || out != "" {
			t.Errorf("rpcbench %q: status %d, stderr:\n%s\nwant status 2 and %q", tc.args, code, errOut, tc.want)
		}
	}
	if code, _, errOut := runCmd(t, "dotnet", "-h"); code != 0 || !strings.Contains(errOut, "usage: rpcbench dotnet") {
		t.Errorf("dotnet -h: status %d, stderr:\n%s", code, errOut)
	}
}

// TestDotnetRefusesBrokenSetup checks that a server that answers wrong is
// refused before anything is measured.
func TestDotnetRefusesBrokenSetup(t *testing.T) {
	var out, errOut strings.Builder
	e := &env{stdout: &out, stderr: &errOut, scaleRow: calcMix, tcpRows: tcpRows, httpServer: wrongAdd}
	if code := e.run([]string{"dotnet", "-d", "10ms", "-runs", "1"}); code != 1 || !strings.Contains(errOut.String(), "refusing to measure") {
		t.Errorf("status %d, stderr:\n%s", code, errOut.String())
	}
	if out.Len() != 0 {
		t.Errorf("stdout:\n%s", out.String())
	}
}

func TestDotnetRate(t *testing.T) {
	for _, tc := range []struct {
		r    float64
		want string
	}{
		{915, "915"},
		{4_600, "4.60 k"},
		{12_800, "12.8 k"},
		{123_400, "123 k"},
		{8_960_000, "8.96 M"},
		{31_700_000, "31.7 M"},
		{123_000_000, "123 M"},
	} {
		if got := dotnetRate(tc.r); got != tc.want {
			t.Errorf("dotnetRate(%v) = %q, want %q", tc.r, got, tc.want)
		}
	}
	if got := dotnetRange(Row{MinRPS: 4.6e6, MaxRPS: 5.02e6}); got != "4.60 M to 5.02 M" {
		t.Errorf("dotnetRange: %q", got)
	}
	if got := dotnetRange(Row{MinRPS: 4.601e6, MaxRPS: 4.603e6}); got != "4.60 M" {
		t.Errorf("dotnetRange of equal figures: %q", got)
	}
}

// TestMixBatch checks the batch row's document: n requests of the mix in
// turn, numbered 1 to n, and their responses.
func TestMixBatch(t *testing.T) {
	doc, want, err := mixBatch(12)
	if err != nil {
		t.Fatal(err)
	}
	var reqs, resps []struct {
		Method string
		ID     int
	}
	if err := json.Unmarshal([]byte(doc), &reqs); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(want), &resps); err != nil {
		t.Fatal(err)
	}
	if len(reqs) != 12 || len(resps) != 12 {
		t.Fatalf("%d requests, %d responses", len(reqs), len(resps))
	}
	for i := range reqs {
		if reqs[i].ID != i+1 || resps[i].ID != i+1 {
			t.Errorf("element %d: ids %d and %d", i, reqs[i].ID, resps[i].ID)
		}
	}
	if reqs[0].Method != "add" || reqs[5].Method != "add" || reqs[4].Method != "StringMe" {
		t.Errorf("methods %+v", reqs)
	}
	if _, err := renumber(`{"id":"x"}`, 1, 2); err == nil {
		t.Error("renumber accepted a document without the id")
	}
}
