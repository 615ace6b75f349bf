// Command peers compares the calculator workload of this library's
// benchmarks (the five methods of demo.Requests) through this library and
// through other Go RPC libraries, in one process and one run: over one
// pipelined loopback TCP connection driven by the same raw-bytes client
// (gRPC, the non-JSON-RPC alternative, by its own client over one HTTP/2
// connection), over HTTP/1.1, and in process where a library has a direct
// entry point, against a floor that only finds each request's id.
//
// With -workload real it compares the methods of package realistic
// (createUser, search, getBlock, echoRaw) instead, over one pipelined TCP
// connection per method, through this library (registered with Register,
// as typed methods, and typed with codec/fast), creachadair/jrpc2,
// go-ethereum/rpc and go.lsp.dev/jsonrpc2 serving the same methods.
//
// With -workload process the server runs in a process of its own, as in
// production: jsonrpcd (built for the run), a bare stream.Server and the
// floor, each a child over one pipelined TCP connection, with the child's
// own CPU time per call. PEERS_CHILD_CPUPROFILE=FILE makes the stream.Server
// and floor children write CPU profiles to FILE.stream and FILE.1.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/jsonrpc-go/jsonrpc/bench/internal/loadgen"
)

const reference = "jsonrpc-go"

// Report and Row are bench/rpcbench's JSON shape (mode "peers"), with the
// row's scenario and its ratio to this library added.
type Report struct {
	Date       string `json:"date"`
	Go         string `json:"go"`
	GOOS       string `json:"goos"`
	GOARCH     string `json:"goarch"`
	CPU        string `json:"cpu"`
	Cores      int    `json:"cores"`
	GOMAXPROCS int    `json:"gomaxprocs"`
	Mode       string `json:"mode"`
	Duration   string `json:"duration"`
	Rows       []Row  `json:"rows"`
	Skipped    []Skip `json:"skipped,omitempty"`
}

type Row struct {
	Name          string    `json:"name"` // "scenario peer"
	Workers       int       `json:"workers"`
	Runs          []float64 `json:"runs"`
	MedianRPS     float64   `json:"median_rps"`
	MinRPS        float64   `json:"min_rps"`
	MaxRPS        float64   `json:"max_rps"`
	NsPerCall     float64   `json:"ns_per_call"`
	AllocsPerCall float64   `json:"allocs_per_call"` // process-wide Mallocs delta / calls
	// CPUNsPerCall is the process's CPU time (user and system, server and
	// load generator) over its runs / calls; 0 where it is not measured.
	CPUNsPerCall float64 `json:"cpu_ns_per_call,omitempty"`
	// SyscallsPerCall and SwitchesPerCall are the server's read and write
	// system calls and its threads' context switches over its runs / calls,
	// where the server is a process of its own (the process workload).
	SyscallsPerCall float64 `json:"syscalls_per_call,omitempty"`
	SwitchesPerCall float64 `json:"switches_per_call,omitempty"`
	Note            string  `json:"note,omitempty"`
	// Scenario is "tcp", "http" or "inproc"; Peer the library; RatioToRef
	// the median over this library's median in the same scenario (and, for
	// http, the same number of connections, Workers).
	Scenario   string  `json:"scenario"`
	Peer       string  `json:"peer"`
	RatioToRef float64 `json:"ratio_to_jsonrpc_go"`
	// Protocol is what the row speaks: "JSON-RPC 2.0", "JSON-RPC 1.0",
	// "gRPC (protobuf)", or "none (floor)" for the floor rows.
	Protocol string `json:"protocol"`
}

// Skip is a (scenario, peer) not measured, and why.
type Skip struct {
	Scenario string `json:"scenario"`
	Peer     string `json:"peer"`
	Why      string `json:"why"`
}

// An ownTarget is a row driven by the peer's own client rather than by the
// raw-bytes generator (gRPC: protobuf over HTTP/2). check validates the
// answers; run is one timed run of d that validates them again after.
type ownTarget struct {
	check func() error
	run   func(d time.Duration) (measurement, error)
	close func()
}

// A target is one row ready to measure.
type target struct {
	scenario, peer, note string
	protocol             string // the peer's
	workers              int    // connections of the http scenario; 1 otherwise
	run                  func(d time.Duration) (measurement, error)
	close                func()
	// cpu is the CPU clock of the row's server, when it runs in a process
	// of its own; nil: this process's (processCPU).
	cpu func() time.Duration
	// sys counts the read and write system calls and the context switches
	// of the row's server, when it runs in a process of its own; nil: not
	// counted.
	sys func() (syscalls, switches int64)
}

