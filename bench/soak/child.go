package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// The healthy clients and the attacker run in processes of their own, as a
// server's clients do, on machines of their own. In one process, the
// healthy clients would wait behind the attacker's goroutines for the same
// scheduler; and the attacker runs at the lowest CPU priority, so that on a
// machine of few cores the attacking program's own work (reading hundreds
// of megabytes, building large requests) does not count against the
// server: what the attacker makes the server do still does.

// The hidden flags of the children: -child healthy (healthy+callback with
// the client whose calls call back, healthy+streamable with the client of
// Streamable HTTP, healthy+callback+streamable with both), or -child
// attack:NAME, with the
// server's addresses in -child-tcp, -child-http and -child-fasthttp.
const (
	childFlag         = "child"
	childTCPFlag      = "child-tcp"
	childHTTPFlag     = "child-http"
	childFastHTTPFlag = "child-fasthttp"
)

// childReport is what a child writes when it ends: the healthy clients'
// latencies and errors, or what the attack managed.
type childReport struct {
	Clients []childClient `json:",omitempty"`
	Got     string        `json:",omitempty"`
	Broke   string        `json:",omitempty"` // a bound the attacker saw broken
	Err     string        `json:",omitempty"`
}

type childClient struct {
	Name   string
	Lat    []time.Duration
	Ends   []time.Duration // when each call of Lat ended, on a clock the clients share
	Errors []string
}

// runChild runs the child role, against the server at a, for d (the
// attacker; the healthy clients call until their input ends).
func runChild(role string, a addrs, d time.Duration, stdin io.Reader, stdout io.Writer) int {
	var rep childReport
	if name, ok := strings.CutPrefix(role, "attack:"); ok {
		chosen, err := choose(name)
		if err != nil {
			fmt.Fprintln(stdout, err)
			return 2
		}
		lowerPriority()
		ctx, cancel := context.WithTimeout(context.Background(), d)
		defer cancel()
		rep.Got, err = chosen[0].run(ctx, a)
		var b *brokenError
		if errors.As(err, &b) {
			rep.Broke = b.msg
		} else if err != nil {
			rep.Err = err.Error()
		}
	} else if set, ok := parseHealthy(role); ok {
		if rep.Clients, ok = runHealthy(a, set, stdin, stdout); !ok {
			return 2
		}
	} else {
		fmt.Fprintf(stdout, "no child role %q\n", role)
		return 2
	}
	if err := json.NewEncoder(stdout).Encode(rep); err != nil {
		return 2
	}
	return 0
}

// A healthySet says which healthy clients run beside the ones that
// always do.
type healthySet struct {
	callback   bool // the TCP client whose Blocking calls call it back
	streamable bool // the client of Streamable HTTP (/mcp)
}

// role is the child role of the healthy clients of set.
func (set healthySet) role() string {
	role := "healthy"
	if set.callback {
		role += "+callback"
	}
	if set.streamable {
		role += "+streamable"
	}
	return role
}

// parseHealthy is the inverse of healthySet.role.
func parseHealthy(role string) (healthySet, bool) {
	var set healthySet
	rest, ok := strings.CutPrefix(role, "healthy")
	if !ok {
		return set, false
	}
	rest, set.callback = strings.CutPrefix(rest, "+callback")
	rest, set.streamable = strings.CutPrefix(rest, "+streamable")
	return set, rest == ""
}

// runHealthy connects the healthy clients, from healthyFrom: over TCP
// one that calls add on one connection and one that opens a connection
// for each call, and, with set.callback, one whose Blocking calls call it
// back; over HTTP one of each host (fasthttp's when the server has it),
// and, with set.streamable, one of Streamable HTTP. It says "ready", and
// calls until stdin ends.
func runHealthy(a addrs, set healthySet, stdin io.Reader, stdout io.Writer) ([]childClient, bool) {
	var clients []*healthy
	type opener struct {
		open func(string) (*healthy, func(), error)
		addr string
	}
	openers := []opener{{tcpHealthy, a.tcp}, {dialHealthy, a.tcp}, {httpHealthy("HTTP"), a.http}}
	if set.callback {
		openers = append(openers, opener{callbackHealthy, a.tcp})
	}
	if set.streamable {
		openers = append(openers, opener{streamableHealthy, a.http})
	}
	if a.fasthttp != "" {
		openers = append(openers, opener{httpHealthy("fasthttp"), a.fasthttp})
	}
	for _, c := range openers {
		h, closeFn, err := c.open(c.addr)
		if err != nil {
			fmt.Fprintf(stdout, "a healthy client could not connect: %v\n", err)
			return nil, false
		}
		defer closeFn()
		clients = append(clients, h)
	}
	epoch := time.Now()
	for _, h := range clients {
		h.epoch = epoch
	}
	fmt.Fprintln(stdout, "ready")
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for _, h := range clients {
		wg.Go(func() { h.run(ctx) })
	}
	io.Copy(io.Discard, stdin)
	cancel()
	wg.Wait()
	var out []childClient
	for _, h := range clients {
		lat, ends, errs := h.take()
		c := childClient{Name: h.name, Lat: lat, Ends: ends}
		for _, err := range errs {
			c.Errors = append(c.Errors, err.Error())
		}
		out = append(out, c)
	}
	return out, true
}

