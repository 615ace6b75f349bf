//go:build !js && !wasip1

package main

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
	"github.com/tetratelabs/wazero/sys"

	"github.com/jsonrpc-go/jsonrpc/bench/internal/loadgen"
)

// The wasm mode is native only: it builds rpcbench for the WebAssembly ports
// and runs it.
func init() {
	modes = append(modes, mode{"wasm", "the calc-mix row through Process natively, under js/wasm (Node) and wasip1 (wazero), in one run", (*env).wasm})
}

// selfPkg is the import path of this command, which the wasm mode builds for
// each port.
const selfPkg = "github.com/jsonrpc-go/jsonrpc/bench/rpcbench"

// A wasmPort is a WebAssembly target and how the wasm mode runs a program
// built for it.
type wasmPort struct {
	name string // the row's name
	goos string
	// load prepares the program at wasm to run in dir (the guest's root
	// under wasip1) and returns what the runtime is ("Node v20.20.2") and
	// the function that runs the program once with args, its standard error
	// to the mode's, and waits for it to exit.
	load func(ctx context.Context, e *env, dir, wasm string) (runtimeName string, run func(args []string) error, err error)
}

// wasmPorts are the rows of the wasm mode after the native one, in table
// order.
var wasmPorts = []wasmPort{
	{name: "js/wasm", goos: "js", load: loadNode},
	{name: "wasip1", goos: "wasip1", load: loadWazero},
}

// wasm measures the calculator mix through (*jsonrpc.Server).Process, one
// worker, natively in this process and under each WebAssembly port: it
// builds this command for each port and runs its sync mode on the calc-mix
// row there, one run at a time, and reads the JSON it writes. The runs are
// interleaved (native, js/wasm, wasip1, then again), so that a burst of load
// elsewhere on the machine falls on one run of each row.
func (e *env) wasm(args []string) int {
	fs := e.flags("wasm", "[-d 1s] [-runs R] [-warmup 1s] [-node node] [-json FILE]",
		"Measures the calc-mix row through (*jsonrpc.Server).Process with one worker\n"+
			"natively, and builds rpcbench for GOOS=js GOARCH=wasm and GOOS=wasip1\n"+
			"GOARCH=wasm and runs its sync mode on that row under Node (through Go's\n"+
			"lib/wasm/wasm_exec_node.js) and under wazero (in this process, compiled),\n"+
			"in interleaved runs, each after its own warm-up; then it prints the three\n"+
			"rows with each one's cost per call over the native one's.\n"+
			"It runs the go command: run it inside the repository.")
	rf := addRunFlags(fs, "duration of each run", "runs per row; the table shows the median")
	d, runs, jsonFile := rf.d, rf.runs, rf.jsonFile
	warm := fs.Duration("warmup", time.Second, "warm-up before each run, long enough for V8's optimizing compiler")
	node := fs.String("node", "node", "the Node `program` that runs js/wasm")
	if code, ok := e.parse(fs, args); !ok {
		return code
	}
	if msg := rf.problem(); msg != "" {
		return e.badFlag(fs, msg)
	}
	if *warm <= 0 {
		return e.badFlag(fs, "-warmup must be positive")
	}
	nodeProgram = *node
	e.warm = *warm

	rep := newReport("wasm", *d)
	t, err := e.scaleRow.target(syncEntry)
	if err != nil {
		return e.refuse(err)
	}
	t.Name = "native"

	dir, err := os.MkdirTemp("", "rpcbench-wasm-")
	if err != nil {
		fmt.Fprintln(e.stderr, "rpcbench:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	type loaded struct {
		runtimeName string
		run         func(args []string) error
		rows        []Row // one per run
	}
	ports := make([]loaded, len(wasmPorts))
	for i, p := range wasmPorts {
		wasm := filepath.Join(dir, "rpcbench-"+p.goos+".wasm")
		fmt.Fprintf(e.stderr, "building %s for GOOS=%s GOARCH=wasm...\n", selfPkg, p.goos)
		build := exec.CommandContext(ctx, "go", "build", "-o", wasm, selfPkg)
		build.Env = append(os.Environ(), "GOOS="+p.goos, "GOARCH=wasm")
		if out, err := build.CombinedOutput(); err != nil {
			fmt.Fprintf(e.stderr, "rpcbench: go build for %s: %v\n%s", p.name, err, out)
			return 1
		}
		name, run, err := p.load(ctx, e, dir, wasm)
		if err != nil {
			fmt.Fprintf(e.stderr, "rpcbench: %s: %v\n", p.name, err)
			return 1
		}
		ports[i] = loaded{runtimeName: name, run: run}
	}

	var ms []Measurement
	for k := range *runs {
		m, err := e.measure(t, 1, *d, k+1, *runs)
		if err != nil {
			return e.refuse(err)
		}
		ms = append(ms, m)
		for i, p := range wasmPorts {
			fmt.Fprintf(e.stderr, "%s run %d/%d:\n", p.name, k+1, *runs)
			row, err := runPort(p, dir, ports[i].run, []string{"sync", "-rows", e.scaleRow.name, "-workers", "1",
				"-d", d.String(), "-runs", "1", "-warmup", warm.String()})
			if err != nil {
				fmt.Fprintf(e.stderr, "rpcbench: %s: %v\n", p.name, err)
				return 1
			}
			ports[i].rows = append(ports[i].rows, row)
		}
	}
	native := newRow(t.Name, 1, ms)
	native.Note = rep.GOOS + "/" + rep.GOARCH
	rep.Rows = append(rep.Rows, native)
	for i, p := range wasmPorts {
		rep.Rows = append(rep.Rows, mergeRuns(p.name, ports[i].runtimeName, ports[i].rows))
	}

	e.header(rep, fmt.Sprintf("the calculator mix through Process, 1 worker, warm-up %s, native and WebAssembly", warm), *runs)
	tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "row\truntime\tcalls/s\tmin–max\tns/call\tallocs/call\tover native\t")
	for _, r := range rep.Rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%.1f\t%.2f\t%.1f×\t\n",
			r.Name, r.Note, loadgen.FormatRate(r.MedianRPS), fmtRange(r), r.NsPerCall, r.AllocsPerCall, r.NsPerCall/native.NsPerCall)
	}
	tw.Flush()
	return e.writeJSON(rep, *jsonFile, 0)
}