func main() {
	if os.Getenv(floorChildEnv) != "" {
		os.Exit(serveFloorChild())
	}
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("peers", flag.ContinueOnError)
	fs.SetOutput(stderr)
	d := fs.Duration("d", time.Second, "duration of each run of each row")
	runs := fs.Int("runs", 3, "runs per row, interleaved; the table shows the median")
	jsonFile := fs.String("json", "", "write the results as JSON to `FILE`")
	workload := fs.String("workload", "calc", "`calc`: the calculator mix in every scenario; real: the methods of package realistic over one TCP connection; process: the calculator mix over one TCP connection to jsonrpcd and to the floor, each in a process of its own, with the server's CPU time per call")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *d <= 0 || *runs < 1 || fs.NArg() > 0 || (*workload != "calc" && *workload != "real" && *workload != "process") {
		fmt.Fprintln(stderr, "peers: -d must be positive, -runs at least 1, -workload calc, real or process, no arguments")
		return 2
	}
	set, mode := setup, "peers"
	switch *workload {
	case "real":
		set, mode = setupReal, "peers-real"
	case "process":
		set, mode = setupProcess, "peers-process"
	}
	rep, err := measureAll(set, mode, *d, *runs, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "peers: refusing to measure:", err)
		return 1
	}
	printTable(stdout, rep, *runs)
	if *jsonFile != "" {
		b, err := json.MarshalIndent(rep, "", "  ")
		if err == nil {
			err = os.WriteFile(*jsonFile, append(b, '\n'), 0o644)
		}
		if err != nil {
			fmt.Fprintln(stderr, "peers:", err)
			return 1
		}
	}
	return 0
}

// setup builds and validates every row; it refuses a row whose answers are
// wrong.
func setup() ([]*target, []Skip, error) {
	var ts []*target
	var skips []Skip
	fail := func(err error) ([]*target, []Skip, error) {
		for _, t := range ts {
			t.close()
		}
		return nil, nil, err
	}
	for _, p := range peers {
		switch {
		case p.tcpOwn != nil:
			o, err := p.tcpOwn()
			if err != nil {
				return fail(fmt.Errorf("tcp %s: %w", p.name, err))
			}
			if err := o.check(); err != nil {
				o.close()
				return fail(fmt.Errorf("tcp %s: %w", p.name, err))
			}
			ts = append(ts, &target{scenario: "tcp", peer: p.name, protocol: p.protocol, note: p.tcpNote, run: o.run, close: o.close})
		case p.tcp == nil:
			why := "no server"
			switch {
			case p.tcpSkip != "":
				why = p.tcpSkip
			case p.http != nil:
				why = "HTTP only: no raw TCP server"
			}
			skips = append(skips, Skip{"tcp", p.name, why})
		default:
			srv, err := p.tcp()
			if err != nil {
				return fail(fmt.Errorf("tcp %s: %w", p.name, err))
			}
			c, err := dialClient(srv.addr, srv.reqs, srv.want, srv.frame)
			if err != nil {
				srv.stop()
				return fail(fmt.Errorf("tcp %s: %w", p.name, err))
			}
			if err := c.check(); err != nil {
				c.close()
				srv.stop()
				return fail(fmt.Errorf("tcp %s: first window: %w", p.name, err))
			}
			ts = append(ts, &target{scenario: "tcp", peer: p.name, protocol: p.protocol, note: p.tcpNote, run: c.run,
				close: func() { c.close(); srv.stop() }})
		}
		if p.http == nil {
			skips = append(skips, Skip{"http", p.name, p.httpSkip})
		} else {
			for _, n := range httpConns {
				hp, err := p.http()
				if err != nil {
					return fail(fmt.Errorf("http %s: %w", p.name, err))
				}
				closePeer := func() {
					if hp.close != nil {
						hp.close()
					}
				}
				host := loadgen.NetHTTP(hp.handler)
				if hp.fast != nil {
					host = loadgen.FastHTTP(hp.fast, nil)
				}
				ht, err := newHTTPTarget(host, hp.reqs, hp.want, n)
				if err != nil {
					closePeer()
					return fail(fmt.Errorf("http %s, %d connections: %w", p.name, n, err))
				}
				ts = append(ts, &target{scenario: "http", peer: p.name, protocol: p.protocol, workers: n,
					note: fmt.Sprintf("%s; %d keep-alive connection(s), one request in flight each", p.httpNote, n),
					run:  ht.run, close: func() { ht.close(); closePeer() }})
			}
		}
		if p.inproc == nil {
			skips = append(skips, Skip{"inproc", p.name, p.skipNote})
			continue
		}
		in, err := p.inproc()
		if err != nil {
			return fail(fmt.Errorf("inproc %s: %w", p.name, err))
		}
		closeIn := func() {
			if in.close != nil {
				in.close()
			}
		}
		if err := in.check(); err != nil {
			closeIn()
			return fail(fmt.Errorf("inproc %s: %w", p.name, err))
		}
		ts = append(ts, &target{scenario: "inproc", peer: p.name, protocol: p.protocol, note: p.inNote, close: closeIn,
			run: func(d time.Duration) (measurement, error) { return runInproc(in, d) }})
	}
	// Table order: tcp, http by connections, inproc; peers in their order.
	slices.SortStableFunc(ts, func(a, b *target) int { return scenarioRank(a) - scenarioRank(b) })
	return ts, skips, nil
}

