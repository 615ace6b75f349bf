package main

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/internal/demo"
	"github.com/jsonrpc-go/jsonrpc/stream"
)

// tcpRowDef is a row of the tcp mode: a server served by a stream.Server
// with Line framing and the given ordering, and the requests a window cycles
// through with their responses.
type tcpRowDef struct {
	name   string
	order  stream.Ordering
	async  bool // measured only with -async
	server func() (*jsonrpc.Server, error)
	reqs   []string
	want   []string
}

// tcpRows are the rows of the tcp mode, in table order.
var tcpRows = []tcpRowDef{
	{name: "tcp-inline", order: stream.Ordered, server: demoServer, reqs: demo.Requests, want: mixWant},
	{name: "tcp-concurrent", order: stream.Concurrent, async: true, server: demoServer, reqs: demo.Requests, want: mixWant},
	{name: "tcp-suspend", order: stream.Concurrent, async: true, server: blockingAddServer,
		reqs: []string{addReq}, want: []string{addWant}},
}

// blockingAddServer has "add" registered with jsonrpc.Blocking: every call
// runs on a goroutine of its own.
func blockingAddServer() (*jsonrpc.Server, error) {
	s := jsonrpc.NewServer()
	return s, s.Register("add", func(a, b float64) float64 { return a + b }, jsonrpc.Blocking())
}

// tcp measures pipelined JSON-RPC over loopback TCP to an in-process
// stream.Server, and calc-mix through Process in the same run.
func (e *env) tcp(args []string) int {
	fs := e.flags("tcp", "[-d 1s] [-conns N | -workers N] [-async] [-runs R] [-window K] [-inflight W] [-json FILE]",
		"Measures pipelined JSON-RPC over loopback TCP (Line framing) to an in-process\n"+
			"stream.Server: per connection one goroutine writes windows of K requests, one\n"+
			"Write each, keeping at most W requests unanswered, and one counts the response\n"+
			"lines. Rows: tcp-inline (the default Ordered ordering, methods inline, calculator mix); with -async also\n"+
			"tcp-concurrent (Concurrent ordering, same mix) and tcp-suspend (Concurrent,\n"+
			"\"add\" registered with jsonrpc.Blocking). The row process is the calculator\n"+
			"mix through (*jsonrpc.Server).Process on one goroutine, for reference.\n"+
			"Latency is per window, from its write to its last response.")
	rf := addRunFlags(fs, "duration of each run", "runs per row; the table shows the median")
	d, runs, jsonFile := rf.d, rf.runs, rf.jsonFile
	conns := fs.Int("conns", 1, "connections")
	fs.IntVar(conns, "workers", 1, "same as -conns: the rows' workers are connections")
	async := fs.Bool("async", false, "also measure the Concurrent ordering rows")
	window := fs.Int("window", 64, "requests per write (`K`)")
	inflight := fs.Int("inflight", 256, "most unanswered requests per connection (`W`), a multiple of -window")
	profile := fs.String("cpuprofile", "", "write a CPU profile of the measured runs to `FILE`")
	if code, ok := e.parse(fs, args); !ok {
		return code
	}
	if msg := rf.problem(); msg != "" {
		return e.badFlag(fs, msg)
	}
	switch {
	case *conns < 1:
		return e.badFlag(fs, "-conns must be at least 1")
	case *window < 1:
		return e.badFlag(fs, "-window must be at least 1")
	case *inflight < *window || *inflight%*window != 0:
		return e.badFlag(fs, "-inflight must be a positive multiple of -window")
	}

	// Every row is built and checked before anything is measured.
	ref := calcMix
	ref.name = "process"
	proc, err := ref.target(syncEntry)
	if err != nil {
		return e.refuse(err)
	}
	var targets []*tcpTarget
	defer func() {
		for _, t := range targets {
			t.close()
		}
	}()
	for _, def := range e.tcpRows {
		if def.async && !*async {
			continue
		}
		t, err := newTCPTarget(def, *conns, *window, *inflight)
		if err != nil {
			return e.refuse(err)
		}
		targets = append(targets, t)
	}
	if len(targets) == 0 {
		return e.refuse(errors.New("no tcp rows"))
	}
	calib, err := clientAllocs(*conns, *window, *inflight, min(*d, 200*time.Millisecond))
	if err != nil {
		return e.refuse(fmt.Errorf("calibrating the load generator: %w", err))
	}
	fmt.Fprintf(e.stderr, "load generator alone (against a server that answers without allocating): %.4f allocs/req\n", calib)

	stopProfile, err := startProfile(*profile)
	if err != nil {
		fmt.Fprintln(e.stderr, "rpcbench:", err)
		return 1
	}
	procMs := make([]Measurement, 0, *runs)
	tcpMs := make([][]Measurement, len(targets))
	lats := make([]*latHist, len(targets))
	for i := range lats {
		lats[i] = new(latHist)
	}
	for k := range *runs {
		m, err := e.measure(proc, 1, *d, k+1, *runs)
		if err != nil {
			stopProfile()
			return e.refuse(err)
		}
		procMs = append(procMs, m)
		for i, t := range targets {
			fmt.Fprintf(e.stderr, "running %s conns=%d run %d/%d... ", t.name, *conns, k+1, *runs)
			m, lat, err := t.measure(*d)
			if err != nil {
				fmt.Fprintln(e.stderr, "failed")
				stopProfile()
				return e.refuse(err)
			}
			e.netProgress(m, lat)
			tcpMs[i] = append(tcpMs[i], m)
			lats[i].add(lat)
		}
	}
	if err := stopProfile(); err != nil {
		fmt.Fprintln(e.stderr, "rpcbench:", err)
		return 1
	}

	rep := newReport("tcp", *d)
	rep.Rows = append(rep.Rows, netRow(proc.Name, 1, procMs, nil, "calc mix through (*jsonrpc.Server).Process on one goroutine, no network"))
	note := tcpAllocNote(calib)
	for i, t := range targets {
		rep.Rows = append(rep.Rows, netRow(t.name, *conns, tcpMs[i], lats[i], note))
	}
	e.netTable(rep, fmt.Sprintf("pipelined Line-framed JSON-RPC over loopback TCP, window %d, at most %d unanswered per connection", *window, *inflight), *runs)
	if p, t := rep.find("process", 1), rep.find("tcp-inline", *conns); p != nil && t != nil {
		fmt.Fprintf(e.stdout, "tcp-inline/process: %.2f\n", ratio(t.MedianRPS, p.MedianRPS))
	}
	return e.writeJSON(rep, *jsonFile, 0)
}

