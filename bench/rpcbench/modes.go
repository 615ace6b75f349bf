package main

import (
	"errors"
	"flag"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/jsonrpc-go/jsonrpc/bench/internal/loadgen"
)

// runFlags are the flags every measuring mode takes: -d, -runs and -json.
type runFlags struct {
	d        *time.Duration
	runs     *int
	jsonFile *string
}

// addRunFlags defines -d, -runs (default 3, with the mode's wording) and
// -json on fs.
func addRunFlags(fs *flag.FlagSet, dUsage string, runsUsage string) runFlags {
	return runFlags{
		d:        fs.Duration("d", time.Second, dUsage),
		runs:     fs.Int("runs", defaultRuns, runsUsage),
		jsonFile: fs.String("json", "", "write the results as JSON to `FILE`"),
	}
}

// defaultRuns is every mode's -runs: the tables show the median of three
// runs, and their min–max.
const defaultRuns = 3

// problem returns what is wrong with -d or -runs, or "".
func (r runFlags) problem() string {
	switch {
	case *r.d <= 0:
		return "-d must be positive"
	case *r.runs < 1:
		return "-runs must be at least 1"
	}
	return ""
}

// defaultWorkers is 1 and, on a machine with more Ps, GOMAXPROCS.
func defaultWorkers() intList {
	w := intList{1}
	if p := runtime.GOMAXPROCS(0); p > 1 {
		w = append(w, p)
	}
	return w
}

// sync measures (*jsonrpc.Server).Process for each row and worker count.
func (e *env) sync(args []string) int {
	fs := e.flags("sync", "[-d 1s] [-workers 1,2] [-runs R] [-rows a,b] [-warmup D] [-json FILE]",
		"Measures the synchronous entry point (*jsonrpc.Server).Process with W worker\n"+
			"goroutines, each with its own buffer, for each W in -workers and each row:\n"+
			"  "+strings.Join(rowNames(e.syncRows), ", ")+".")
	rf := addRunFlags(fs, "duration of each run", "runs per row and worker count; the table shows the median")
	d, runs, jsonFile := rf.d, rf.runs, rf.jsonFile
	workers := defaultWorkers()
	fs.Var(&workers, "workers", "comma-separated worker `counts`")
	rows := fs.String("rows", "", "comma-separated rows to measure (default all)")
	fs.DurationVar(&e.warm, "warmup", 0, "warm-up before each run (default a tenth of -d, at most 100ms)")
	if code, ok := e.parse(fs, args); !ok {
		return code
	}
	if msg := rf.problem(); msg != "" {
		return e.badFlag(fs, msg)
	}
	defs, err := findRows(e.syncRows, splitList(*rows))
	if err != nil {
		return e.badFlag(fs, err.Error())
	}

	return e.measureRows(newReport("sync", *d), "Process", defs, syncEntry, workers, *d, *runs, *jsonFile, nil)
}

