package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The pipelined load generator: per connection one goroutine writes windows
// of window requests (one Write each) while at most inflight requests are
// unanswered, and one goroutine counts response lines. Every peer's
// responses are newline-terminated JSON values, so the same client, with
// the same cost, drives every row; requests differ only where a protocol
// demands it (net/rpc/jsonrpc's 1.0 shape, sourcegraph's varint framing).
const (
	window       = 64
	inflight     = 256
	windows      = 64 // distinct windows cycled; ids 1..windows*window
	drainTimeout = 5 * time.Second
)

// A measurement is one timed run of one row.
type measurement struct {
	calls   int64
	mallocs uint64
	elapsed time.Duration
	cpu     time.Duration // the process's CPU time over the run (measureAll's)
	// syscalls and switches are the server's read and write system calls
	// and context switches over the run, when it runs in a process of its
	// own and they can be read; 0 otherwise.
	syscalls, switches int64
}

func (m measurement) rps() float64 {
	if m.elapsed <= 0 {
		return 0
	}
	return float64(m.calls) / m.elapsed.Seconds()
}

// A tcpClient is one connection of the generator to a peer's server.
type tcpClient struct {
	nc     net.Conn
	br     *bufio.Reader
	wins   [][]byte   // windows of requests, framed, with distinct ids
	want   [][]string // canonical expected response of each request of wins[w]
	framed func(req []byte) []byte
}

// dialClient connects to addr and prepares a window cycling through reqs.
// frame frames one request (nil: a JSON line).
func dialClient(addr string, reqs, want []string, frame func([]byte) []byte) (*tcpClient, error) {
	if len(reqs) == 0 || len(reqs) != len(want) {
		return nil, fmt.Errorf("%d requests, %d expected responses", len(reqs), len(want))
	}
	if frame == nil {
		frame = func(b []byte) []byte { return append(slices.Clip(b), '\n') }
	}
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		return nil, err
	}
	c := &tcpClient{nc: nc, br: bufio.NewReaderSize(nc, 256<<10), framed: frame}
	// Some servers (jrpc2) refuse an id already in flight: every request of
	// the windows in flight has an id of its own.
	for w := range windows {
		var win []byte
		var ws []string
		for i := range window {
			j := i % len(reqs)
			id := w*window + i + 1
			req, err1 := withID(reqs[j], id)
			wnt, err2 := withID(want[j], id)
			if err := errors.Join(err1, err2); err != nil {
				nc.Close()
				return nil, err
			}
			win = append(win, frame([]byte(req))...)
			cw, err := canonical([]byte(wnt))
			if err != nil {
				nc.Close()
				return nil, fmt.Errorf("expected response %s: %w", wnt, err)
			}
			ws = append(ws, cw)
		}
		c.wins = append(c.wins, win)
		c.want = append(c.want, ws)
	}
	return c, nil
}

// check writes one window and compares the responses with the expected
// ones as a multiset of JSON values (servers that run calls concurrently
// may answer out of order).
func (c *tcpClient) check() error {
	c.nc.SetDeadline(time.Now().Add(drainTimeout))
	defer c.nc.SetDeadline(time.Time{})
	if _, err := c.nc.Write(c.wins[0]); err != nil {
		return err
	}
	got := make([]string, window)
	for i := range got {
		line, err := c.br.ReadSlice('\n')
		if err != nil {
			return fmt.Errorf("response %d of %d: %w", i+1, window, err)
		}
		g, err := canonical(line)
		if err != nil {
			return fmt.Errorf("response %d %q: %w", i+1, line, err)
		}
		got[i] = g
	}
	want := slices.Clone(c.want[0])
	slices.Sort(got)
	slices.Sort(want)
	for i := range got {
		if got[i] != want[i] {
			return fmt.Errorf("responses differ: got %s, want %s", got[i], want[i])
		}
	}
	return nil
}

// canonical re-encodes a JSON value with sorted object members.
func canonical(b []byte) (string, error) {
	var v any
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		return "", err
	}
	out, err := json.Marshal(v)
	return string(out), err
}