func scenarioRank(t *target) int {
	switch t.scenario {
	case "tcp":
		return 0
	case "http":
		return 1 + t.workers
	}
	return 1 << 20
}

// runInproc calls in.call for d (checking the clock every 256 calls), then
// validates the answers again.
func runInproc(in *inprocTarget, d time.Duration) (measurement, error) {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	var calls int64
	var el time.Duration
	for {
		for i := range 256 {
			in.call(i)
		}
		calls += 256
		if el = time.Since(start); el >= d {
			break
		}
	}
	runtime.ReadMemStats(&after)
	m := measurement{calls: calls, mallocs: after.Mallocs - before.Mallocs, elapsed: el}
	return m, in.check()
}

func measureAll(setup func() ([]*target, []Skip, error), mode string, d time.Duration, runs int, progress io.Writer) (*Report, error) {
	ts, skips, err := setup()
	if err != nil {
		return nil, err
	}
	defer func() {
		for _, t := range ts {
			t.close()
		}
	}()
	ms := make([][]measurement, len(ts))
	// Runs are interleaved so that drift on a shared machine spreads over
	// every row.
	for k := range runs {
		for i, t := range ts {
			fmt.Fprintf(progress, "run %d/%d %s %s... ", k+1, runs, t.scenario, t.peer)
			clock := processCPU
			if t.cpu != nil {
				clock = t.cpu
			}
			var sc, sw int64
			if t.sys != nil {
				sc, sw = t.sys()
			}
			cpu := clock()
			m, err := t.run(d)
			m.cpu = clock() - cpu
			if t.sys != nil {
				sc2, sw2 := t.sys()
				if sc >= 0 && sc2 >= 0 {
					m.syscalls = sc2 - sc
				}
				if sw >= 0 && sw2 >= 0 {
					m.switches = sw2 - sw
				}
			}
			if err != nil {
				fmt.Fprintln(progress, "failed")
				return nil, fmt.Errorf("%s %s, run %d: %w", t.scenario, t.peer, k+1, err)
			}
			fmt.Fprintf(progress, "%s/s\n", loadgen.FormatRate(m.rps()))
			ms[i] = append(ms[i], m)
		}
	}
	rep := &Report{
		Date: time.Now().Format(time.RFC3339), Go: runtime.Version(), GOOS: runtime.GOOS, GOARCH: runtime.GOARCH,
		CPU: loadgen.CPUModel(), Cores: runtime.NumCPU(), GOMAXPROCS: runtime.GOMAXPROCS(0),
		Mode: mode, Duration: d.String(), Rows: []Row{}, Skipped: skips,
	}
	for i, t := range ts {
		r := Row{Name: scenarioLabel(t.scenario, t.workers) + " " + t.peer, Workers: max(t.workers, 1), Scenario: t.scenario, Peer: t.peer,
			Protocol: t.protocol, Note: t.note + "; allocs are process-wide (server and client) Mallocs delta / calls"}
		var calls int64
		var mallocs uint64
		var cpu time.Duration
		var syscalls, switches int64
		for _, m := range ms[i] {
			syscalls += m.syscalls
			switches += m.switches
			r.Runs = append(r.Runs, m.rps())
			calls += m.calls
			mallocs += m.mallocs
			cpu += m.cpu
		}
		r.MedianRPS = loadgen.Median(r.Runs)
		r.MinRPS, r.MaxRPS = slices.Min(r.Runs), slices.Max(r.Runs)
		if r.MedianRPS > 0 {
			r.NsPerCall = 1e9 / r.MedianRPS
		}
		if calls > 0 {
			r.AllocsPerCall = float64(mallocs) / float64(calls)
			r.CPUNsPerCall = float64(cpu.Nanoseconds()) / float64(calls)
			r.SyscallsPerCall = float64(syscalls) / float64(calls)
			r.SwitchesPerCall = float64(switches) / float64(calls)
		}
		rep.Rows = append(rep.Rows, r)
	}
	for i := range rep.Rows {
		r := &rep.Rows[i]
		if ref := rep.find(r.Scenario, r.Workers, reference); ref != nil && ref.MedianRPS > 0 {
			r.RatioToRef = r.MedianRPS / ref.MedianRPS
		}
	}
	return rep, nil
}

