package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/jsonrpc-go/jsonrpc/bench/internal/loadgen"
	"github.com/jsonrpc-go/jsonrpc/internal/demo"
	"github.com/jsonrpc-go/jsonrpc/stream"
)

// The process workload (-workload process): the server in a process of
// its own, as it runs in production, over one pipelined loopback TCP
// connection driven by the raw-bytes client; the rows are jsonrpcd
// (cmd/jsonrpcd, built for the run) and the floor (this program, run as a
// child that only finds each request's id). The figure that matters is
// the server's own CPU time per request, read from /proc/PID/stat before
// and after each run, which the load generator's share does not blur.

// floorChildEnv makes this program serve the floor on a loopback port and
// print it, instead of measuring.
const floorChildEnv = "PEERS_FLOOR_CHILD"

// serveFloorChild serves, until its standard input ends, the floor or,
// when the environment says "stream", a bare stream.Server with the demo
// services, to tell jsonrpcd's own costs from the library's.
func serveFloorChild() int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, "floor:", err)
		return 1
	}
	fmt.Printf("floor: TCP on %s\n", ln.Addr())
	if f := os.Getenv("PEERS_CHILD_CPUPROFILE"); f != "" {
		f += "." + os.Getenv(floorChildEnv)
		// A profile of the child, FILE.1 (the floor) or FILE.stream,
		// written when its input ends.
		out, err := os.Create(f)
		if err != nil {
			fmt.Fprintln(os.Stderr, "floor:", err)
			return 1
		}
		pprof.StartCPUProfile(out)
		defer func() {
			pprof.StopCPUProfile()
			out.Close()
		}()
	}
	if os.Getenv(floorChildEnv) == "stream" {
		srv := &stream.Server{Server: demo.NewServer()}
		go srv.Serve(ln)
	} else {
		go func() {
			for {
				nc, err := ln.Accept()
				if err != nil {
					return
				}
				go serveLines(nc, floorAnswer)
			}
		}()
	}
	io.Copy(io.Discard, os.Stdin)
	return 0
}

// child is a server process.
type child struct {
	cmd   *exec.Cmd
	stdin io.Closer // its end closes the floor's input: it returns
	addr  string
}

// startChild starts cmd and waits for the line of its standard output
// that begins with prefix and names its TCP address.
func startChild(cmd *exec.Cmd, prefix string) (*child, error) {
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if a, ok := strings.CutPrefix(sc.Text(), prefix); ok {
				found <- a
			}
		}
		close(found)
	}()
	select {
	case a, ok := <-found:
		if ok {
			return &child{cmd: cmd, stdin: stdin, addr: a}, nil
		}
	case <-time.After(30 * time.Second):
	}
	cmd.Process.Kill()
	cmd.Wait()
	return nil, fmt.Errorf("%s said nothing of %q", cmd.Path, prefix)
}

// stop ends the child: the floor's input ends, and it returns; jsonrpcd,
// or a child that does not return in 5 s, is killed.
func (c *child) stop() {
	c.stdin.Close()
	done := make(chan struct{})
	go func() {
		c.cmd.Wait()
		close(done)
	}()
	select {
	case <-done:
		return
	case <-time.After(5 * time.Second):
	}
	c.cmd.Process.Kill()
	<-done
}

// cpu returns the CPU time the child has used.
func (c *child) cpu() time.Duration { return childCPU(c.cmd.Process.Pid) }

// sys counts the child's read and write system calls and context switches.
func (c *child) sys() (syscalls, switches int64) { return childSys(c.cmd.Process.Pid) }

