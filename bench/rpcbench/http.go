package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"slices"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/bench/internal/loadgen"
	"github.com/jsonrpc-go/jsonrpc/fasthttprpc"
	"github.com/jsonrpc-go/jsonrpc/httprpc"
	"github.com/jsonrpc-go/jsonrpc/internal/demo"
)

// httpMode measures JSON-RPC over HTTP/1.1 keep-alive connections to an
// in-process net/http server with an httprpc.Handler, driven by a minimal
// HTTP/1.1 client.
func (e *env) httpMode(args []string) int {
	fs := e.flags("http", "[-d 1s] [-conns N | -workers N] [-server net/http|fasthttp] [-runs R] [-json FILE]",
		"Measures JSON-RPC over HTTP/1.1 keep-alive: a net/http.Server on loopback with\n"+
			"httprpc.Handler serving the demo services (or, with -server fasthttp, a\n"+
			"fasthttp.Server with fasthttprpc.Handler; the row is then named fasthttp),\n"+
			"and N connections of a minimal HTTP/1.1 client, each with one request of the\n"+
			"calculator mix in flight.\n"+
			"Latency is per request, from its write to the end of its response.")
	rf := addRunFlags(fs, "duration of each run", "runs; the table shows the median")
	d, runs, jsonFile := rf.d, rf.runs, rf.jsonFile
	conns := fs.Int("conns", 1, "connections, one goroutine and one request in flight each")
	fs.IntVar(conns, "workers", 1, "same as -conns: the row's workers are connections")
	profile := fs.String("cpuprofile", "", "write a CPU profile of the measured runs to `FILE`")
	server := fs.String("server", "net/http", "the HTTP server: net/http (httprpc.Handler) or fasthttp (package fasthttprpc)")
	if code, ok := e.parse(fs, args); !ok {
		return code
	}
	if msg := rf.problem(); msg != "" {
		return e.badFlag(fs, msg)
	}
	if *conns < 1 {
		return e.badFlag(fs, "-conns must be at least 1")
	}
	h, err := e.httpServer()
	if err != nil {
		return e.refuse(fmt.Errorf("row http: setup: %w", err))
	}
	hs, ok := httpServers[*server]
	if !ok {
		return e.badFlag(fs, "-server must be net/http or fasthttp")
	}
	t, err := hs.target(h, *conns)
	if err != nil {
		return e.refuse(err)
	}
	defer t.close()

	stopProfile, err := startProfile(*profile)
	if err != nil {
		fmt.Fprintln(e.stderr, "rpcbench:", err)
		return 1
	}
	var ms []Measurement
	lat := new(latHist)
	for k := range *runs {
		fmt.Fprintf(e.stderr, "running %s conns=%d run %d/%d... ", t.name, *conns, k+1, *runs)
		m, l, err := t.measure(*d)
		if err != nil {
			fmt.Fprintln(e.stderr, "failed")
			stopProfile()
			return e.refuse(err)
		}
		e.netProgress(m, l)
		ms = append(ms, m)
		lat.add(l)
	}
	if err := stopProfile(); err != nil {
		fmt.Fprintln(e.stderr, "rpcbench:", err)
		return 1
	}
	rep := newReport("http", *d)
	rep.Rows = append(rep.Rows, netRow(t.name, *conns, ms, lat,
		"allocs are process-wide: the "+*server+" server's, the handler's and the load generator's"))
	e.netTable(rep, "JSON-RPC over HTTP/1.1 keep-alive on loopback, calculator mix, one request in flight per connection", *runs)
	return e.writeJSON(rep, *jsonFile, 0)
}

// An httpServer is an HTTP server the http mode and the headline measure
// the calculator mix on.
type httpServer struct {
	handler string // what serves, for the headline's description
	target  func(h *jsonrpc.Server, conns int) (*httpTarget, error)
}

// httpServers are the servers by -server name.
var httpServers = map[string]httpServer{
	"net/http": {handler: "httprpc.Handler", target: func(h *jsonrpc.Server, conns int) (*httpTarget, error) {
		return newHTTPTarget("http", &httprpc.Handler{Server: h}, demo.Requests, mixWant, conns)
	}},
	"fasthttp": {handler: "fasthttprpc.Handler", target: func(h *jsonrpc.Server, conns int) (*httpTarget, error) {
		fh := &fasthttprpc.Handler{Server: h}
		return newHostTarget("fasthttp", loadgen.FastHTTP(fh.ServeFastHTTP, fh.ErrorHandler), demo.Requests, mixWant, conns)
	}},
}

// An httpTarget is the http row ready to measure: the server listening on
// loopback and the client's connections, validated.
type httpTarget struct {
	name  string
	srv   *loadgen.Serving
	conns []*httpConn
	reqs  [][]byte // whole HTTP requests, one per JSON-RPC request
	docs  []string // their bodies
	want  [][]byte // the JSON-RPC response to each
}

// An httpConn is one connection of the client.
type httpConn struct {
	nc   net.Conn
	br   *bufio.Reader
	body []byte // the last body read when kept
	lat  latHist
	ops  int64
	last int // the request last answered
	err  error
}

// newHTTPTarget serves h with net/http on 127.0.0.1:0 and connects conns
// connections, each checked with every request.
func newHTTPTarget(name string, h http.Handler, docs, want []string, conns int) (*httpTarget, error) {
	return newHostTarget(name, loadgen.NetHTTP(h), docs, want, conns)
}

