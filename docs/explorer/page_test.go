package explorer

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// checkView reports each difference between the view the page shows and
// the one the test expects.
func checkView(t *testing.T, what string, got, want view) {
	t.Helper()
	errorf := func(format string, args ...any) {
		t.Helper()
		t.Errorf("%s: "+format, append([]any{what}, args...)...)
	}
	if got.Error != "" || got.Notice != "" {
		errorf("error %q, notice %q", got.Error, got.Notice)
	}
	for _, f := range []struct{ name, got, want string }{
		{"hash", got.Hash, want.Hash},
		{"set", got.Set, want.Set},
		{"compare with", got.VS, want.VS},
		{"scenario", got.Scenario, want.Scenario},
		{"library", got.Lib, want.Lib},
	} {
		if f.got != f.want {
			errorf("%s is %q, want %q", f.name, f.got, f.want)
		}
	}
	for _, f := range []struct {
		name      string
		got, want []string
	}{
		{"scenario options", got.ScenarioOptions, want.ScenarioOptions},
		{"library options", got.LibOptions, want.LibOptions},
		{"columns", got.Cols, want.Cols},
		{"skipped", got.Skipped, want.Skipped},
	} {
		if !slices.Equal(f.got, f.want) {
			errorf("%s are\n\t%q\nwant\n\t%q", f.name, f.got, f.want)
		}
	}
	if want.SetOptions != nil && !slices.Equal(got.SetOptions, want.SetOptions) {
		errorf("set options are %q, want %q", got.SetOptions, want.SetOptions)
	}
	if want.VSOptions != nil && !slices.Equal(got.VSOptions, want.VSOptions) {
		errorf("compare options are %q, want %q", got.VSOptions, want.VSOptions)
	}
	if got.SkippedShown != want.SkippedShown || got.Empty != want.Empty {
		errorf("skipped list shown %v, empty message shown %v; want %v, %v", got.SkippedShown, got.Empty, want.SkippedShown, want.Empty)
	}
	for set, fields := range want.Conditions {
		for field, w := range fields {
			if g := got.Conditions[set][field]; g != w {
				errorf("condition %s of set %s is %q, want %q", field, set, g, w)
			}
		}
	}
	if len(got.Conditions) != len(want.Conditions) {
		errorf("conditions of %d sets, want %d", len(got.Conditions), len(want.Conditions))
	}

	if len(got.Rows) != len(want.Rows) {
		errorf("%d rows, want %d", len(got.Rows), len(want.Rows))
	}
	for i := range min(len(got.Rows), len(want.Rows)) {
		g, w := got.Rows[i], want.Rows[i]
		where := fmt.Sprintf("row %d (%s, %s workers)", i, w.Cells["name"], w.Cells["workers"])
		if g.Side != w.Side {
			errorf("%s: side %q, want %q", where, g.Side, w.Side)
		}
		if g.NCells != w.NCells || len(g.Cells) != len(w.Cells) {
			errorf("%s: %d cells, %d named, want %d", where, g.NCells, len(g.Cells), w.NCells)
		}
		for _, col := range want.Cols {
			if g.Cells[col] != w.Cells[col] {
				errorf("%s: %s is %q, want %q", where, col, g.Cells[col], w.Cells[col])
			}
		}
		for col, wv := range w.Values {
			if gv, ok := g.Values[col]; !ok || gv != wv {
				errorf("%s: data-value of %s is %v (present %v), want %v", where, col, gv, ok, wv)
			}
		}
		for col := range g.Values {
			if _, ok := w.Values[col]; !ok {
				errorf("%s: data-value on %s, want none", where, col)
			}
		}
	}
}

// newestFirst returns the file names of the sets in the order of the set
// picker: newest date first, then by file name.
func newestFirst(sets []*report) []string {
	s := slices.Clone(sets)
	slices.SortStableFunc(s, func(a, b *report) int {
		if a.Date != b.Date {
			return strings.Compare(b.Date, a.Date)
		}
		return strings.Compare(a.File, b.File)
	})
	var files []string
	for _, r := range s {
		files = append(files, r.File)
	}
	return files
}

// TestPageShowsEverySet opens the explorer on each result set and checks
// every cell of the table and of the conditions against the JSON.
func TestPageShowsEverySet(t *testing.T) {
	sets := loadSets(t, benchDir)
	p := newPage(t, nil)

	order := newestFirst(sets)
	byFile := map[string]*report{}
	for _, r := range sets {
		byFile[r.File] = r
	}
	// Without a hash the page shows the newest set, and writes its hash.
	want := expectSingle(byFile[order[0]], "", "")
	want.SetOptions = order
	want.VSOptions = append([]string{""}, order...)
	checkView(t, "the page without a hash", p.open(""), want)

	for _, r := range sets {
		checkView(t, r.File, p.open(fragment(r.File, "", "", "")), expectSingle(r, "", ""))
	}

	// A query works as well as a hash; the page moves it to the hash.
	last := sets[len(sets)-1]
	checkView(t, "a query", p.open("?set="+queryEscape(last.File)), expectSingle(last, "", ""))
	if loc := eval[string](p, "location.search"); loc != "" {
		t.Errorf("the page keeps the query %q after moving it to the hash", loc)
	}

	// A set the index does not list falls back to the newest, with a notice.
	got := p.open("#set=no-such-set.json")
	if got.Set != order[0] || !strings.Contains(got.Notice, "no-such-set.json") {
		t.Errorf("a link to a missing set shows set %q with notice %q, want %q and a notice", got.Set, got.Notice, order[0])
	}
}

