package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fixtureRow makes a row whose runs are median*0.98, median, median*1.01.
func fixtureRow(name string, workers int, median float64) row {
	return row{Name: name, Workers: workers,
		Runs:      []float64{median * 0.98, median, median * 1.01},
		MedianRPS: median, MinRPS: median * 0.98, MaxRPS: median * 1.01,
		NsPerCall: float64(workers) * 1e9 / median}
}

func fixtureReport(mode, date string, rows ...row) *report {
	return &report{Date: date, Go: "go1.26.8", CPU: "Test CPU <fixture>", Cores: 2, GOMAXPROCS: 2,
		Mode: mode, Duration: "10ms", Rows: rows}
}

// fixtureSets is a small result set of every kind, under the file names that
// perfFigures quotes.
func fixtureSets() map[string]*report {
	return map[string]*report{
		"2026-11-29-async-inline.json": fixtureReport("async-inline", "2026-11-29T21:07:20Z",
			fixtureRow("calc-mix/Process", 1, 1_234_567), fixtureRow("calc-mix/Process", 2, 2_400_000),
			fixtureRow("calc-mix", 1, 1_200_000), fixtureRow("calc-mix", 2, 2_345_678),
			fixtureRow("func", 1, 987_654), fixtureRow("func", 2, 1_876_543),
			fixtureRow("service", 1, 1_111_111), fixtureRow("service", 2, 2_222_222)),
		"2026-11-29-tcp.json": fixtureReport("tcp", "2026-11-29T21:07:06Z",
			fixtureRow("process", 1, 3_456_789), fixtureRow("tcp-inline", 1, 1_500_000),
			fixtureRow("tcp-concurrent", 1, 1_450_000), fixtureRow("tcp-suspend", 1, 321_000)),
		"2026-11-29-http-1.json":  fixtureReport("http", "2026-11-29T21:07:12Z", fixtureRow("http", 1, 12_345)),
		"2026-11-29-http-16.json": fixtureReport("http", "2026-11-29T21:07:19Z", fixtureRow("http", 16, 45_678)),
		"2026-11-29-peers.json": fixtureReport("peers", "2026-11-29T21:40:38Z",
			peerRow("tcp", 1, "jsonrpc-go", "JSON-RPC 2.0", 2_000_000),
			peerRow("tcp", 1, "json-peer-a", "JSON-RPC 2.0", 50_000),
			peerRow("tcp", 1, "json-peer-b", "JSON-RPC 2.0", 80_000),
			peerRow("tcp", 1, "one-oh", "JSON-RPC 1.0", 150_000), // faster, but not a 2.0 peer
			peerRow("tcp", 1, "grpc-x", "gRPC (protobuf)", 100_000),
			peerRow("tcp", 1, "floor (tokenizer)", "none (floor)", 4_000_000),
			peerRow("http", 1, "jsonrpc-go", "JSON-RPC 2.0", 30_000),
			peerRow("http", 1, "json-peer-a", "JSON-RPC 2.0", 33_000),
			peerRow("http", 1, "floor (tokenizer)", "none (floor)", 31_000),
			peerRow("http", 16, "jsonrpc-go", "JSON-RPC 2.0", 60_000),
			peerRow("http", 16, "json-peer-b", "JSON-RPC 2.0", 40_000),
			peerRow("http", 16, "floor (tokenizer)", "none (floor)", 66_000),
			peerRow("http", 16, "jsonrpc-go (fasthttp)", "JSON-RPC 2.0", 90_000), // not a peer
			peerRow("http", 16, "floor (fasthttp)", "none (floor)", 100_000),     // not the quoted floor
			peerRow("inproc", 1, "jsonrpc-go", "JSON-RPC 2.0", 8_000_000),
			peerRow("inproc", 1, "json-peer-a", "JSON-RPC 2.0", 40_000),
			peerRow("inproc", 1, "floor (tokenizer)", "none (floor)", 25_000_000)),
		"2026-12-01-wasm.json": fixtureReport("wasm", "2026-12-01T11:31:48Z",
			fixtureRow("native", 1, 7_000_000), fixtureRow("js/wasm", 1, 1_100_000), fixtureRow("wasip1", 1, 400_000)),
	}
}

// peerRow makes a row of the peers set.
func peerRow(scenario string, conns int, peer, protocol string, median float64) row {
	name := scenario + " " + peer
	if scenario == "http" {
		name = fmt.Sprintf("http %d %s", conns, peer)
	}
	rw := fixtureRow(name, conns, median)
	rw.Scenario, rw.Peer, rw.Protocol = scenario, peer, protocol
	return rw
}