// tcpAllocNote is the note of a tcp row on what its allocation count
// includes, given the load generator's own allocs/req.
func tcpAllocNote(calib float64) string {
	if calib < 0.01 {
		return fmt.Sprintf("allocs are the server's: the load generator alone measured %.4f allocs/req", calib)
	}
	return fmt.Sprintf("allocs are process-wide: the load generator alone measured %.4f allocs/req", calib)
}

// A tcpTarget is a row ready to measure: its stream.Server listening on
// loopback and the connections of the load generator, validated.
type tcpTarget struct {
	name     string
	srv      *stream.Server // nil for the calibration's fake server
	ln       net.Listener
	served   chan struct{} // closed when Serve returns
	conns    []*tcpConn
	window   []byte   // K request lines, written with one Write
	want     [][]byte // the response to each line of window
	k        int      // requests per window
	slots    int      // windows in flight at most
	inOrder  bool     // responses come in request order
	validate bool
}

// A tcpConn is one connection of the load generator.
type tcpConn struct {
	nc     net.Conn
	br     *bufio.Reader
	tokens chan struct{}  // one per window that may be sent
	sentAt []atomic.Int64 // per slot: when its window was written, since base
	lat    latHist        // per window
	final  atomic.Int64   // requests written, once the writer has stopped
	wdone  atomic.Bool    // the writer has stopped
	werr   error          // the writer's error
	rerr   error          // the reader's error
	got    int64          // responses read
	end    time.Time      // when the reader read the last response
}

// newTCPTarget starts def's server on 127.0.0.1:0 and connects conns
// connections, each validated with one window.
func newTCPTarget(def tcpRowDef, conns, k, inflight int) (*tcpTarget, error) {
	h, err := def.server()
	if err != nil {
		return nil, fmt.Errorf("row %s: setup: %w", def.name, err)
	}
	srv := &stream.Server{Server: h, Order: def.order}
	t, err := startTCP(def.name, func(ln net.Listener) { srv.Serve(ln) }, def.reqs, def.want, conns, k, inflight)
	if err != nil {
		return nil, err
	}
	t.srv = srv
	t.inOrder = def.order != stream.Concurrent
	t.validate = true
	for i, c := range t.conns {
		if err := t.check(c); err != nil {
			t.close()
			return nil, fmt.Errorf("row %s: connection %d, first window: %w", t.name, i+1, err)
		}
	}
	return t, nil
}