// async measures (*jsonrpc.Server).ProcessAsync. With -shape inline it
// measures the sync rows, whose methods never block, and calc-mix through
// Process in the same run, and prints their ratio; with -shape suspend, rows
// whose methods block, each call waited for.
func (e *env) async(args []string) int {
	fs := e.flags("async", "[-d 1s] [-workers 1,2] [-runs R] [-shape inline|suspend] [-json FILE]",
		"Measures the asynchronous entry point (*jsonrpc.Server).ProcessAsync.\n"+
			"-shape inline: the rows "+strings.Join(rowNames(e.syncRows), ", ")+",\n"+
			"whose methods complete inline, and calc-mix through Process for comparison.\n"+
			"-shape suspend: "+strings.Join(rowNames(suspendRows), ", ")+", whose methods are\n"+
			"registered with jsonrpc.Blocking; each worker waits for each reply.")
	rf := addRunFlags(fs, "duration of each run", "runs per row and worker count; the table shows the median")
	d, runs, jsonFile := rf.d, rf.runs, rf.jsonFile
	workers := defaultWorkers()
	fs.Var(&workers, "workers", "comma-separated worker `counts`")
	shape := fs.String("shape", "inline", "`inline` or suspend")
	if code, ok := e.parse(fs, args); !ok {
		return code
	}
	if msg := rf.problem(); msg != "" {
		return e.badFlag(fs, msg)
	}
	rep := newReport("async-"+*shape, *d)
	switch *shape {
	case "inline":
		ref := e.scaleRow
		ref.name += "/Process"
		ref.via = syncEntry
		defs := append([]rowDef{ref}, e.syncRows...)
		return e.measureRows(rep, "ProcessAsync, methods inline", defs, asyncInlineEntry, workers, *d, *runs, *jsonFile, func() {
			for _, w := range workers {
				p, a := rep.find(ref.name, w), rep.find(e.scaleRow.name, w)
				if p != nil && a != nil {
					fmt.Fprintf(e.stdout, "%s w=%d: ProcessAsync/Process %.2f\n", e.scaleRow.name, w, ratio(a.MedianRPS, p.MedianRPS))
				}
			}
		})
	case "suspend":
		return e.measureRows(rep, "ProcessAsync, each call suspends", suspendRows, asyncWaitEntry, workers, *d, *runs, *jsonFile, nil)
	}
	return e.badFlag(fs, "-shape must be inline or suspend")
}

// measureRows is the body of a mode that measures rows through one entry
// point (sync now; async, tcp and http later): it builds and checks every
// row, then measures each row at each worker count runs times for d each,
// prints the table and writes the JSON.
func (e *env) measureRows(rep *Report, what string, defs []rowDef, ent entry, workers []int, d time.Duration, runs int, jsonFile string, summary func()) int {
	// Every row is built and checked before anything is measured.
	targets := make([]*Target, len(defs))
	for i, def := range defs {
		var err error
		via := ent
		if def.via != nil {
			via = def.via
		}
		if targets[i], err = def.target(via); err != nil {
			return e.refuse(err)
		}
	}
	e.noteOversubscribed(workers)
	for _, t := range targets {
		// Each run measures every worker count back to back, as the scale
		// mode does, so that a burst of load elsewhere on the machine
		// falls on one run of each rather than on all runs of one.
		ms := make([][]Measurement, len(workers))
		for k := range runs {
			for i, w := range workers {
				m, err := e.measure(t, w, d, k+1, runs)
				if err != nil {
					return e.refuse(err)
				}
				ms[i] = append(ms[i], m)
			}
		}
		for i, w := range workers {
			rep.Rows = append(rep.Rows, newRow(t.Name, w, ms[i]))
		}
	}

	e.header(rep, what, runs)
	tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "row\tworkers\tcalls/s\tmin–max\tns/call\tallocs/call\t")
	for _, r := range rep.Rows {
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%.1f\t%.2f\t\n",
			r.Name, r.Workers, loadgen.FormatRate(r.MedianRPS), fmtRange(r), r.NsPerCall, r.AllocsPerCall)
	}
	tw.Flush()
	if summary != nil {
		summary()
	}
	return e.writeJSON(rep, jsonFile, 0)
}