// setupProcess builds jsonrpcd, starts it and the floor as children, and
// dials each.
func setupProcess() ([]*target, []Skip, error) {
	if _, err := os.Stat(fmt.Sprintf("/proc/%d/stat", os.Getpid())); err != nil || childCPU(os.Getpid()) < 0 {
		return nil, nil, errors.New("the process workload reads /proc/PID/stat, which this system lacks")
	}
	dir, err := os.MkdirTemp("", "peers")
	if err != nil {
		return nil, nil, err
	}
	bin := filepath.Join(dir, "jsonrpcd")
	build := exec.Command("go", "build", "-o", bin, "github.com/jsonrpc-go/jsonrpc/cmd/jsonrpcd")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		os.RemoveAll(dir)
		return nil, nil, fmt.Errorf("building jsonrpcd: %w", err)
	}
	self, err := os.Executable()
	if err != nil {
		os.RemoveAll(dir)
		return nil, nil, err
	}
	floor := exec.Command(self)
	floor.Env = append(os.Environ(), floorChildEnv+"=1")
	bare := exec.Command(self)
	bare.Env = append(os.Environ(), floorChildEnv+"=stream")
	rows := []struct {
		name, protocol, note, prefix string
		cmd                          *exec.Cmd
		want                         []string
	}{
		{reference, "JSON-RPC 2.0", "jsonrpcd in its own process: stream.Server, Line framing, Concurrent ordering, demo services",
			"jsonrpcd: TCP (newline-delimited) on ",
			exec.Command(bin, "-http", "", "-tcp", "127.0.0.1:0", "-log-level", "off", "-idle-timeout", "0"), mixWant},
		{"stream.Server", "JSON-RPC 2.0", "this program as a child: a bare stream.Server{Server: demo.NewServer()}, Line framing, Ordered",
			"floor: TCP on ", bare, mixWant},
		{"floor (tokenizer)", "none (floor)", "this program as a child: finds each request's id, writes a fixed answer",
			"floor: TCP on ", floor, floorWant()},
	}
	var ts []*target
	fail := func(err error) ([]*target, []Skip, error) {
		for _, t := range ts {
			t.close()
		}
		os.RemoveAll(dir)
		return nil, nil, err
	}
	for _, r := range rows {
		ch, err := startChild(r.cmd, r.prefix)
		if err != nil {
			return fail(err)
		}
		c, err := dialClient(ch.addr, demo.Requests, r.want, nil)
		if err != nil {
			ch.stop()
			return fail(fmt.Errorf("%s: %w", r.name, err))
		}
		if err := c.check(); err != nil {
			c.close()
			ch.stop()
			return fail(fmt.Errorf("%s: first window: %w", r.name, err))
		}
		last := len(ts) == len(rows)-1
		ts = append(ts, &target{scenario: "tcp", peer: r.name, protocol: r.protocol, note: r.note, run: c.run, cpu: ch.cpu, sys: ch.sys,
			close: func() {
				c.close()
				ch.stop()
				if last {
					os.RemoveAll(dir)
				}
			}})
	}
	return ts, nil, nil
}

// printProcess prints the process workload's table: the server's CPU time
// per call beside the rate, and jsonrpcd's over the floor's.
func printProcess(w io.Writer, rep *Report, runs int) {
	fmt.Fprintf(w, "calculator mix, the server in a process of its own (one loopback TCP connection, windows of %d, at most %d unanswered)\n", window, inflight)
	fmt.Fprintf(w, "%s %s/%s, %s, %d cores, GOMAXPROCS %d; median of %d runs of %s each, interleaved\n\n",
		rep.Go, rep.GOOS, rep.GOARCH, rep.CPU, rep.Cores, rep.GOMAXPROCS, runs, rep.Duration)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "peer\treq/s\tmin–max\tserver CPU ns/call\tsyscalls/call\tswitches/call\t")
	var ref, floor float64
	for _, r := range rep.Rows {
		fmt.Fprintf(tw, "%s\t%s\t%s–%s\t%.0f\t%.3f\t%.3f\t\n", r.Peer, loadgen.FormatRate(r.MedianRPS),
			loadgen.FormatRate(r.MinRPS), loadgen.FormatRate(r.MaxRPS), r.CPUNsPerCall, r.SyscallsPerCall, r.SwitchesPerCall)
		switch {
		case r.Protocol == "none (floor)":
			floor = r.CPUNsPerCall
		case r.Peer == reference:
			ref = r.CPUNsPerCall
		}
	}
	tw.Flush()
	if floor > 0 {
		fmt.Fprintf(w, "\nserver CPU per call, jsonrpcd / floor: %.2f\n", ref/floor)
	}
	fmt.Fprintln(w, "server CPU: the child's utime+stime from /proc/PID/stat (10 ms ticks) over the runs / calls")
	fmt.Fprintln(w, "syscalls: the child's read and write system calls (syscr+syscw, /proc/PID/io); switches: its threads' context switches (/proc/PID/task/*/status); each over the runs / calls")
	for _, r := range rep.Rows {
		fmt.Fprintf(w, "  %s [%s]: %s\n", r.Peer, r.Protocol, strings.TrimSuffix(r.Note, "; allocs are process-wide (server and client) Mallocs delta / calls"))
	}
}
