package explorer

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// view is what the page shows, as the browser tests read it from the DOM
// (see readView) and as they expect it (expectSingle, expectCompare).
type view struct {
	State           string                       `json:"state"`
	Hash            string                       `json:"hash"`
	Set             string                       `json:"set"`
	VS              string                       `json:"vs"`
	Scenario        string                       `json:"scenario"`
	Lib             string                       `json:"lib"`
	SetOptions      []string                     `json:"setOptions"`
	VSOptions       []string                     `json:"vsOptions"`
	ScenarioOptions []string                     `json:"scenarioOptions"`
	LibOptions      []string                     `json:"libOptions"`
	Cols            []string                     `json:"cols"`
	Rows            []viewRow                    `json:"rows"`
	Conditions      map[string]map[string]string `json:"conditions"` // "a" or "b" → field → text
	Skipped         []string                     `json:"skipped"`
	SkippedShown    bool                         `json:"skippedShown"`
	Empty           bool                         `json:"empty"`
	Error           string                       `json:"error"`
	Notice          string                       `json:"notice"`
}

// viewRow is one row of the results table.
type viewRow struct {
	Side   string             `json:"side"`   // "both", "a" or "b" in a comparison; "" otherwise
	NCells int                `json:"ncells"` // to catch two cells with one data-col
	Cells  map[string]string  `json:"cells"`  // data-col → text
	Values map[string]float64 `json:"values"` // data-col → data-value, as a number
}

// readViewJS collects a view from the DOM.
const readViewJS = `(() => {
  const $ = (id) => document.getElementById(id);
  const opts = (id) => [...$(id).options].map((o) => o.value);
  const conditions = {};
  for (const td of document.querySelectorAll("#conditions td[data-set]")) {
    (conditions[td.dataset.set] ??= {})[td.dataset.field] = td.textContent;
  }
  return {
    state: $("explorer").dataset.state,
    hash: location.hash,
    set: $("set").value, vs: $("vs").value, scenario: $("scenario").value, lib: $("lib").value,
    setOptions: opts("set"), vsOptions: opts("vs"), scenarioOptions: opts("scenario"), libOptions: opts("lib"),
    cols: [...document.querySelectorAll("#rows thead th")].map((th) => th.dataset.col),
    rows: [...$("rows").tBodies[0].rows].map((tr) => ({
      side: tr.dataset.side ?? "",
      ncells: tr.cells.length,
      cells: Object.fromEntries([...tr.cells].map((td) => [td.dataset.col, td.textContent])),
      values: Object.fromEntries([...tr.cells].filter((td) => td.dataset.value !== undefined).map((td) => [td.dataset.col, Number(td.dataset.value)])),
    })),
    conditions,
    skipped: [...document.querySelectorAll("#skipped-list li")].map((li) => li.textContent),
    skippedShown: !$("skipped").hidden,
    empty: !$("empty").hidden,
    error: $("error").hidden ? "" : $("error").textContent,
    notice: $("notice").hidden ? "" : $("notice").textContent,
  };
})()`

// filter returns the rows of r that the scenario and library select ("" selects all).
func (r *report) filter(scenario, lib string) []row {
	var rows []row
	for _, rw := range r.Rows {
		if (scenario == "" || r.scenario(rw) == scenario) && (lib == "" || library(rw) == lib) {
			rows = append(rows, rw)
		}
	}
	return rows
}

// distinct returns the distinct values of f over the rows of the sets, in
// order of first appearance.
func distinct(f func(*report, row) string, sets ...*report) []string {
	var vs []string
	for _, r := range sets {
		for _, rw := range r.Rows {
			if v := f(r, rw); !slices.Contains(vs, v) {
				vs = append(vs, v)
			}
		}
	}
	return vs
}

func scenarioOf(r *report, rw row) string { return r.scenario(rw) }
func libraryOf(_ *report, rw row) string  { return library(rw) }

// expectControls fills the select values and options of a view of the sets.
func expectControls(v *view, scenario, lib string, sets ...*report) {
	v.Scenario, v.Lib = scenario, lib
	v.ScenarioOptions = append([]string{""}, distinct(scenarioOf, sets...)...)
	v.LibOptions = append([]string{""}, distinct(libraryOf, sets...)...)
}

// conditions is the column of one set in the conditions table.
func conditions(r *report) map[string]string {
	platform := dash
	if r.GOOS != "" || r.GOARCH != "" {
		platform = text(r.GOOS) + "/" + text(r.GOARCH)
	}
	return map[string]string{
		"date":       when(r.Date),
		"mode":       text(r.Mode),
		"go":         text(r.Go),
		"platform":   platform,
		"cpu":        text(r.CPU),
		"cores":      textInt(r.Cores),
		"gomaxprocs": textInt(r.GOMAXPROCS),
		"duration":   text(r.Duration),
	}
}