// fixtureHeadline is the headline table of the fixture's peers set, naming
// the set (computed by hand).
const fixtureHeadline = "Set: docs/bench/2026-11-29-peers.json.\n\n" +
	"| scenario | jsonrpc-go | fastest JSON-RPC 2.0 peer | jsonrpc-go over it | gRPC | floor | jsonrpc-go / floor |\n" +
	"|---|---:|---:|---:|---:|---:|---:|\n" +
	"| one TCP connection, pipelined | 2.00 M | json-peer-b: 80.0 k | **25.0×** | 0.10 M (20.0×) | 4.00 M | 0.50 |\n" +
	"| HTTP/1.1, 16 connections | 60.0 k | json-peer-b: 40.0 k | **1.50×** | — | 66.0 k | 0.91 |\n" +
	"| HTTP/1.1, 1 connection | 30.0 k | json-peer-a: 33.0 k | **0.91×** | — | 31.0 k | 0.97 |\n" +
	"| in process | 8.00 M | json-peer-a: 40.0 k | **200×** | — | 25.00 M | 0.32 |\n"

// fixturePeerTable is the full peer table of the fixture's peers set.
const fixturePeerTable = "| peer | one TCP connection, pipelined | HTTP/1.1, 16 connections | HTTP/1.1, 1 connection | in process |\n" +
	"|---|---:|---:|---:|---:|\n" +
	"| jsonrpc-go | 2.00 M | 60.0 k | 30.0 k | 8.00 M |\n" +
	"| jsonrpc-go (fasthttp) | | 90.0 k (0.67×) | | |\n" +
	"| json-peer-a | 50.0 k (40.0×) | | 33.0 k (0.91×) | 40.0 k (200×) |\n" +
	"| json-peer-b | 80.0 k (25.0×) | 40.0 k (1.50×) | | |\n" +
	"| one-oh | 0.15 M (13.3×) | | | |\n" +
	"| grpc-x | 0.10 M (20.0×) | | | |\n" +
	"| floor (tokenizer) | 4.00 M (0.50×) | 66.0 k (0.91×) | 31.0 k (0.97×) | 25.00 M (0.32×) |\n" +
	"| floor (fasthttp) | | 0.10 M (0.60×) | | |\n"

// fixturePeerTables quote the fixture's peers set as the performance
// document does.
const fixturePeerTables = fixtureHeadline + "\n### Every library\n\nThe full table:\n\n" + fixturePeerTable + "\n"

// fixturePerf is the performance document of the fixture: it quotes the
// fixture data as formatRate writes it (computed by hand here, not with
// formatRate).
const fixturePerf = "# fixture\n\n## Against the peers\n\n" + fixturePeerTables +
	"| row | calls/s |\n|---|---:|\n| calc mix through `Process` | 9.99 M |\n\n" + // another section: not compared
	"## Async\n\nText.\n\n" +
	"| row | workers | calls/s | ns/call | allocs/call |\n" +
	"|---|---:|---:|---:|---:|\n" +
	"| calc mix through `Process` | 1 / 2 | 1.23 M / 2.40 M | 810 / 833 | 0 |\n" +
	"| calc mix through `ProcessAsync`, inline | 1 / 2 | 1.20 M / 2.35 M | 833 / 853 | 0 |\n" +
	"| plain function `add`, inline | 1 / 2 | 0.99 M / 1.88 M | 1 / 1 | 0 |\n" +
	"| method of a registered service, inline | 1 / 2 | 1.11 M / 2.22 M | 900 / 900 | 0 |\n" +
	"\n## Transports\n\n" +
	"| transport | connections | requests/s | allocs/request | latency p50 / p99 |\n" +
	"|---|---:|---:|---:|---:|\n" +
	"| `Process`, no network (same run) | - | 3.46 M | 0 | - |\n" +
	"| TCP, newline framing, `Inline` ordering, calc mix | 1 | 1.50 M | 0 | 1 / 2 µs |\n" +
	"| TCP, `Concurrent` ordering, calc mix | 1 | 1.45 M | 0 | 1 / 2 µs |\n" +
	"| TCP, `Concurrent`, every call a `Blocking` method | 1 | 0.32 M | 2 | 1 / 2 µs |\n" +
	"| HTTP/1.1 keep-alive, calc mix | 1 | 12.3 k | 26 | 1 / 2 µs |\n" +
	"| HTTP/1.1 keep-alive, calc mix | 16 | 45.7 k | 26 | 1 / 2 µs |\n" +
	"\n## WebAssembly\n\n" +
	"| row | runtime | calls/s | ns/call | allocs/call | over native |\n|---|---|---:|---:|---:|---:|\n" +
	"| native | linux/amd64 | 7.00 M | 143 | 0.00 | 1.0× |\n" +
	"| js/wasm | Node v20 | 1.10 M | 909 | 0.00 | 6.4× |\n" +
	"| wasip1 | wazero v1.12.0 | 0.40 M | 2500 | 0.00 | 17.5× |\n" +
	"\n## License\n\n| HTTP/1.1 keep-alive, calc mix | 16 | 1 k |\n"