// lowerPriority gives every thread of the process the lowest CPU priority
// (nice 19). Linux keeps the priority per thread, and threads started
// later inherit it.
func lowerPriority() {
	ents, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return
	}
	for _, e := range ents {
		if tid, err := strconv.Atoi(e.Name()); err == nil {
			syscall.Setpriority(syscall.PRIO_PROCESS, tid, 19)
		}
	}
}

// A child is a running child process.
type child struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	out   *bufio.Reader
}

// startChild starts a child of the role against the server at a.
func startChild(role string, a addrs, d time.Duration) (*child, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(exe, "-"+childFlag, role, "-"+childTCPFlag, a.tcp, "-"+childHTTPFlag, a.http, "-"+childFastHTTPFlag, a.fasthttp, "-d", d.String())
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return &child{cmd: cmd, stdin: stdin, out: bufio.NewReader(stdout)}, nil
}

// startHealthy starts the healthy clients' process, with those of set,
// and waits until all its clients are connected.
func startHealthy(a addrs, set healthySet) (*child, error) {
	c, err := startChild(set.role(), a, 0)
	if err != nil {
		return nil, err
	}
	ready := make(chan error, 1)
	go func() {
		line, err := c.out.ReadString('\n')
		if err == nil && line != "ready\n" {
			err = errors.New(line[:len(line)-1])
		}
		ready <- err
	}()
	select {
	case err = <-ready:
	case <-time.After(30 * time.Second):
		err = errors.New("not ready in 30 s")
	}
	if err != nil {
		c.cmd.Process.Kill()
		c.cmd.Wait()
		return nil, err
	}
	return c, nil
}

// report ends the child's input and returns its report.
func (c *child) report() (childReport, error) {
	c.stdin.Close()
	var rep childReport
	derr := json.NewDecoder(c.out).Decode(&rep)
	if err := c.cmd.Wait(); err != nil {
		return rep, fmt.Errorf("child process: %w", err)
	}
	if derr != nil {
		return rep, fmt.Errorf("child's report: %w", derr)
	}
	return rep, nil
}

// lockedOut returns, for the first call slower than wait of a client in
// rep, a description of it, when the other clients completed at least
// minServed calls while it waited: that client was locked out while the
// others were served. It returns "" when there is none, and also when
// every client waited at once (a stall of the machine, or of the whole
// server, which the latency bound is for).
func (rep childReport) lockedOut(wait time.Duration, minServed int) string {
	for i, cl := range rep.Clients {
		for k, lat := range cl.Lat {
			if lat <= wait || k >= len(cl.Ends) {
				continue
			}
			end := cl.Ends[k]
			start := end - lat
			served := 0
			for j, other := range rep.Clients {
				if j == i {
					continue
				}
				for _, e := range other.Ends {
					if e > start && e < end {
						served++
					}
				}
			}
			if served >= minServed {
				return fmt.Sprintf("the healthy client %s waited %v for a call while the others completed %d", cl.Name, lat.Round(time.Millisecond), served)
			}
		}
	}
	return ""
}

// latencies are the healthy clients' latencies and errors in rep.
func (rep childReport) latencies() (lat []time.Duration, errs []error) {
	for _, cl := range rep.Clients {
		lat = append(lat, cl.Lat...)
		for _, e := range cl.Errors {
			errs = append(errs, fmt.Errorf("%s: %s", cl.Name, e))
		}
	}
	return lat, errs
}