// startTCP listens on loopback, runs serve on the listener and connects the
// load generator.
func startTCP(name string, serve func(net.Listener), reqs, want []string, conns, k, inflight int) (*tcpTarget, error) {
	if len(reqs) == 0 || len(reqs) != len(want) {
		return nil, fmt.Errorf("row %s: %d requests and %d expected responses", name, len(reqs), len(want))
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("row %s: %w", name, err)
	}
	t := &tcpTarget{name: name, ln: ln, served: make(chan struct{}), k: k, slots: inflight / k}
	go func() {
		defer close(t.served)
		serve(ln)
	}()
	for i := range k {
		j := i % len(reqs)
		t.window = append(t.window, reqs[j]...)
		t.window = append(t.window, '\n')
		t.want = append(t.want, []byte(want[j]))
	}
	for range conns {
		nc, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.close()
			return nil, fmt.Errorf("row %s: %w", name, err)
		}
		c := &tcpConn{
			nc:     nc,
			br:     bufio.NewReaderSize(nc, 256<<10),
			tokens: make(chan struct{}, t.slots),
			sentAt: make([]atomic.Int64, t.slots),
		}
		for range t.slots {
			c.tokens <- struct{}{}
		}
		t.conns = append(t.conns, c)
	}
	return t, nil
}

// check writes one window on c and compares every response with the
// expected one: in order unless the ordering is Concurrent, as a set otherwise.
func (t *tcpTarget) check(c *tcpConn) error {
	c.nc.SetDeadline(time.Now().Add(drainTimeout))
	defer c.nc.SetDeadline(time.Time{})
	if _, err := c.nc.Write(t.window); err != nil {
		return err
	}
	got := make([][]byte, t.k)
	for i := range got {
		line, err := c.br.ReadSlice('\n')
		if err != nil {
			return fmt.Errorf("response %d of %d: %w", i+1, t.k, err)
		}
		got[i] = bytes.Clone(bytes.TrimRight(line, "\r\n"))
	}
	var inOrder error
	for i := range got {
		if err := checkResponse(got[i], t.want[i]); err != nil {
			inOrder = fmt.Errorf("request %d (%s): %w", i+1, bytes.TrimSpace(t.window[lineStart(t.window, i):lineStart(t.window, i+1)]), err)
			break
		}
	}
	if inOrder == nil || t.inOrder {
		return inOrder
	}
	// Concurrent ordering may answer out of order: compare the window's
	// responses as a set.
	g := "[" + string(bytes.Join(got, []byte(","))) + "]"
	w := "[" + string(bytes.Join(t.want, []byte(","))) + "]"
	if err := checkResponse([]byte(g), []byte(w)); err != nil {
		return fmt.Errorf("the window's responses, in any order: %w", inOrder)
	}
	return nil
}

// lineStart returns the offset of line i of b.
func lineStart(b []byte, i int) int {
	off := 0
	for ; i > 0; i-- {
		j := bytes.IndexByte(b[off:], '\n')
		if j < 0 {
			return len(b)
		}
		off += j + 1
	}
	return off
}

// measure runs a warm-up and then the measured run of d, after a garbage
// collection, and checks one window on every connection afterwards.
func (t *tcpTarget) measure(d time.Duration) (Measurement, *latHist, error) {
	if _, _, err := t.run(warmup(d)); err != nil {
		return Measurement{}, nil, err
	}
	runtime.GC()
	return t.run(d)
}