// run is one bounded load loop of d on c.
func (c *tcpClient) run(d time.Duration) (measurement, error) {
	var (
		wg      sync.WaitGroup
		tokens  = make(chan struct{}, inflight/window)
		stop    = make(chan struct{})
		written int64 // requests written, read after wg.Wait... by the reader via final
		final   = make(chan int64, 1)
		werr    error
		rerr    error
		got     int64
		errs    int
		sample  []byte // the first error response, for the report
		end     time.Time
	)
	for range inflight / window {
		tokens <- struct{}{}
	}
	c.nc.SetDeadline(time.Now().Add(d + drainTimeout))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	wg.Add(2)
	go func() { // writer
		defer wg.Done()
		defer func() { final <- written }()
		for w := 0; ; w = (w + 1) % windows {
			select {
			case <-stop:
				return
			case <-tokens:
			}
			if _, err := c.nc.Write(c.wins[w]); err != nil {
				werr = err
				return
			}
			written += window
		}
	}()
	go func() { // reader
		defer wg.Done()
		defer func() { end = time.Now() }()
		next := int64(window)
		target := int64(-1)
		for {
			if target >= 0 && got >= target {
				if got > target {
					rerr = fmt.Errorf("%d responses to %d requests", got, target)
				}
				return
			}
			if target < 0 {
				select {
				case t := <-final:
					target = t
					continue
				default:
				}
				// Wake up now and then to learn whether the writer stopped.
				c.nc.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
			} else {
				c.nc.SetReadDeadline(time.Now().Add(drainTimeout))
			}
			if c.br.Buffered() == 0 {
				if _, err := c.br.Peek(1); err != nil {
					var ne net.Error
					if errors.As(err, &ne) && ne.Timeout() && target < 0 {
						continue
					}
					rerr = fmt.Errorf("after %d responses: %w", got, err)
					return
				}
			}
			b, _ := c.br.Peek(c.br.Buffered())
			got += int64(bytes.Count(b, []byte{'\n'}))
			// Error responses (2.0 error objects, 1.0 error strings) fail
			// the run; a member split across reads may go unseen.
			n := bytes.Count(b, errObj) + bytes.Count(b, errStr)
			if n > 0 && errs == 0 {
				sample = errorLine(b)
			}
			errs += n
			c.br.Discard(len(b))
			for got >= next {
				next += window
				select {
				case tokens <- struct{}{}:
				default:
				}
			}
		}
	}()
	time.Sleep(d)
	close(stop)
	wg.Wait()
	runtime.ReadMemStats(&after)
	c.nc.SetDeadline(time.Time{})
	m := measurement{calls: got, mallocs: after.Mallocs - before.Mallocs, elapsed: end.Sub(start)}
	if errs > 0 {
		rerr = errors.Join(rerr, fmt.Errorf("%d error responses during the run, the first: %s", errs, sample))
	}
	if err := errors.Join(werr, rerr); err != nil {
		return m, err
	}
	return m, c.check()
}

func (c *tcpClient) close() { c.nc.Close() }

// errorLine returns a copy of the line of b that holds its first error
// member, cut to 300 bytes.
func errorLine(b []byte) []byte {
	i := bytes.Index(b, errObj)
	if j := bytes.Index(b, errStr); i < 0 || (j >= 0 && j < i) {
		i = j
	}
	start := bytes.LastIndexByte(b[:i], '\n') + 1
	end := len(b)
	if k := bytes.IndexByte(b[i:], '\n'); k >= 0 {
		end = i + k
	}
	return bytes.Clone(b[start:min(end, start+300)])
}

var (
	errObj = []byte(`"error":{`)
	errStr = []byte(`"error":"`)
)

// withID replaces the value of the last "id" member of doc, a number, with
// id.
func withID(doc string, id int) (string, error) {
	i := strings.LastIndex(doc, `"id":`)
	if i < 0 {
		return "", fmt.Errorf("no id in %s", doc)
	}
	v := i + len(`"id":`)
	j := v
	for j < len(doc) && (doc[j] >= '0' && doc[j] <= '9') {
		j++
	}
	if j == v {
		return "", fmt.Errorf("id of %s is not a number", doc)
	}
	return doc[:v] + strconv.Itoa(id) + doc[j:], nil
}
