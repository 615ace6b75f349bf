package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"sync"
	"time"
)

// A healthy client calls the server at a steady pace over a connection it
// opened before the attack, and records each call's latency and when it
// ended.
type healthy struct {
	name  string
	call  func(id int) error // one call and its answer, checked
	epoch time.Time          // what the ends count from, the same for every client

	mu   sync.Mutex // protects the fields below
	lat  []time.Duration
	ends []time.Duration // since epoch
	errs []error
}

// healthyPace is the time between the calls of a healthy client.
const healthyPace = 5 * time.Millisecond

// callTimeout bounds one healthy call: a call slower than this is a failure.
const callTimeout = 10 * time.Second

// maxHealthyCalls bounds the calls of a healthy client, as the attack's
// time bounds them.
const maxHealthyCalls = 1_000_000

// healthyFrom is the address the healthy clients connect from: 127.0.0.2,
// another client than the attacker, who connects from 127.0.0.1, so that
// the server's shares per client (its connections, its Blocking calls)
// tell them apart, as they would two machines. Linux routes all of
// 127.0.0.0/8 to the loopback interface.
var healthyFrom = &net.TCPAddr{IP: net.IPv4(127, 0, 0, 2)}

// healthyDialer dials from healthyFrom.
var healthyDialer = &net.Dialer{Timeout: 5 * time.Second, LocalAddr: healthyFrom}

// run calls until ctx ends.
func (h *healthy) run(ctx context.Context) {
	for id := 1; id <= maxHealthyCalls && ctx.Err() == nil; id++ {
		start := time.Now()
		err := h.call(id)
		end := time.Now()
		h.mu.Lock()
		if err != nil {
			h.errs = append(h.errs, err)
		} else {
			h.lat = append(h.lat, end.Sub(start))
			h.ends = append(h.ends, end.Sub(h.epoch))
		}
		h.mu.Unlock()
		if err != nil {
			return // the connection is gone; the error is the finding
		}
		select {
		case <-ctx.Done():
		case <-time.After(healthyPace):
		}
	}
}

// take returns the latencies, the ends and the errors so far and starts
// afresh.
func (h *healthy) take() (lat, ends []time.Duration, errs []error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	lat, ends, errs = h.lat, h.ends, h.errs
	h.lat, h.ends, h.errs = nil, nil, nil
	return lat, ends, errs
}

// tcpHealthy calls add over one newline-delimited TCP connection.
func tcpHealthy(addr string) (*healthy, func(), error) {
	c, err := healthyDialer.Dial("tcp", addr)
	if err != nil {
		return nil, nil, err
	}
	r := bufio.NewReader(c)
	h := &healthy{name: "TCP", call: func(id int) error {
		c.SetDeadline(time.Now().Add(callTimeout))
		if _, err := fmt.Fprintf(c, `{"jsonrpc":"2.0","method":"add","params":[%d,1],"id":%d}`+"\n", id, id); err != nil {
			return err
		}
		line, err := r.ReadString('\n')
		if err != nil {
			return err
		}
		return checkAdd(line, id)
	}}
	return h, func() { c.Close() }, nil
}

// httpHealthy returns the opener of a client, of the name, that calls add
// over one HTTP/1.1 keep-alive connection.
func httpHealthy(name string) func(addr string) (*healthy, func(), error) {
	return func(addr string) (*healthy, func(), error) { return httpHealthyAt(name, addr) }
}

func httpHealthyAt(name, addr string) (*healthy, func(), error) {
	tr := &http.Transport{MaxIdleConnsPerHost: 1, MaxConnsPerHost: 1, DialContext: healthyDialer.DialContext}
	hc := &http.Client{Transport: tr, Timeout: callTimeout}
	url := "http://" + addr + "/"
	h := &healthy{name: name, call: func(id int) error {
		body := fmt.Sprintf(`{"jsonrpc":"2.0","method":"add","params":[%d,1],"id":%d}`, id, id)
		resp, err := hc.Post(url, "application/json", bytes.NewReader([]byte(body)))
		if err != nil {
			return err
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return err
		}
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("HTTP %s: %s", resp.Status, b)
		}
		return checkAdd(string(b), id)
	}}
	// Open the connection now, before any attack.
	if err := h.call(0); err != nil {
		return nil, nil, err
	}
	return h, tr.CloseIdleConnections, nil
}

// dialHealthy calls add over a new TCP connection for each call, which
// it closes after the answer: a client that connects while the attack
// holds connections must be served.
func dialHealthy(addr string) (*healthy, func(), error) {
	h := &healthy{name: "TCP, a connection per call", call: func(id int) error {
		c, err := healthyDialer.Dial("tcp", addr)
		if err != nil {
			return err
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(callTimeout))
		if _, err := fmt.Fprintf(c, `{"jsonrpc":"2.0","method":"add","params":[%d,1],"id":%d}`+"\n", id, id); err != nil {
			return err
		}
		line, err := bufio.NewReader(c).ReadString('\n')
		if err != nil {
			return err
		}
		return checkAdd(line, id)
	}}
	if err := h.call(0); err != nil {
		return nil, nil, err
	}
	return h, func() {}, nil
}

// callbackHealthy calls callback over one TCP connection, a Blocking
// method that calls the client's add back before it answers: the client
// answers the server's call, then checks the answer to its own.
func callbackHealthy(addr string) (*healthy, func(), error) {
	c, err := healthyDialer.Dial("tcp", addr)
	if err != nil {
		return nil, nil, err
	}
	r := bufio.NewReader(c)
	h := &healthy{name: "TCP callback", call: func(id int) error {
		c.SetDeadline(time.Now().Add(callTimeout))
		if _, err := fmt.Fprintf(c, `{"jsonrpc":"2.0","method":"callback","params":["add",[%d,1]],"id":%d}`+"\n", id, id); err != nil {
			return err
		}
		for range 2 { // the server's call of add, then the answer
			line, err := r.ReadString('\n')
			if err != nil {
				return err
			}
			var m struct {
				Method string
				Params []int
				ID     json.RawMessage
			}
			if err := json.Unmarshal([]byte(line), &m); err != nil {
				return fmt.Errorf("%v: %.200s", err, line)
			}
			if m.Method == "" {
				return checkAdd(line, id)
			}
			if m.Method != "add" || len(m.Params) != 2 || len(m.ID) == 0 {
				return fmt.Errorf("the server called %.200s", line)
			}
			if _, err := fmt.Fprintf(c, `{"jsonrpc":"2.0","result":%d,"id":%s}`+"\n", m.Params[0]+m.Params[1], m.ID); err != nil {
				return err
			}
		}
		return errors.New("the server called more than once")
	}}
	if err := h.call(0); err != nil {
		c.Close()
		return nil, nil, err
	}
	return h, func() { c.Close() }, nil
}

// checkAdd checks the answer to add(id, 1).
func checkAdd(resp string, id int) error {
	want := fmt.Sprintf(`{"jsonrpc":"2.0","result":%d,"id":%d}`, id+1, id)
	if got := string(bytes.TrimSpace([]byte(resp))); got != want {
		return fmt.Errorf("answer %.200s, want %s", got, want)
	}
	return nil
}

// percentile returns the p-th percentile (0 < p <= 100) of ds, or 0 for none.
func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := int(float64(len(s))*p/100+0.5) - 1
	return s[min(max(i, 0), len(s)-1)]
}