// runPort runs the program of p once with args and -json, and returns the
// one row it measured.
func runPort(p wasmPort, dir string, run func([]string) error, args []string) (Row, error) {
	result := p.goos + ".json"
	os.Remove(filepath.Join(dir, result))
	if err := run(append(args, "-json", result)); err != nil {
		return Row{}, err
	}
	b, err := os.ReadFile(filepath.Join(dir, result))
	if err != nil {
		return Row{}, err
	}
	var rep Report
	if err := json.Unmarshal(b, &rep); err != nil {
		return Row{}, fmt.Errorf("%s: %v", result, err)
	}
	if len(rep.Rows) != 1 || len(rep.Rows[0].Runs) != 1 || rep.GOOS != p.goos || rep.GOARCH != "wasm" {
		return Row{}, fmt.Errorf("%s: %d rows from %s/%s, want one row of one run from %s/wasm", result, len(rep.Rows), rep.GOOS, rep.GOARCH, p.goos)
	}
	return rep.Rows[0], nil
}

// mergeRuns makes one row, at one worker, of rows of one run each: the
// median and range of their rates, and their allocations per call weighted
// by their rates (the runs are of equal length, so by their calls).
func mergeRuns(name, note string, rows []Row) Row {
	r := Row{Name: name, Workers: 1, Note: note}
	var allocs, weight float64
	for _, rw := range rows {
		r.Runs = append(r.Runs, rw.Runs...)
		allocs += rw.AllocsPerCall * rw.MedianRPS
		weight += rw.MedianRPS
	}
	r.MedianRPS = loadgen.Median(r.Runs)
	r.MinRPS, r.MaxRPS = slices.Min(r.Runs), slices.Max(r.Runs)
	if r.MedianRPS > 0 {
		r.NsPerCall = 1e9 / r.MedianRPS
	}
	if weight > 0 {
		r.AllocsPerCall = allocs / weight
	}
	return r
}

// nodeProgram is the wasm mode's -node.
var nodeProgram = "node"

// loadNode prepares a js/wasm program to run under Node, as Go's
// go_js_wasm_exec runs it, in dir.
func loadNode(ctx context.Context, e *env, dir, wasm string) (string, func([]string) error, error) {
	ver, err := exec.CommandContext(ctx, nodeProgram, "--version").Output()
	if err != nil {
		return "", nil, fmt.Errorf("%s --version: %v", nodeProgram, err)
	}
	goroot, err := exec.CommandContext(ctx, "go", "env", "GOROOT").Output()
	if err != nil {
		return "", nil, fmt.Errorf("go env GOROOT: %v", err)
	}
	execJS := filepath.Join(strings.TrimSpace(string(goroot)), "lib", "wasm", "wasm_exec_node.js")
	run := func(args []string) error {
		cmd := exec.CommandContext(ctx, nodeProgram, append([]string{"--stack-size=8192", execJS, wasm}, args...)...)
		cmd.Dir = dir
		cmd.Stdout = io.Discard // the table; the JSON is read
		cmd.Stderr = e.stderr   // the progress line
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("node: %v", err)
		}
		return nil
	}
	return "Node " + strings.TrimSpace(string(ver)), run, nil
}

// loadWazero compiles a wasip1 program with wazero's compiler, once, to run
// in this process with dir mounted as the guest's root, with the host's
// clocks, sleep and randomness. The runtime lives until ctx is done.
func loadWazero(ctx context.Context, e *env, dir, wasm string) (string, func([]string) error, error) {
	bin, err := os.ReadFile(wasm)
	if err != nil {
		return "", nil, err
	}
	r := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigCompiler())
	context.AfterFunc(ctx, func() { r.Close(context.Background()) })
	wasi_snapshot_preview1.MustInstantiate(ctx, r)
	fmt.Fprintf(e.stderr, "compiling %s with wazero...\n", filepath.Base(wasm))
	mod, err := r.CompileModule(ctx, bin)
	if err != nil {
		return "", nil, err
	}
	run := func(args []string) error {
		cfg := wazero.NewModuleConfig().
			WithName(""). // each run a fresh, anonymous instance
			WithArgs(append([]string{"rpcbench"}, args...)...).
			WithStdout(io.Discard).
			WithStderr(e.stderr).
			WithFSConfig(wazero.NewFSConfig().WithDirMount(dir, "/")).
			WithSysWalltime().WithSysNanotime().WithSysNanosleep().
			WithRandSource(rand.Reader)
		m, err := r.InstantiateModule(ctx, mod, cfg)
		if ee, ok := errors.AsType[*sys.ExitError](err); ok && ee.ExitCode() == 0 {
			err = nil
		}
		if m != nil {
			m.Close(ctx)
		}
		if err != nil {
			return fmt.Errorf("wazero: %v", err)
		}
		return nil
	}
	return "wazero " + moduleVersion("github.com/tetratelabs/wazero"), run, nil
}

// moduleVersion is the version of the module path linked into this program,
// or "(devel)".
func moduleVersion(path string) string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, m := range bi.Deps {
			if m.Path == path {
				return m.Version
			}
		}
	}
	return "(devel)"
}