// newHostTarget is newHTTPTarget with any server.
func newHostTarget(name string, host loadgen.Host, docs, want []string, conns int) (*httpTarget, error) {
	if len(docs) == 0 || len(docs) != len(want) {
		return nil, fmt.Errorf("row %s: %d requests and %d expected responses", name, len(docs), len(want))
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("row %s: %w", name, err)
	}
	t := &httpTarget{name: name, docs: docs, srv: loadgen.Serve(host, ln)}
	addr := ln.Addr().String()
	for i, doc := range docs {
		req := "POST / HTTP/1.1\r\nHost: " + addr + "\r\nContent-Type: application/json\r\nContent-Length: " +
			strconv.Itoa(len(doc)) + "\r\n\r\n" + doc
		t.reqs = append(t.reqs, []byte(req))
		t.want = append(t.want, []byte(want[i]))
	}
	for range conns {
		nc, err := net.Dial("tcp", addr)
		if err != nil {
			t.close()
			return nil, fmt.Errorf("row %s: %w", name, err)
		}
		t.conns = append(t.conns, &httpConn{nc: nc, br: bufio.NewReaderSize(nc, 16<<10), body: make([]byte, 0, 4096)})
	}
	for i, c := range t.conns {
		if err := t.check(c); err != nil {
			t.close()
			return nil, fmt.Errorf("row %s: connection %d: %w", name, i+1, err)
		}
	}
	return t, nil
}

// check sends every request once on c and compares the responses with the
// expected ones.
func (t *httpTarget) check(c *httpConn) error {
	c.nc.SetDeadline(time.Now().Add(drainTimeout))
	defer c.nc.SetDeadline(time.Time{})
	for i, req := range t.reqs {
		if _, err := c.nc.Write(req); err != nil {
			return err
		}
		if err := c.readResponse(true); err != nil {
			return fmt.Errorf("request %s: %w", t.docs[i], err)
		}
		if err := checkResponse(c.body, t.want[i]); err != nil {
			return fmt.Errorf("request %s: %w", t.docs[i], err)
		}
	}
	return nil
}

// readResponse reads one HTTP/1.1 response: the status must be 200 or 204,
// the body's length given by Content-Length (none for 204), and the
// connection kept alive. The body is kept in c.body when keep is set, and
// discarded otherwise. It allocates nothing on success.
func (c *httpConn) readResponse(keep bool) error {
	status, length, err := loadgen.ReadResponseHead(c.br)
	if err != nil {
		return err
	}
	switch {
	case status != http.StatusOK && status != http.StatusNoContent:
		return fmt.Errorf("status %d", status)
	case length < 0 && status != http.StatusNoContent:
		return fmt.Errorf("status %d without Content-Length", status)
	case length < 0:
		length = 0
	}
	if !keep {
		_, err := c.br.Discard(length)
		return err
	}
	c.body = slices.Grow(c.body[:0], length)[:length]
	_, err = io.ReadFull(c.br, c.body)
	return err
}

// measure runs a warm-up and then the measured run of d, after a garbage
// collection.
func (t *httpTarget) measure(d time.Duration) (Measurement, *latHist, error) {
	if _, _, err := t.run(warmup(d)); err != nil {
		return Measurement{}, nil, err
	}
	runtime.GC()
	return t.run(d)
}

// run is one bounded load loop: every connection sends the requests in
// turn, one in flight, until d has passed; then each is checked with every
// request again.
func (t *httpTarget) run(d time.Duration) (Measurement, *latHist, error) {
	for _, c := range t.conns {
		c.lat.reset()
		c.ops, c.err = 0, nil
		// A server that stops answering fails the run instead of hanging it.
		c.nc.SetDeadline(time.Now().Add(d + drainTimeout + warmup(d)))
	}
	loads := make([]func(*atomic.Bool), len(t.conns))
	for i, c := range t.conns {
		loads[i] = func(stop *atomic.Bool) { c.load(t.reqs, stop) }
	}
	elapsed, mallocs := loadgen.RunFor(d, loads)

	m := Measurement{Workers: len(t.conns), Elapsed: elapsed, Mallocs: mallocs}
	lat := new(latHist)
	for i, c := range t.conns {
		if c.err != nil {
			return m, nil, fmt.Errorf("row %s: connection %d of %d, request %s: %w", t.name, i+1, len(t.conns), t.docs[c.last], c.err)
		}
		m.Ops += c.ops
		lat.add(&c.lat)
	}
	m.Calls = m.Ops
	for i, c := range t.conns {
		if err := t.check(c); err != nil {
			return m, nil, fmt.Errorf("row %s: connection %d of %d, after the run: %w", t.name, i+1, len(t.conns), err)
		}
	}
	return m, lat, nil
}

// load is the loop of one connection.
func (c *httpConn) load(reqs [][]byte, stop *atomic.Bool) {
	i := 0
	for !stop.Load() {
		c.last = i
		t0 := time.Now()
		if _, err := c.nc.Write(reqs[i]); err != nil {
			c.err = err
			return
		}
		if err := c.readResponse(false); err != nil {
			c.err = err
			return
		}
		c.lat.record(int64(time.Since(t0)))
		c.ops++
		if i++; i == len(reqs) {
			i = 0
		}
	}
}

// close closes the client's connections and shuts the server down.
func (t *httpTarget) close() {
	for _, c := range t.conns {
		c.nc.Close()
	}
	t.srv.Stop(drainTimeout)
}