// TestPageFilters selects every scenario and library in the page's
// controls and checks the rows, then opens a filtered view from its link
// and from a hash the reader edits. It does so on the newest set of each
// mode, so that its time grows with the kinds of sets, not with their
// number.
func TestPageFilters(t *testing.T) {
	sets := newestPerMode(loadSets(t, benchDir))
	p := newPage(t, nil)
	filtered := false
	for _, r := range sets {
		p.open(fragment(r.File, "", "", ""))
		for _, sc := range append([]string{""}, distinct(scenarioOf, r)...) {
			p.choose("scenario", sc)
			for _, lib := range append([]string{""}, distinct(libraryOf, r)...) {
				want := expectSingle(r, sc, lib)
				checkView(t, fmt.Sprintf("%s, scenario %q, library %q", r.File, sc, lib), p.choose("lib", lib), want)
				filtered = filtered || len(want.Rows) < len(r.Rows)
			}
		}

		// A link to a filtered view opens the same view.
		last := r.Rows[len(r.Rows)-1]
		sc, lib := r.scenario(last), library(last)
		h := fragment(r.File, sc, lib, "")
		checkView(t, "link "+h, p.open(h), expectSingle(r, sc, lib))

		// A hash the reader edits in place changes the view.
		h = fragment(r.File, "", lib, "")
		checkView(t, "edited hash "+h, p.act("location.hash = "+js(h)), expectSingle(r, "", lib))
	}
	if !filtered {
		t.Log("no scenario or library left out a row; the filters were not put to the test")
	}
}

// newestPerMode returns the newest set of each mode (by date, then file
// name), in file name order.
func newestPerMode(sets []*report) []*report {
	newest := map[string]*report{}
	for _, r := range sets {
		if n := newest[r.Mode]; n == nil || r.Date > n.Date || (r.Date == n.Date && r.File > n.File) {
			newest[r.Mode] = r
		}
	}
	var out []*report
	for _, r := range sets {
		if newest[r.Mode] == r {
			out = append(out, r)
		}
	}
	return out
}

// TestPageCompares compares the largest result set with a set derived from
// it, in which some rows are faster, some slower, some missing and one new.
func TestPageCompares(t *testing.T) {
	sets := loadSets(t, benchDir)
	a := sets[0]
	for _, r := range sets {
		if len(r.Rows) > len(a.Rows) {
			a = r
		}
	}
	b, bJSON := derive(t, a)
	extra := map[string][]byte{
		"/bench/index.json": marshalIndex(indexOf(append(slices.Clone(sets), b))),
		"/bench/" + b.File:  bJSON,
	}
	p := newPage(t, extra)

	got := p.open(fragment(a.File, "", "", b.File))
	checkView(t, "A vs B", got, expectCompare(a, b, "", ""))
	// Anchors that do not depend on the Go copy of the formatting: the first
	// row is 1.5 times as fast in B, the fourth is missing from B, the last
	// is only in B.
	if len(got.Rows) > 0 {
		if r := got.Rows[0]; r.Cells["ratio-ba"] != "1.50×" || r.Side != "both" {
			t.Errorf("first row: B/A %q on side %q, want 1.50× on both", r.Cells["ratio-ba"], r.Side)
		}
		if r := got.Rows[len(got.Rows)-1]; r.Side != "b" || r.Cells["median-a"] != dash || r.Cells["ratio-ba"] != dash {
			t.Errorf("last row: side %q, median A %q, B/A %q; want only in B, with dashes", r.Side, r.Cells["median-a"], r.Cells["ratio-ba"])
		}
	}
	if len(got.Rows) > 3 {
		if r := got.Rows[3]; r.Side != "a" || r.Cells["median-b"] != dash {
			t.Errorf("fourth row: side %q, median B %q; want only in A, with a dash", r.Side, r.Cells["median-b"])
		}
	}

	// The filters apply to both sets.
	sc, lib := a.scenario(a.Rows[0]), library(a.Rows[0])
	checkView(t, "A vs B, scenario "+sc, p.choose("scenario", sc), expectCompare(a, b, sc, ""))
	checkView(t, "A vs B, library "+lib, p.choose("lib", lib), expectCompare(a, b, sc, lib))
	checkView(t, "B vs A", p.click("swap"), expectCompare(b, a, sc, lib))
	h := fragment(a.File, sc, lib, b.File)
	checkView(t, "link "+h, p.open(h), expectCompare(a, b, sc, lib))

	// The controls start and end a comparison.
	p.open(fragment(a.File, "", "", ""))
	checkView(t, "A, then compare with B", p.choose("vs", b.File), expectCompare(a, b, "", ""))
	checkView(t, "A vs B, then compare with nothing", p.choose("vs", ""), expectSingle(a, "", ""))

	// Two real sets, whatever rows they share.
	if len(sets) > 1 {
		x, y := sets[0], sets[len(sets)-1]
		checkView(t, x.File+" vs "+y.File, p.open(fragment(x.File, "", "", y.File)), expectCompare(x, y, "", ""))
	}
}