// fixtureREADME is the README of the fixture: its Performance section has
// the headline table alone, and its other sections are not compared.
const fixtureREADME = "# fixture\n\n## Performance\n\nChart.\n\n" + fixtureHeadline +
	"\nMore in PERFORMANCE.md.\n\n" +
	"\n## Async\n\n" +
	"| row | workers | calls/s |\n|---|---:|---:|\n| calc mix through `Process` | 1 / 2 | 1 M / 2 M |\n" +
	"\n## Hosting\n\n| transport | connections | requests/s |\n|---|---:|---:|\n| HTTP/1.1 keep-alive, calc mix | 16 | 1 k |\n"

// fixtureTree writes the fixture data, performance document and README into
// a temporary directory and returns the run flags that point at it.
func fixtureTree(t *testing.T) (dir string, flags []string) {
	t.Helper()
	dir = t.TempDir()
	data := filepath.Join(dir, "bench")
	if err := os.Mkdir(data, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, r := range fixtureSets() {
		b, err := json.MarshalIndent(r, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(data, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, text := range fixtureDocs {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir, []string{"-data", data, "-out", filepath.Join(dir, "charts"),
		"-perf", filepath.Join(dir, "PERFORMANCE.md"), "-readme", filepath.Join(dir, "README.md")}
}

// fixtureDocs are the fixture's documents by file name.
var fixtureDocs = map[string]string{"PERFORMANCE.md": fixturePerf, "README.md": fixtureREADME}

func runTool(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

func fixtureCharts(t *testing.T) []chart {
	t.Helper()
	var reps []*report
	for name, r := range fixtureSets() {
		r.File = name
		reps = append(reps, r)
	}
	charts, err := renderAll(reps)
	if err != nil {
		t.Fatal(err)
	}
	return charts
}

func TestRenderDeterministic(t *testing.T) {
	a, b := fixtureCharts(t), fixtureCharts(t) // map order differs between the two
	if len(a) != 8 || len(b) != 8 {
		t.Fatalf("got %d and %d charts, want 8", len(a), len(b))
	}
	for i := range a {
		if a[i].Name != b[i].Name || !bytes.Equal(a[i].SVG, b[i].SVG) {
			t.Errorf("%s: two renderings of the same data differ", a[i].Name)
		}
	}

	// Through the files too: loading and rendering twice.
	_, flags := fixtureTree(t)
	for i := 0; i < 2; i++ {
		reps, err := loadDir(flags[1], io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		c, err := renderAll(reps)
		if err != nil {
			t.Fatal(err)
		}
		for j := range c {
			if !bytes.Equal(c[j].SVG, a[j].SVG) {
				t.Errorf("%s: rendering from the files differs from rendering the fixtures", c[j].Name)
			}
		}
	}
}

// wellFormed decodes svg to its end with encoding/xml.
func wellFormed(t *testing.T, name string, svg []byte) {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(svg))
	d.Strict = true
	root := ""
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("%s: not well-formed XML: %v", name, err)
		}
		if se, ok := tok.(xml.StartElement); ok && root == "" {
			root = se.Name.Local
			if se.Name.Space != "http://www.w3.org/2000/svg" {
				t.Errorf("%s: root namespace %q", name, se.Name.Space)
			}
		}
	}
	if root != "svg" {
		t.Errorf("%s: root element %q, want svg", name, root)
	}
}

func TestChartContents(t *testing.T) {
	want := map[string][]string{
		"async-inline.svg": {"calc-mix/Process", "calc-mix", "func", "service",
			"1.23 M", "2.40 M", "1.20 M", "2.35 M", "0.99 M", "1.88 M", "1.11 M", "2.22 M",
			"1 worker", "2 workers", "calls/s"},
		"hosting.svg": {"process (no network)", "tcp-inline", "tcp-concurrent", "tcp-suspend",
			"http, 1 conn", "http, 16 conns",
			"3.46 M", "1.50 M", "1.45 M", "0.32 M", "12.3 k", "45.7 k", "requests/s"},
		"scaling.svg": {"calc-mix/Process (Process)", "calc-mix (ProcessAsync, inline)",
			"1.23 M", "2.40 M", "1.20 M", "2.35 M", "1.94× at 2 workers", "1.95× at 2 workers", "workers"},
		"peers-headline.svg": {"one TCP connection, pipelined", "HTTP/1.1, 16 connections", "HTTP/1.1, 1 connection", "in process",
			"json-peer-b (fastest peer)", "80.0 k (25.0×)", "grpc-x", "0.10 M (20.0×)", "4.00 M (0.50×)",
			"40.0 k (1.50×)", "json-peer-a (fastest peer)", "33.0 k (0.91×)", "40.0 k (200×)", "25.00 M (0.32×)",
			"2.00 M", "60.0 k", "30.0 k", "8.00 M", "2026-11-29-peers.json",
			"jsonrpc-go (fasthttp)", "90.0 k (0.67×)", "floor (fasthttp)", "0.10 M (0.60×)"},
		"peers-tcp.svg": {"json-peer-a", "50.0 k (40.0×)", "json-peer-b", "one-oh", "0.15 M (13.3×)", "grpc-x",
			"floor (tokenizer)", "4.00 M (0.50×)", "2.00 M"},
		"peers-http-16.svg": {"60.0 k", "40.0 k (1.50×)", "66.0 k (0.91×)", "jsonrpc-go (fasthttp)", "90.0 k (0.67×)", "floor (fasthttp)", "0.10 M (0.60×)"},
		"peers-http-1.svg":  {"30.0 k", "33.0 k (0.91×)", "31.0 k (0.97×)"},
		"peers-inproc.svg":  {"8.00 M", "40.0 k (200×)", "25.00 M (0.32×)"},
	}
	// What a chart must not show: the JSON-RPC 1.0 row is not the fastest
	// JSON-RPC 2.0 peer, and a scenario's chart has only its rows.
	wantNot := map[string][]string{
		"peers-headline.svg": {"one-oh", "jsonrpc-go (fasthttp) (fastest peer)"},
		"peers-http-1.svg":   {"json-peer-b", "grpc-x"},
		"peers-inproc.svg":   {"json-peer-b", "one-oh"},
	}
	common := []string{"2026-11-29", "go1.26.8", "Test CPU &lt;fixture&gt;", "2 cores", `width="720"`}
	for _, c := range fixtureCharts(t) {
		wellFormed(t, c.Name, c.SVG)
		s := string(c.SVG)
		ws, ok := want[c.Name]
		if !ok {
			t.Errorf("unexpected chart %s", c.Name)
			continue
		}
		for _, w := range append(ws, common...) {
			if !strings.Contains(s, w) {
				t.Errorf("%s does not contain %q", c.Name, w)
			}
		}
		for _, w := range wantNot[c.Name] {
			if strings.Contains(s, w) {
				t.Errorf("%s contains %q", c.Name, w)
			}
		}
	}
}

func TestCheck(t *testing.T) {
	dir, flags := fixtureTree(t)
	charts := filepath.Join(dir, "charts")

	// -check before any chart is written: each is missing.
	code, _, errOut := runTool(t, append(flags, "-check")...)
	if code != 1 {
		t.Fatalf("-check with no charts: exit %d, want 1; stderr:\n%s", code, errOut)
	}
	for _, n := range []string{"async-inline.svg", "hosting.svg", "scaling.svg"} {
		if !strings.Contains(errOut, filepath.Join(charts, n)+": missing") {
			t.Errorf("-check with no charts does not name %s as missing:\n%s", n, errOut)
		}
	}

	if code, out, errOut := runTool(t, flags...); code != 0 {
		t.Fatalf("writing: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut := runTool(t, append(flags, "-check")...)
	if code != 0 {
		t.Fatalf("-check on charts just written: exit %d\n%s%s", code, out, errOut)
	}
	if !strings.Contains(out, "8 charts") || !strings.Contains(out, "18 figures") ||
		!strings.Contains(out, "peer tables (2026-11-29-peers.json) of "+filepath.Join(dir, "PERFORMANCE.md")) ||
		!strings.Contains(out, "headline table of "+filepath.Join(dir, "README.md")) {
		t.Errorf("-check summary: %q", out)
	}

	// A changed chart.
	hosting := filepath.Join(charts, "hosting.svg")
	orig, err := os.ReadFile(hosting)
	if err != nil {
		t.Fatal(err)
	}
	changed := bytes.Replace(orig, []byte("1.50 M"), []byte("1.51 M"), 1)
	if err := os.WriteFile(hosting, changed, 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut = runTool(t, append(flags, "-check")...)
	if code != 1 || !strings.Contains(errOut, hosting+": differs") {
		t.Errorf("-check with a changed chart: exit %d, stderr:\n%s", code, errOut)
	}
	if strings.Contains(errOut, "scaling.svg") || strings.Contains(errOut, "async-inline.svg") {
		t.Errorf("-check names unchanged charts:\n%s", errOut)
	}
	if err := os.WriteFile(hosting, orig, 0o644); err != nil {
		t.Fatal(err)
	}

	// A missing chart.
	scaling := filepath.Join(charts, "scaling.svg")
	if err := os.Remove(scaling); err != nil {
		t.Fatal(err)
	}
	code, _, errOut = runTool(t, append(flags, "-check")...)
	if code != 1 || !strings.Contains(errOut, scaling+": missing") {
		t.Errorf("-check with a missing chart: exit %d, stderr:\n%s", code, errOut)
	}
	if code, _, errOut := runTool(t, flags...); code != 0 {
		t.Fatalf("rewriting: exit %d\n%s", code, errOut)
	}

	// Data changed after the charts were drawn: every chart of that set differs.
	data := flags[1]
	sets := fixtureSets()
	r := sets["2026-11-29-tcp.json"]
	r.Rows[1].MedianRPS = 1_600_000
	b, _ := json.Marshal(r)
	tcpPath := filepath.Join(data, "2026-11-29-tcp.json")
	origTCP, _ := os.ReadFile(tcpPath)
	if err := os.WriteFile(tcpPath, b, 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut = runTool(t, append(flags, "-check")...)
	if code != 1 || !strings.Contains(errOut, hosting+": differs") ||
		!strings.Contains(errOut, `has "1.50 M", expected "1.60 M"`) {
		t.Errorf("-check after a data change: exit %d, stderr:\n%s", code, errOut)
	}
	if err := os.WriteFile(tcpPath, origTCP, 0o644); err != nil {
		t.Fatal(err)
	}
}

// checkEdited writes the charts of the fixture, replaces old with new in its
// document doc (PERFORMANCE.md or README.md), and checks that -check fails
// naming each of want, and naming no chart.
func checkEdited(t *testing.T, doc, old, new string, want []string) {
	t.Helper()
	dir, flags := fixtureTree(t)
	if code, _, errOut := runTool(t, flags...); code != 0 {
		t.Fatalf("writing: exit %d\n%s", code, errOut)
	}
	text, ok := fixtureDocs[doc]
	if !ok || !strings.Contains(text, old) {
		t.Fatalf("fixture %s lacks %q", doc, old)
	}
	text = strings.Replace(text, old, new, 1)
	if err := os.WriteFile(filepath.Join(dir, doc), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := runTool(t, append(flags, "-check")...)
	if code != 1 {
		t.Fatalf("exit %d, want 1; stderr:\n%s", code, errOut)
	}
	for _, w := range want {
		if !strings.Contains(errOut, w) {
			t.Errorf("stderr lacks %q:\n%s", w, errOut)
		}
	}
	if strings.Contains(errOut, ".svg") {
		t.Errorf("charts reported although only %s changed:\n%s", doc, errOut)
	}
}

func TestCheckFigures(t *testing.T) {
	for _, tc := range []struct {
		name, old, new string
		want           []string // in stderr
	}{
		{"async cell", "| 1.20 M / 2.35 M |", "| 1.20 M / 2.36 M |", []string{
			"PERFORMANCE.md:", "Async table, row \"calc mix through `ProcessAsync`, inline\"",
			`has "1.20 M / 2.36 M", expected "1.20 M / 2.35 M"`,
			`median_rps of "calc-mix" at 1 / 2 workers`}},
		{"http 16", "| 16 | 45.7 k |", "| 16 | 45.6 k |", []string{
			`with connections 16`, `has "45.6 k", expected "45.7 k"`, "2026-11-29-http-16.json"}},
		{"tcp-suspend", "| 0.32 M |", "| 321.0 k |", []string{
			`has "321.0 k", expected "0.32 M"`}},
		{"row renamed", "| TCP, `Concurrent` ordering, calc mix |", "| TCP, concurrent ordering |", []string{
			"row \"TCP, `Concurrent` ordering, calc mix\" with a \"requests/s\" column not found; expected requests/s \"1.45 M\""}},
		{"section renamed", "## Transports", "## Serving", []string{`no section "## Transports"`}},
	} {
		t.Run(tc.name, func(t *testing.T) { checkEdited(t, "PERFORMANCE.md", tc.old, tc.new, tc.want) })
	}
	// The WebAssembly table.
	for _, tc := range []struct {
		name, old, new string
		want           []string // in stderr
	}{
		{"wasm rate", "| 1.10 M | 909 |", "| 1.11 M | 909 |", []string{
			"PERFORMANCE.md:", `WebAssembly table, row "js/wasm", calls/s: has "1.11 M", expected "1.10 M"`,
			`median_rps of "js/wasm" at 1 workers`, "2026-12-01-wasm.json"}},
		{"wasm ns/call", "| 2500 |", "| 2400 |", []string{
			`row "wasip1", ns/call: has "2400", expected "2500"`, `ns_per_call of "wasip1"`}},
		{"wasm over native", "| 6.4× |", "| 6.3× |", []string{
			`row "js/wasm", over native: has "6.3×", expected "6.4×"`, `ns_per_call over that of "native" of "js/wasm"`}},
		{"wasm row missing", "| wasip1 | wazero v1.12.0 | 0.40 M | 2500 | 0.00 | 17.5× |\n", "", []string{
			`row "wasip1" with a "calls/s" column not found; expected calls/s "0.40 M"`}},
	} {
		t.Run(tc.name, func(t *testing.T) { checkEdited(t, "PERFORMANCE.md", tc.old, tc.new, tc.want) })
	}
}

func TestCheckPeerTables(t *testing.T) {
	const tcpLine = "| one TCP connection, pipelined | 2.00 M | json-peer-b: 80.0 k | **25.0×** | 0.10 M (20.0×) | 4.00 M | 0.50 |\n"
	for _, tc := range []struct {
		name, old, new string
		want           []string // in stderr
	}{
		{"headline ratio", "| **25.0×** |", "| **25.1×** |", []string{
			`PERFORMANCE.md:9: headline table, one TCP connection, pipelined, jsonrpc-go over it: has "**25.1×**", expected "**25.0×**" from `,
			"2026-11-29-peers.json"}},
		{"fastest peer is a 2.0 peer", "| json-peer-b: 80.0 k |", "| one-oh: 0.15 M |", []string{
			`fastest JSON-RPC 2.0 peer: has "one-oh: 0.15 M", expected "json-peer-b: 80.0 k"`}},
		{"floor fraction", "| 66.0 k | 0.91 |", "| 66.0 k | 0.85 |", []string{
			`HTTP/1.1, 16 connections, jsonrpc-go / floor: has "0.85", expected "0.91"`}},
		{"headline row missing", "| in process | 8.00 M | json-peer-a: 40.0 k | **200×** | — | 25.00 M | 0.32 |\n", "", []string{
			`headline table has no row "in process"`}},
		{"headline column missing", "| jsonrpc-go / floor |\n|---|---:|---:|---:|---:|---:|---:|", "|\n|---|---:|---:|---:|---:|---:|", []string{
			`headline table has no "jsonrpc-go / floor" column`}},
		{"headline unknown row", tcpLine, tcpLine + "| over carrier pigeon | 1 | 2 | 3 | 4 | 5 | 6 |\n", []string{
			`headline table row "over carrier pigeon" is no scenario`}},
		{"peer row missing", "| grpc-x | 0.10 M (20.0×) | | | |\n", "", []string{
			`peer table has no row "grpc-x"`}},
		{"peer cell where there is no row", "| json-peer-b | 80.0 k (25.0×) | 40.0 k (1.50×) | | |", "| json-peer-b | 80.0 k (25.0×) | 40.0 k (1.50×) | 1 k | |", []string{
			`peer table, json-peer-b, HTTP/1.1, 1 connection: has "1 k", expected ""`}},
		{"peer cell", "| 50.0 k (40.0×) |", "| 50.0 k (41.0×) |", []string{
			`peer table, json-peer-a, one TCP connection, pipelined: has "50.0 k (41.0×)", expected "50.0 k (40.0×)"`}},
		{"unknown peer", "| one-oh |", "| two-oh |", []string{
			`peer table row "two-oh" is no peer`, `peer table has no row "one-oh"`}},
		{"unknown column", "| peer | one TCP connection, pipelined |", "| peer | one UDP datagram |", []string{
			`peer table column "one UDP datagram" is no scenario`, `peer table has no column "one TCP connection, pipelined"`}},
		{"set not named", "Set: docs/bench/2026-11-29-peers.json.", "Set: the latest.", []string{
			`section "Against the peers" does not name the peers set it quotes, docs/bench/2026-11-29-peers.json`}},
		{"peer table missing", fixturePeerTable, "", []string{
			`section "Against the peers" has no peer table`}},
		{"section renamed", "## Against the peers", "## Peers", []string{
			`no section "## Against the peers" for the peer tables`}},
	} {
		t.Run(tc.name, func(t *testing.T) { checkEdited(t, "PERFORMANCE.md", tc.old, tc.new, tc.want) })
	}

	// The README's headline table is checked as well; a peer table there is
	// checked when it has one, and not required.
	for _, tc := range []struct {
		name, old, new string
		want           []string // in stderr
	}{
		{"readme headline ratio", "| **25.0×** |", "| **25.1×** |", []string{
			`README.md:11: headline table, one TCP connection, pipelined, jsonrpc-go over it: has "**25.1×**", expected "**25.0×**" from `}},
		{"readme headline row missing", "| HTTP/1.1, 1 connection | 30.0 k | json-peer-a: 33.0 k | **0.91×** | — | 31.0 k | 0.97 |\n", "", []string{
			`README.md: headline table has no row "HTTP/1.1, 1 connection"`}},
		{"readme headline table missing", fixtureHeadline, "Set: docs/bench/2026-11-29-peers.json.\n", []string{
			`README.md: section "Performance" has no headline table`}},
		{"readme set not named", "Set: docs/bench/2026-11-29-peers.json.", "Set: the latest.", []string{
			`README.md: section "Performance" does not name the peers set it quotes`}},
		{"readme section renamed", "## Performance", "## Speed", []string{
			`README.md: no section "## Performance" for the peer tables`}},
		{"readme peer table checked", "\nMore in PERFORMANCE.md.\n",
			"\n" + strings.Replace(fixturePeerTable, "| 50.0 k (40.0×) |", "| 50.0 k (41.0×) |", 1), []string{
				`README.md:20: peer table, json-peer-a, one TCP connection, pipelined: has "50.0 k (41.0×)", expected "50.0 k (40.0×)"`}},
	} {
		t.Run(tc.name, func(t *testing.T) { checkEdited(t, "README.md", tc.old, tc.new, tc.want) })
	}

	// A newer run of a peer changes the charts and the tables that quote it.
	_, flags := fixtureTree(t)
	if code, _, errOut := runTool(t, flags...); code != 0 {
		t.Fatalf("writing: exit %d\n%s", code, errOut)
	}
	r := fixtureSets()["2026-11-29-peers.json"]
	r.Rows[2].MedianRPS = 100_000 // tcp json-peer-b
	b, _ := json.Marshal(r)
	if err := os.WriteFile(filepath.Join(flags[1], "2026-11-29-peers.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := runTool(t, append(flags, "-check")...)
	for _, w := range []string{"peers-headline.svg: differs", "peers-tcp.svg: differs",
		`expected "json-peer-b: 0.10 M"`, `expected "**20.0×**"`, `expected "0.10 M (20.0×)"`} {
		if code != 1 || !strings.Contains(errOut, w) {
			t.Errorf("after a peer's data changed: exit %d, stderr lacks %q:\n%s", code, w, errOut)
		}
	}
	if strings.Contains(errOut, "peers-http") || strings.Contains(errOut, "peers-inproc") {
		t.Errorf("charts of unchanged scenarios reported:\n%s", errOut)
	}
}

func TestFormatRatio(t *testing.T) {
	for v, want := range map[float64]string{
		0.5746: "0.57", 0.89: "0.89", 1.094: "1.09", 9.99: "9.99", 9.996: "10.0",
		35.04: "35.0", 99.94: "99.9", 99.96: "100", 174.4: "174", 1850: "1850",
	} {
		if got := formatRatio(v); got != want {
			t.Errorf("formatRatio(%v) = %q, want %q", v, got, want)
		}
	}
}

func TestUnknownFilesIgnored(t *testing.T) {
	_, flags := fixtureTree(t)
	data := flags[1]
	for name, content := range map[string]string{
		"notes.json":   `{"hello": "world"}`,
		"broken.json":  `{"mode": "tcp", "rows": [`,
		"scale.json":   `{"mode": "scale", "rows": [{"name": "", "workers": 0}]}`,
		"readme.txt":   "not json at all",
		"array.json":   `[1, 2, 3]`,
		"numbers.json": `{"mode": 3}`,
		"index.json":   `{"sets": [{"file": "2026-11-29-tcp.json", "mode": "tcp", "date": "2026-11-29T21:07:06Z"}]}`,
	} {
		if err := os.WriteFile(filepath.Join(data, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, _, errOut := runTool(t, flags...)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	for _, n := range []string{"notes.json", "broken.json", "scale.json", "array.json", "numbers.json"} {
		if !strings.Contains(errOut, "warning: skipping "+filepath.Join(data, n)) {
			t.Errorf("no warning for %s:\n%s", n, errOut)
		}
	}
	if strings.Contains(errOut, "readme.txt") {
		t.Errorf("warned about a file that is not .json:\n%s", errOut)
	}
	if strings.Contains(errOut, "index.json") {
		t.Errorf("warned about the explorer's index of the sets:\n%s", errOut)
	}
	if code, out, errOut := runTool(t, append(flags, "-check")...); code != 0 {
		t.Errorf("-check: exit %d\n%s%s", code, out, errOut)
	}
}

func TestLatestSetIsCharted(t *testing.T) {
	_, flags := fixtureTree(t)
	newer := fixtureReport("async-inline", "2026-12-01T10:00:00Z",
		fixtureRow("calc-mix/Process", 1, 4_444_444), fixtureRow("calc-mix", 1, 4_333_333))
	b, _ := json.Marshal(newer)
	if err := os.WriteFile(filepath.Join(flags[1], "2026-12-01-async-inline.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	reps, err := loadDir(flags[1], io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	charts, err := renderAll(reps)
	if err != nil {
		t.Fatal(err)
	}
	s := string(charts[0].SVG)
	if !strings.Contains(s, "4.44 M") || strings.Contains(s, "1.23 M") || !strings.Contains(s, "2026-12-01-async-inline.json") {
		t.Errorf("async-inline.svg is not drawn from the newest set")
	}
}

func TestFormatRate(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		want string
	}{
		{7808731.931237892, "7.81 M"},
		{15547065.120930115, "15.55 M"},
		{641991.3000267228, "0.64 M"},
		{100000, "0.10 M"},
		{32721.744639504832, "32.7 k"},
		{63771.7226073637, "63.8 k"},
		{999, "999"},
	} {
		if got := formatRate(tc.v); got != tc.want {
			t.Errorf("formatRate(%v) = %q, want %q", tc.v, got, tc.want)
		}
	}
}

func TestNiceAxis(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		want string
	}{
		{15672050, "0 5 M 10 M 15 M 20 M"},
		{7934332, "0 2 M 4 M 6 M 8 M"},
		{66460, "0 20 k 40 k 60 k 80 k"},
		{2_100_000, "0 0.5 M 1.0 M 1.5 M 2.0 M 2.5 M"},
		{40, "0 10 20 30 40"},
	} {
		_, ls := niceAxis(tc.v).ticks()
		if got := strings.Join(ls, " "); got != tc.want {
			t.Errorf("niceAxis(%v) ticks %q, want %q", tc.v, got, tc.want)
		}
	}
}

// The printed tables are the ones the check accepts.
func TestTablesPrintsWhatCheckAccepts(t *testing.T) {
	_, flags := fixtureTree(t)
	code, out, errOut := runTool(t, append(flags, "-tables")...)
	if code != 0 {
		t.Fatalf("-tables: exit %d\n%s", code, errOut)
	}
	parts := strings.Split(out, "\n\n")
	if len(parts) != 2 {
		t.Fatalf("-tables printed %d blocks, want 2 tables:\n%s", len(parts), out)
	}
	for _, p := range parts {
		if !strings.Contains(fixturePeerTables, p) {
			t.Errorf("-tables printed\n%s\nwhich is not in the fixture README's tables:\n%s", p, fixturePeerTables)
		}
	}
}