// scale is the release gate: the calc-mix row at 1, 2 and N workers in
// paired runs, failing when median req/s at N over that at 1 is below
// -min-ratio.
func (e *env) scale(args []string) int {
	fs := e.flags("scale", "[-d 1s] [-workers N] [-min-ratio R] [-report-only] [-runs 3] [-json FILE]",
		"The release gate. Measures the "+e.scaleRow.name+" row through Process at 1, 2 and N\n"+
			"workers; each run measures them back to back, so that they share machine\n"+
			"conditions. Exits with status 1 when median req/s at N divided by median\n"+
			"req/s at 1 is below -min-ratio, unless -report-only.")
	rf := addRunFlags(fs, "duration of each measurement", "paired runs")
	d, runs, jsonFile := rf.d, rf.runs, rf.jsonFile
	n := fs.Int("workers", runtime.GOMAXPROCS(0), "`N`, the worker count compared with 1")
	minRatio := fs.Float64("min-ratio", 0, "fail when the N/1 ratio of median req/s is below `R` (0: never)")
	reportOnly := fs.Bool("report-only", false, "print the verdict but never fail on it")
	if code, ok := e.parse(fs, args); !ok {
		return code
	}
	if msg := rf.problem(); msg != "" {
		return e.badFlag(fs, msg)
	}
	switch {
	case *n < 1:
		return e.badFlag(fs, "-workers must be at least 1")
	case !(*minRatio >= 0):
		return e.badFlag(fs, "-min-ratio must be a number >= 0")
	}
	counts := []int{1, 2, *n}
	slices.Sort(counts)
	counts = slices.Compact(counts)
	iN := slices.Index(counts, *n)

	t, err := e.scaleRow.target(syncEntry)
	if err != nil {
		return e.refuse(err)
	}
	e.noteOversubscribed(counts)
	ms := make([][]Measurement, len(counts))
	for k := range *runs {
		for i, w := range counts {
			m, err := e.measure(t, w, *d, k+1, *runs)
			if err != nil {
				return e.refuse(err)
			}
			ms[i] = append(ms[i], m)
		}
	}

	rep := newReport("scale", *d)
	for i, w := range counts {
		rep.Rows = append(rep.Rows, newRow(t.Name, w, ms[i]))
	}
	base := rep.Rows[0].MedianRPS
	v := &ScaleVerdict{
		Row:        t.Name,
		Workers:    *n,
		Ratio:      ratio(rep.Rows[iN].MedianRPS, base),
		PairRatios: make([]float64, *runs),
		MinRatio:   *minRatio,
		ReportOnly: *reportOnly,
	}
	for k := range *runs {
		v.PairRatios[k] = ratio(ms[iN][k].RPS(), ms[0][k].RPS())
	}
	v.Pass = v.Ratio >= v.MinRatio
	rep.Scale = v

	e.header(rep, t.Name+" through Process", *runs)
	tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "workers\tmedian req/s\tmin–max\tratio to 1\tns/call\tallocs/call\t")
	for _, r := range rep.Rows {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%.2f\t%.1f\t%.2f\t\n",
			r.Workers, loadgen.FormatRate(r.MedianRPS), fmtRange(r), ratio(r.MedianRPS, base), r.NsPerCall, r.AllocsPerCall)
	}
	tw.Flush()
	pairs := make([]string, len(v.PairRatios))
	for k, p := range v.PairRatios {
		pairs[k] = fmt.Sprintf("%.2f", p)
	}
	verdict := "pass"
	switch {
	case !v.Pass && v.ReportOnly:
		verdict = "below the minimum (report only)"
	case !v.Pass:
		verdict = "FAIL"
	}
	fmt.Fprintf(e.stdout, "ratio %d/1 of medians: %.2f (pairs: %s); min-ratio %.2f: %s\n",
		*n, v.Ratio, strings.Join(pairs, " "), v.MinRatio, verdict)

	failed := 0
	if !v.Pass && !v.ReportOnly {
		fmt.Fprintf(e.stderr, "rpcbench: scale: %s at %d workers runs %.2f times as fast as at 1, below -min-ratio %.2f\n",
			t.Name, *n, v.Ratio, v.MinRatio)
		failed = 1
	}
	return e.writeJSON(rep, *jsonFile, failed)
}

func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