// expectSingle returns the view of one set under a filter.
func expectSingle(r *report, scenario, lib string) view {
	v := view{State: "ready", Set: r.File, Conditions: map[string]map[string]string{"a": conditions(r)}}
	expectControls(&v, scenario, lib, r)
	v.Hash = fragment(r.File, scenario, lib, "")

	has := func(f func(row) *float64) bool {
		return slices.ContainsFunc(r.Rows, func(rw row) bool { return f(rw) != nil })
	}
	hasRatio := has(func(rw row) *float64 { return rw.Ratio })
	hasLatency := has(func(rw row) *float64 { return rw.P50 })
	v.Cols = []string{"name", "workers", "median", "range", "ns", "allocs"}
	if hasRatio {
		v.Cols = append(v.Cols, "ratio")
	}
	if hasLatency {
		v.Cols = append(v.Cols, "latency")
	}
	v.Cols = append(v.Cols, "note")

	for _, rw := range r.filter(scenario, lib) {
		cells := map[string]string{
			"name":    text(rw.Name),
			"workers": strconv.Itoa(rw.Workers),
			"median":  scaled(rw.Median, countUnits),
			"range":   scaled(rw.Min, countUnits) + " – " + scaled(rw.Max, countUnits),
			"ns":      scaled(rw.Ns, nanoUnits),
			"allocs":  scaled(rw.Allocs, countUnits),
			"note":    rw.Note,
		}
		values := map[string]float64{"workers": float64(rw.Workers)}
		for col, x := range map[string]*float64{"median": rw.Median, "ns": rw.Ns, "allocs": rw.Allocs} {
			if x != nil {
				values[col] = *x
			}
		}
		if hasRatio {
			cells["ratio"] = ratio(rw.Ratio)
			if rw.Ratio != nil {
				values["ratio"] = *rw.Ratio
			}
		}
		if hasLatency {
			cells["latency"] = dash
			if rw.P50 != nil {
				cells["latency"] = scaled(rw.P50, microUnits) + " / " + scaled(rw.P90, microUnits) + " / " + scaled(rw.P99, microUnits)
			}
		}
		v.Rows = append(v.Rows, viewRow{NCells: len(v.Cols), Cells: cells, Values: values})
	}
	v.Empty = len(v.Rows) == 0

	for _, s := range r.Skipped {
		if (scenario == "" || s.Scenario == scenario) && (lib == "" || s.Peer == lib) {
			v.Skipped = append(v.Skipped, fmt.Sprintf("%s (%s): %s", text(s.Peer), text(s.Scenario), text(s.Why)))
		}
	}
	v.SkippedShown = len(v.Skipped) > 0
	return v
}

// expectCompare returns the view of set a compared with set b under a
// filter: the rows of a, each with the row of b of the same name and
// workers, then the rows only b has.
func expectCompare(a, b *report, scenario, lib string) view {
	v := view{State: "ready", Set: a.File, VS: b.File, Conditions: map[string]map[string]string{"a": conditions(a), "b": conditions(b)}}
	expectControls(&v, scenario, lib, a, b)
	v.Hash = fragment(a.File, scenario, lib, b.File)
	v.Cols = []string{"name", "workers", "median-a", "median-b", "ratio-ba", "ns-a", "ns-b", "allocs-a", "allocs-b"}

	type key struct {
		name    string
		workers int
	}
	bRows := b.filter(scenario, lib)
	used := make([]bool, len(bRows))
	var pairs [][2]*row
	for _, ra := range a.filter(scenario, lib) {
		p := [2]*row{&ra, nil}
		for i := range bRows {
			if !used[i] && (key{bRows[i].Name, bRows[i].Workers} == key{ra.Name, ra.Workers}) {
				used[i] = true
				p[1] = &bRows[i]
				break
			}
		}
		pairs = append(pairs, p)
	}
	for i := range bRows {
		if !used[i] {
			pairs = append(pairs, [2]*row{nil, &bRows[i]})
		}
	}

	for _, p := range pairs {
		ra, rb := p[0], p[1]
		first, side := ra, "a"
		switch {
		case ra != nil && rb != nil:
			side = "both"
		case ra == nil:
			first, side = rb, "b"
		}
		cells := map[string]string{"name": text(first.Name), "workers": strconv.Itoa(first.Workers)}
		values := map[string]float64{"workers": float64(first.Workers)}
		for _, s := range []struct {
			suffix string
			r      *row
		}{{"-a", ra}, {"-b", rb}} {
			var median, ns, allocs *float64
			if s.r != nil {
				median, ns, allocs = s.r.Median, s.r.Ns, s.r.Allocs
			}
			cells["median"+s.suffix] = scaled(median, countUnits)
			cells["ns"+s.suffix] = scaled(ns, nanoUnits)
			cells["allocs"+s.suffix] = scaled(allocs, countUnits)
			for col, x := range map[string]*float64{"median": median, "ns": ns, "allocs": allocs} {
				if x != nil {
					values[col+s.suffix] = *x
				}
			}
		}
		var q *float64
		if ra != nil && rb != nil && ra.Median != nil && rb.Median != nil && *ra.Median != 0 {
			q = f64(*rb.Median / *ra.Median)
			values["ratio-ba"] = *q
		}
		cells["ratio-ba"] = ratio(q)
		v.Rows = append(v.Rows, viewRow{Side: side, NCells: len(v.Cols), Cells: cells, Values: values})
	}
	v.Empty = len(v.Rows) == 0
	return v
}

// fragment is the URL hash of a view, with its keys in the page's order.
func fragment(set, scenario, lib, vs string) string {
	var parts []string
	for _, kv := range [][2]string{{"set", set}, {"scenario", scenario}, {"lib", lib}, {"vs", vs}} {
		if kv[1] != "" {
			parts = append(parts, kv[0]+"="+queryEscape(kv[1]))
		}
	}
	return "#" + strings.Join(parts, "&")
}

// queryEscape encodes s as URLSearchParams does
// (application/x-www-form-urlencoded): it keeps ASCII letters, digits and
// *-._, writes a space as +, and percent-encodes the other bytes of the UTF-8.
func queryEscape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', strings.IndexByte("*-._", c) >= 0:
			b.WriteByte(c)
		case c == ' ':
			b.WriteByte('+')
		default:
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}