func (r *Report) find(scenario string, workers int, peer string) *Row {
	for i := range r.Rows {
		if r.Rows[i].Scenario == scenario && r.Rows[i].Workers == workers && r.Rows[i].Peer == peer {
			return &r.Rows[i]
		}
	}
	return nil
}

func printTable(w io.Writer, rep *Report, runs int) {
	switch rep.Mode {
	case "peers-real":
		printReal(w, rep, runs)
		return
	case "peers-process":
		printProcess(w, rep, runs)
		return
	}
	fmt.Fprintf(w, "calculator mix (demo.Requests: add, addInt, NullableFloatToNullableFloat, Test2, StringMe)\n")
	fmt.Fprintf(w, "%s %s/%s, %s, %d cores, GOMAXPROCS %d; median of %d runs of %s each, interleaved\n",
		rep.Go, rep.GOOS, rep.GOARCH, rep.CPU, rep.Cores, rep.GOMAXPROCS, runs, rep.Duration)
	fmt.Fprintf(w, "tcp: one loopback connection, windows of %d requests per write, at most %d unanswered, same raw-bytes client for every JSON row;\n", window, inflight)
	fmt.Fprintf(w, "  the grpc row: %d concurrent unary calls on one grpc.ClientConn (one HTTP/2 connection), protobuf, grpc-go's own client\n", inflight)
	fmt.Fprintf(w, "http N: net/http.Server on loopback, N HTTP/1.1 keep-alive connections of a minimal raw client, one request in flight each; ns/call is 1/throughput\n\n")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "scenario\tpeer\treq/s\tmin–max\tns/call\tallocs/call\tvs jsonrpc-go\t")
	for _, r := range rep.Rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s–%s\t%.0f\t%.2f\t%.3f×\t\n", r.label(), r.Peer, loadgen.FormatRate(r.MedianRPS),
			loadgen.FormatRate(r.MinRPS), loadgen.FormatRate(r.MaxRPS), r.NsPerCall, r.AllocsPerCall, r.RatioToRef)
	}
	tw.Flush()
	fmt.Fprintln(w, "\njsonrpc-go over each row (median req/s ratio, same scenario):")
	for _, r := range rep.Rows {
		if r.Peer == reference || r.MedianRPS == 0 || r.RatioToRef == 0 {
			continue
		}
		fmt.Fprintf(w, "  %-7s jsonrpc-go / %s = %.2f\n", r.label(), r.Peer, 1/r.RatioToRef)
	}
	fmt.Fprintln(w, "\nprotocol, framing and conditions per row:")
	for _, r := range rep.Rows {
		fmt.Fprintf(w, "  %s %s [%s]: %s\n", r.label(), r.Peer, r.Protocol, strings.TrimSuffix(r.Note, "; allocs are process-wide (server and client) Mallocs delta / calls"))
	}
	for _, s := range rep.Skipped {
		fmt.Fprintf(w, "  %s %s: skipped: %s\n", s.Scenario, s.Peer, s.Why)
	}
	fmt.Fprintln(w, "allocs/call: runtime.MemStats.Mallocs delta over the run / calls, process-wide (tcp rows include the load generator, the tcp floor row shows its share; the grpc row includes grpc-go's client)")
}

// scenarioLabel is the scenario as the table shows it: "http N" with N
// connections for http.
func scenarioLabel(scenario string, workers int) string {
	if scenario == "http" {
		return fmt.Sprintf("http %d", workers)
	}
	return scenario
}

func (r *Row) label() string { return scenarioLabel(r.Scenario, r.Workers) }