// measure runs one measurement with a progress line on stderr.
func (e *env) measure(t *Target, workers int, d time.Duration, k, runs int) (Measurement, error) {
	fmt.Fprintf(e.stderr, "running %s w=%d run %d/%d... ", t.Name, workers, k, runs)
	warm := e.warm
	if warm <= 0 {
		warm = warmup(d)
	}
	m, err := MeasureAfter(t, workers, warm, d)
	if err != nil {
		fmt.Fprintln(e.stderr, "failed")
		return m, err
	}
	fmt.Fprintf(e.stderr, "%s req/s, %.1f ns/call, %.2f allocs/call\n", loadgen.FormatRate(m.RPS()), m.NsPerCall(), m.AllocsPerCall())
	return m, nil
}

// header prints the conditions above a table.
func (e *env) header(rep *Report, what string, runs int) {
	cpu := rep.CPU
	if cpu == "" {
		cpu = "unknown CPU"
	}
	fmt.Fprintf(e.stdout, "# %s: %s, %s per run, %d run(s); %s %s/%s, %s, %d cores, GOMAXPROCS=%d\n",
		rep.Mode, what, rep.Duration, runs, rep.Go, rep.GOOS, rep.GOARCH, cpu, rep.Cores, rep.GOMAXPROCS)
}

// noteOversubscribed warns when a worker count exceeds GOMAXPROCS: ns/call
// is then no longer the cost on one core.
func (e *env) noteOversubscribed(workers []int) {
	p := runtime.GOMAXPROCS(0)
	if w := slices.Max(workers); w > p {
		fmt.Fprintf(e.stderr, "note: %d workers on GOMAXPROCS=%d: ns/call above %d workers includes waiting for a core\n", w, p, p)
	}
}

// writeJSON writes rep to path when path is set and returns status, or 1
// when the file cannot be written.
func (e *env) writeJSON(rep *Report, path string, status int) int {
	if path == "" {
		return status
	}
	if err := rep.WriteFile(path); err != nil {
		fmt.Fprintln(e.stderr, "rpcbench:", err)
		return 1
	}
	return status
}

// refuse reports a row that cannot be measured.
func (e *env) refuse(err error) int {
	fmt.Fprintf(e.stderr, "rpcbench: refusing to measure: %v\n", err)
	return 1
}

// flags returns the flag set of a mode, printing errors and usage to stderr.
func (e *env) flags(name, synopsis, about string) *flag.FlagSet {
	fs := flag.NewFlagSet("rpcbench "+name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.Usage = func() {
		fmt.Fprintf(e.stderr, "usage: rpcbench %s %s\n\n%s\n\nflags:\n", name, synopsis, about)
		fs.PrintDefaults()
	}
	return fs
}

// parse parses a mode's args. When it returns false the mode must return
// the status it gives: 0 after -h, 2 after a usage error.
func (e *env) parse(fs *flag.FlagSet, args []string) (int, bool) {
	err := fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return 0, false
	case err != nil: // the flag package printed the error and the usage
		return 2, false
	case fs.NArg() > 0:
		return e.badFlag(fs, fmt.Sprintf("unexpected argument %q", fs.Arg(0))), false
	}
	return 0, true
}

// badFlag reports a usage error and returns status 2.
func (e *env) badFlag(fs *flag.FlagSet, msg string) int {
	fmt.Fprintf(e.stderr, "%s: %s\n", fs.Name(), msg)
	fs.Usage()
	return 2
}

// intList is a flag of comma-separated positive integers, without
// duplicates.
type intList []int

func (l *intList) String() string {
	s := make([]string, len(*l))
	for i, n := range *l {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ",")
}

func (l *intList) Set(v string) error {
	var out intList
	for _, f := range splitList(v) {
		n, err := strconv.Atoi(f)
		if err != nil || n < 1 {
			return fmt.Errorf("%q is not a positive integer", f)
		}
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	if len(out) == 0 {
		return errors.New("empty list")
	}
	*l = out
	return nil
}

// splitList splits a comma-separated list, dropping empty items.
func splitList(s string) []string {
	var out []string
	for f := range strings.SplitSeq(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}