// derive returns a result set made from a: rows 0, 3, 6, … at 1.5 times
// the rate, rows 1, 4, 7, … at 0.8 times, rows 2, 5, … the same, every
// fourth row (3, 7, …) left out, and one row of its own at the end.
func derive(t *testing.T, a *report) (*report, []byte) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(benchDir, a.File))
	if err != nil {
		t.Fatal(err)
	}
	var set map[string]any
	if err := json.Unmarshal(raw, &set); err != nil {
		t.Fatal(err)
	}
	rows, _ := set["rows"].([]any)
	var out []any
	for i, v := range rows {
		if i%4 == 3 {
			continue
		}
		row := v.(map[string]any)
		f := []float64{1.5, 0.8, 1}[i%3]
		for _, k := range []string{"median_rps", "min_rps", "max_rps"} {
			if x, ok := row[k].(float64); ok {
				row[k] = x * f
			}
		}
		if x, ok := row["ns_per_call"].(float64); ok {
			row["ns_per_call"] = x / f
		}
		out = append(out, row)
	}
	own := map[string]any{
		"name": "explorer-test only in B", "workers": 3,
		"median_rps": 123456.7, "min_rps": 120000.5, "max_rps": 130000.25,
		"ns_per_call": 8100.5, "allocs_per_call": 1.25,
	}
	first := rows[0].(map[string]any)
	for _, k := range []string{"scenario", "peer"} {
		if v, ok := first[k]; ok {
			own[k] = v
		}
	}
	set["rows"] = append(out, own)
	set["date"] = "2000-01-01T00:00:00Z"
	set["go"] = "go1.0-explorer-test"
	b, err := json.Marshal(set)
	if err != nil {
		t.Fatal(err)
	}
	r, err := parseReport("zz-explorer-test.json", b)
	if err != nil {
		t.Fatal(err)
	}
	return r, b
}

// TestConsoleProblemsFail checks that the console check of newPage sees an
// error, an uncaught exception and a failed load.
func TestConsoleProblemsFail(t *testing.T) {
	p := newPage(t, nil)
	p.open("")
	eval[any](p, `console.error("explorer test: a deliberate error");
setTimeout(() => { throw new Error("explorer test: a deliberate exception"); });
fetch("../bench/explorer-test-missing.json").then(() => 0)`)
	want := []string{"a deliberate error", "a deliberate exception", "explorer-test-missing.json"}
	var got []string
	for deadline := time.Now().Add(settleTimeout); time.Now().Before(deadline); {
		got = append(got, p.takeProblems()...)
		found := 0
		for _, w := range want {
			if slices.ContainsFunc(got, func(s string) bool { return strings.Contains(s, w) }) {
				found++
			}
		}
		if found == len(want) {
			return
		}
		eval[chromedp.Void](p, `0`) // a round trip, to let the events in
		time.Sleep(10 * time.Millisecond)
	}
	t.Errorf("the console check saw %q, want messages with each of %q", got, want)
}

// TestToFixedMatchesChromium checks the Go copy of Number.prototype.toFixed
// (format_test.go) against the browser's, on values that round half way,
// sit near powers of ten, or are random.
func TestToFixedMatchesChromium(t *testing.T) {
	xs := []float64{0, 0.5, 1.5, 2.5, 0.125, 0.375, 1.005, 1.045, 8.345, 9.995, 9.9949, 99.95, 999.5,
		0.0005, 0.00005, 0.000005, 1e-7, 4.876703368877574e-7, 123456.789, 2792749.268876173, 1e20}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 300 {
		xs = append(xs, rng.Float64()*math.Pow(10, float64(rng.IntN(16)-8)))
	}
	for n := range 64 {
		xs = append(xs, float64(n)/64, float64(n)/64+1000)
	}
	p := newPage(t, nil)
	got := eval[[][]string](p, fmt.Sprintf(`%s.map((x) => [0, 1, 2, 3, 4, 5, 6].map((d) => x.toFixed(d)))`, js(xs)))
	if len(got) != len(xs) {
		t.Fatalf("%d results for %d values", len(got), len(xs))
	}
	for i, x := range xs {
		for d, g := range got[i] {
			if w := toFixed(x, d); g != w {
				t.Errorf("(%v).toFixed(%d): Chromium %q, Go copy %q", x, d, g, w)
			}
		}
	}
}