// run is one bounded load loop over every connection.
func (t *tcpTarget) run(d time.Duration) (Measurement, *latHist, error) {
	// Everything is allocated, and every goroutine started, before the
	// first memory statistics are read.
	for _, c := range t.conns {
		c.lat.reset()
		c.final.Store(0)
		c.wdone.Store(false)
		c.werr, c.rerr, c.got = nil, nil, 0
		c.nc.SetDeadline(time.Time{})
	}
	var (
		wg    sync.WaitGroup
		base  time.Time // written before begin is closed
		begin = make(chan struct{})
		stop  = make(chan struct{})
	)
	for _, c := range t.conns {
		wg.Add(2)
		go func() {
			defer wg.Done()
			<-begin
			c.write(t, base, stop)
		}()
		go func() {
			defer wg.Done()
			<-begin
			c.read(t, base)
		}()
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	base = time.Now()
	close(begin)
	time.Sleep(d)
	close(stop)
	// A writer blocks only on a server that stopped reading: bound it.
	for _, c := range t.conns {
		c.nc.SetWriteDeadline(time.Now().Add(drainTimeout))
	}
	wg.Wait()
	runtime.ReadMemStats(&after)

	m := Measurement{Workers: len(t.conns), Mallocs: after.Mallocs - before.Mallocs}
	lat := new(latHist)
	var end time.Time
	for i, c := range t.conns {
		if err := cmp.Or(c.werr, c.rerr); err != nil {
			return m, nil, fmt.Errorf("row %s: connection %d of %d: %w", t.name, i+1, len(t.conns), err)
		}
		m.Ops += c.got
		lat.add(&c.lat)
		if c.end.After(end) {
			end = c.end
		}
	}
	m.Calls = m.Ops
	m.Elapsed = end.Sub(base)
	if t.validate {
		for i, c := range t.conns {
			if err := t.check(c); err != nil {
				return m, nil, fmt.Errorf("row %s: connection %d of %d, window after the run: %w", t.name, i+1, len(t.conns), err)
			}
		}
	}
	return m, lat, nil
}

// write is the writer goroutine: it writes windows while it holds a token,
// until stop is closed, then records the requests written and wakes the
// reader.
func (c *tcpConn) write(t *tcpTarget, base time.Time, stop <-chan struct{}) {
	var windows int64
	slot := 0
loop:
	for {
		select {
		case <-stop:
			break loop
		case <-c.tokens:
		}
		c.sentAt[slot].Store(int64(time.Since(base)))
		if slot++; slot == t.slots {
			slot = 0
		}
		if _, err := c.nc.Write(t.window); err != nil {
			c.werr = err
			break
		}
		windows++
		select {
		case <-stop:
			break loop
		default:
		}
	}
	c.final.Store(windows * int64(t.k))
	c.wdone.Store(true)
	// The reader may be waiting for input that will not come.
	c.nc.SetReadDeadline(time.Now())
}

// read is the reader goroutine: it counts response lines, and when a
// window's last response has come it records the window's latency and
// returns its token. It ends when every request written has been answered.
func (c *tcpConn) read(t *tcpTarget, base time.Time) {
	br := c.br
	k := int64(t.k)
	next := k // responses read when the current window is complete
	slot := 0
	draining := false
	for {
		if c.wdone.Load() && c.got >= c.final.Load() {
			if c.got > c.final.Load() {
				c.rerr = fmt.Errorf("%d responses to %d requests", c.got, c.final.Load())
			}
			c.end = time.Now()
			return
		}
		if br.Buffered() == 0 {
			if _, err := br.Peek(1); err != nil {
				if isTimeout(err) && c.wdone.Load() && !draining {
					// Woken by the writer: wait for the answers in
					// flight, for a bounded time.
					draining = true
					c.nc.SetReadDeadline(time.Now().Add(drainTimeout))
					continue
				}
				c.rerr = fmt.Errorf("after %d responses (%d requests written): %w", c.got, c.final.Load(), err)
				c.end = time.Now()
				return
			}
		}
		b, _ := br.Peek(br.Buffered())
		c.got += int64(bytes.Count(b, nl))
		br.Discard(len(b))
		if c.got < next {
			continue
		}
		now := int64(time.Since(base))
		for c.got >= next {
			c.lat.record(now - c.sentAt[slot].Load())
			if slot++; slot == t.slots {
				slot = 0
			}
			next += k
			select {
			case c.tokens <- struct{}{}:
			default:
				c.rerr = fmt.Errorf("%d responses, more than the requests written", c.got)
				c.end = time.Now()
				return
			}
		}
	}
}

var nl = []byte{'\n'}

// close closes the connections and shuts the server down.
func (t *tcpTarget) close() {
	for _, c := range t.conns {
		c.nc.Close()
	}
	if t.srv != nil {
		ctx, cancel := context.WithTimeout(context.Background(), drainTimeout)
		defer cancel()
		if err := t.srv.Shutdown(ctx); err != nil {
			t.srv.Close()
		}
	} else {
		t.ln.Close()
	}
	<-t.served
}

// clientAllocs measures the allocations per request of the load generator
// alone, against a fake server that answers each request line with a canned
// response line and allocates nothing per request.
func clientAllocs(conns, k, inflight int, d time.Duration) (float64, error) {
	t, err := startTCP("calibration", fakeLineServer, demo.Requests, mixWant, conns, k, inflight)
	if err != nil {
		return 0, err
	}
	defer t.close()
	m, _, err := t.measure(d)
	if err != nil {
		return 0, err
	}
	return m.AllocsPerCall(), nil
}

// fakeLineServer answers every line it reads on each connection of ln with
// a fixed response line, until ln is closed.
func fakeLineServer(ln net.Listener) {
	resp := strings.Repeat(mixWant[0]+"\n", 1024)
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		nc, err := ln.Accept()
		if err != nil {
			return
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer nc.Close()
			line := len(mixWant[0]) + 1
			out := []byte(resp)
			buf := make([]byte, 64<<10)
			for {
				n, err := nc.Read(buf)
				if err != nil {
					return
				}
				for lines := bytes.Count(buf[:n], nl); lines > 0; {
					m := min(lines, 1024)
					if _, err := nc.Write(out[:m*line]); err != nil {
						return
					}
					lines -= m
				}
			}
		}()
	}
}
