package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/jsonrpc-go/jsonrpc/bench/internal/loadgen"
)

// httpConns are the connection counts of the http scenario.
var httpConns = []int{1, 16}

// An httpTarget is a net/http.Server on loopback serving a peer's handler,
// and conns keep-alive connections of a minimal HTTP/1.1 client (as
// bench/rpcbench's http mode): one request in flight per connection, prebuilt
// request bytes, status line, headers and Content-Length parsed, body
// discarded.
type httpTarget struct {
	srv   *loadgen.Serving
	conns []*httpConn
	reqs  [][]byte // whole HTTP requests
	docs  []string // their bodies
	want  []string // the JSON-RPC response to each
}

type httpConn struct {
	nc   net.Conn
	br   *bufio.Reader
	body []byte
	ops  int64
	errs int64 // error responses seen during a run
	last int
	err  error
}

// newHTTPTarget serves with host on 127.0.0.1:0, connects conns connections
// and checks every request on each.
func newHTTPTarget(host loadgen.Host, docs, want []string, conns int) (*httpTarget, error) {
	if len(docs) == 0 || len(docs) != len(want) {
		return nil, fmt.Errorf("%d requests, %d expected responses", len(docs), len(want))
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	t := &httpTarget{docs: docs, want: want, srv: loadgen.Serve(host, ln)}
	addr := ln.Addr().String()
	for _, doc := range docs {
		t.reqs = append(t.reqs, []byte("POST / HTTP/1.1\r\nHost: "+addr+
			"\r\nContent-Type: application/json\r\nContent-Length: "+strconv.Itoa(len(doc))+"\r\n\r\n"+doc))
	}
	for range conns {
		nc, err := net.Dial("tcp", addr)
		if err != nil {
			t.close()
			return nil, err
		}
		t.conns = append(t.conns, &httpConn{nc: nc, br: bufio.NewReaderSize(nc, 16<<10), body: make([]byte, 0, 4096)})
	}
	if err := t.check(); err != nil {
		t.close()
		return nil, err
	}
	return t, nil
}

// check sends every request once on every connection and compares the
// answers with the expected ones.
func (t *httpTarget) check() error {
	for k, c := range t.conns {
		c.nc.SetDeadline(time.Now().Add(drainTimeout))
		for i, req := range t.reqs {
			if _, err := c.nc.Write(req); err != nil {
				return err
			}
			if err := c.readResponse(true); err != nil {
				return fmt.Errorf("connection %d, request %s: %w", k+1, t.docs[i], err)
			}
			if err := sameJSON(c.body, t.want[i]); err != nil {
				return fmt.Errorf("connection %d, request %s: %w", k+1, t.docs[i], err)
			}
		}
		c.nc.SetDeadline(time.Time{})
	}
	return nil
}

// readResponse reads one HTTP/1.1 response: status 200, a Content-Length,
// the connection kept alive. With keep the body is kept in c.body;
// otherwise it is discarded after looking for an error member.
func (c *httpConn) readResponse(keep bool) error {
	status, length, err := loadgen.ReadResponseHead(c.br)
	switch {
	case err != nil:
		return err
	case status != 200:
		return fmt.Errorf("status %d", status)
	case length < 0:
		return errors.New("no Content-Length")
	}
	if !keep {
		if length <= c.br.Size() {
			if b, err := c.br.Peek(length); err == nil && (bytes.Contains(b, errObj) || bytes.Contains(b, errStr)) {
				c.errs++
			}
		}
		_, err := c.br.Discard(length)
		return err
	}
	c.body = slices.Grow(c.body[:0], length)[:length]
	_, err = io.ReadFull(c.br, c.body)
	return err
}

// run is one bounded load loop of d over every connection; the answers are
// checked again afterwards.
func (t *httpTarget) run(d time.Duration) (measurement, error) {
	for _, c := range t.conns {
		c.ops, c.errs, c.err = 0, 0, nil
		c.nc.SetDeadline(time.Now().Add(d + drainTimeout))
	}
	loads := make([]func(*atomic.Bool), len(t.conns))
	for i, c := range t.conns {
		loads[i] = func(stop *atomic.Bool) { c.load(t.reqs, stop) }
	}
	el, mallocs := loadgen.RunFor(d, loads)
	m := measurement{mallocs: mallocs, elapsed: el}
	var errs []error
	for i, c := range t.conns {
		m.calls += c.ops
		if c.err != nil {
			errs = append(errs, fmt.Errorf("connection %d, request %s: %w", i+1, t.docs[c.last], c.err))
		}
		if c.errs > 0 {
			errs = append(errs, fmt.Errorf("connection %d: %d error responses during the run", i+1, c.errs))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return m, err
	}
	return m, t.check()
}

func (c *httpConn) load(reqs [][]byte, stop *atomic.Bool) {
	i := 0
	for !stop.Load() {
		c.last = i
		if _, err := c.nc.Write(reqs[i]); err != nil {
			c.err = err
			return
		}
		if err := c.readResponse(false); err != nil {
			c.err = err
			return
		}
		c.ops++
		if i++; i == len(reqs) {
			i = 0
		}
	}
}

func (t *httpTarget) close() {
	for _, c := range t.conns {
		c.nc.Close()
	}
	t.srv.Stop(drainTimeout)
}
