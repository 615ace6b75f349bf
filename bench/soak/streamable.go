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
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// The attacks on Streamable HTTP (jsonrpcd's /mcp, package streamhttp):
// event streams held open, and sessions left idle.

// The bounds of the attacks on Streamable HTTP. Each opens all its
// streams or sessions, for up to openWait even past the attack's time, so
// that the server holds all of them at once whatever -d and the machine's
// speed, and holds them until the attack's time is up and for at least
// minHold, so that the soak samples the server holding them all.
const (
	maxStreams      = 1000   // streams getStreams and callStreams hold
	maxIdleSessions = 10_000 // sessions idleSessions begins
	openWait        = 30 * time.Second
	minHold         = time.Second
	streamWait      = 10 * time.Second // each exchange, and the published value
)

// hold returns when ctx has ended and minHold has passed.
func hold(ctx context.Context) {
	t := time.NewTimer(minHold)
	defer t.Stop()
	<-ctx.Done()
	<-t.C
}

// An mcpConn is one HTTP/1.1 connection to /mcp, written by hand so that
// each read has a deadline of its own.
type mcpConn struct {
	c    net.Conn
	br   *bufio.Reader
	host string
	wait time.Duration // bounds each exchange's header; 0 means streamWait
}

func dialMCP(ctx context.Context, addr string) (*mcpConn, error) {
	c, err := dialTCP(ctx, addr)
	if err != nil {
		return nil, err
	}
	return &mcpConn{c: c, br: bufio.NewReader(c), host: addr}, nil
}

// do sends a request to /mcp, with the headers (name, value, ...), a POST
// of body when it is not "", a GET otherwise, and reads its answer's
// header, within streamWait (or m.wait).
func (m *mcpConn) do(body string, header ...string) (*http.Response, error) {
	wait := streamWait
	if m.wait > 0 {
		wait = m.wait
	}
	m.c.SetDeadline(time.Now().Add(wait))
	var b strings.Builder
	method := http.MethodGet
	if body != "" {
		method = http.MethodPost
	}
	fmt.Fprintf(&b, "%s /mcp HTTP/1.1\r\nHost: %s\r\n", method, m.host)
	for i := 0; i+1 < len(header); i += 2 {
		fmt.Fprintf(&b, "%s: %s\r\n", header[i], header[i+1])
	}
	if body != "" {
		fmt.Fprintf(&b, "Content-Type: application/json\r\nContent-Length: %d\r\n", len(body))
	}
	b.WriteString("\r\n")
	b.WriteString(body)
	if _, err := io.WriteString(m.c, b.String()); err != nil {
		return nil, err
	}
	resp, err := http.ReadResponse(m.br, nil)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 200))
		resp.Body.Close()
		return nil, &statusError{resp.StatusCode, strings.TrimSpace(string(b))}
	}
	return resp, nil
}

// A statusError is an answer other than 200.
type statusError struct {
	code int
	text string
}

func (e *statusError) Error() string { return fmt.Sprintf("HTTP %d: %.200s", e.code, e.text) }

// readEvent reads the next event of an event stream, skipping comments,
// and returns its id and data.
func readEvent(r *bufio.Reader) (id, data string, err error) {
	seen := false
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return id, data, err
		}
		line = strings.TrimSuffix(line, "\n")
		field, value, _ := strings.Cut(line, ": ")
		switch {
		case line == "":
			if seen {
				return id, data, nil
			}
		case strings.HasPrefix(line, ":"):
		case field == "id":
			id, seen = value, true
		case field == "data":
			data, seen = value, true
		default:
			seen = true
		}
	}
}

// A heldStream is an event stream the attacker holds open.
type heldStream struct {
	m      *mcpConn
	events *bufio.Reader
}

// holdStreams opens up to n streams with open, 64 at a time, for up to
// openWait, and returns those it holds, how many it could not open, and
// the first error.
func holdStreams[S any](n int, open func(context.Context) (S, error)) ([]S, int, error) {
	ctx, cancel := context.WithTimeout(context.Background(), openWait)
	defer cancel()
	var (
		mu    sync.Mutex
		held  []S
		fails int
		first error
		wg    sync.WaitGroup
	)
	sem := make(chan struct{}, 64)
	for range n {
		if ctx.Err() != nil {
			break
		}
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			s, err := open(ctx)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				fails++
				if first == nil {
					first = err
				}
				return
			}
			held = append(held, s)
		})
	}
	wg.Wait()
	return held, fails, first
}

// getStreams begins up to n sessions (jsonrpcd -sessions subscribe: each
// subscribed to the feed), each on a connection of its own, and opens
// each session's GET stream, reading its priming event. Then it publishes
// one value on the feed and reads it from every stream it holds, each
// within streamWait: a stream held open that does not get it is a broken
// bound. It holds them until ctx ends.
func getStreams(ctx context.Context, addr string, n int) (string, error) {
	held, fails, first := holdStreams(n, func(ctx context.Context) (*heldStream, error) {
		m, err := dialMCP(ctx, addr)
		if err != nil {
			return nil, err
		}
		s, err := openGetStream(m)
		if err != nil {
			m.c.Close()
		}
		return s, err
	})
	defer func() {
		for _, s := range held {
			s.m.c.Close()
		}
	}()
	if len(held) == 0 {
		return "", fmt.Errorf("no GET stream: %v", first)
	}
	got := fmt.Sprintf("%d GET streams held, %d not", len(held), fails)
	if first != nil {
		got += fmt.Sprintf(" (first: %.80v)", first)
	}

	// A value published reaches every session's GET stream.
	pub, err := dialMCP(context.Background(), addr)
	if err != nil {
		return got, err
	}
	defer pub.c.Close()
	resp, err := pub.do(`{"jsonrpc":"2.0","method":"publish","params":["x",1],"id":1}`, "Accept", "application/json")
	if err != nil {
		return got, fmt.Errorf("publish: %w", err)
	}
	var answer struct{ Result int }
	err = json.NewDecoder(resp.Body).Decode(&answer)
	resp.Body.Close()
	if err != nil {
		return got, fmt.Errorf("publish: %w", err)
	}
	var reached atomic.Int64
	var wg sync.WaitGroup
	for _, s := range held {
		wg.Go(func() {
			s.m.c.SetReadDeadline(time.Now().Add(streamWait))
			_, data, err := readEvent(s.events)
			var note struct {
				Method string
				Params struct{ Result string }
			}
			if err == nil && json.Unmarshal([]byte(data), &note) == nil && note.Method == "subscription" && note.Params.Result == "x" {
				reached.Add(1)
			}
			s.m.c.SetReadDeadline(time.Time{})
		})
	}
	wg.Wait()
	got += fmt.Sprintf("; a value published, queued for %d, reached %d", answer.Result, reached.Load())
	hold(ctx)
	if int(reached.Load()) < len(held) {
		return got, broken("%d of the %d GET streams held open did not get the value published within %v", len(held)-int(reached.Load()), len(held), streamWait)
	}
	return got, nil
}

// openGetStream begins a session on m with subscribe and opens its GET
// stream on m, reading the stream's priming event.
func openGetStream(m *mcpConn) (*heldStream, error) {
	resp, err := m.do(`{"jsonrpc":"2.0","method":"subscribe","id":1}`, "Accept", "application/json, text/event-stream")
	if err != nil {
		return nil, fmt.Errorf("subscribe: %w", err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	id := resp.Header.Get("Mcp-Session-Id")
	if id == "" {
		return nil, errors.New("subscribe began no session (is jsonrpcd run with -sessions subscribe?)")
	}
	resp, err = m.do("", "Accept", "text/event-stream", "Mcp-Session-Id", id)
	if err != nil {
		return nil, fmt.Errorf("GET: %w", err)
	}
	events := bufio.NewReader(resp.Body)
	if eid, _, err := readEvent(events); err != nil || eid == "" {
		return nil, fmt.Errorf("the GET stream's priming event: %q, %v", eid, err)
	}
	m.c.SetDeadline(time.Time{})
	return &heldStream{m: m, events: events}, nil
}

// callStreams POSTs up to n calls of callback to /mcp, without a session,
// each on a connection of its own, and reads from each event stream the
// server's call back, which it never answers: each method waits, its
// stream open, until ctx ends and the attacker closes the connections.
func callStreams(ctx context.Context, addr string, n int) (string, error) {
	held, fails, first := holdStreams(n, func(ctx context.Context) (*heldStream, error) {
		m, err := dialMCP(ctx, addr)
		if err != nil {
			return nil, err
		}
		s, err := openCallStream(m)
		if err != nil {
			m.c.Close()
		}
		return s, err
	})
	defer func() {
		for _, s := range held {
			s.m.c.Close()
		}
	}()
	if len(held) == 0 {
		return "", fmt.Errorf("no call stream: %v", first)
	}
	got := fmt.Sprintf("%d call streams held, each method waiting, %d not", len(held), fails)
	if first != nil {
		got += fmt.Sprintf(" (first: %.80v)", first)
	}
	hold(ctx)
	return got, nil
}

// openCallStream POSTs a call of callback on m and reads the server's
// call back from its event stream.
func openCallStream(m *mcpConn) (*heldStream, error) {
	resp, err := m.do(`{"jsonrpc":"2.0","method":"callback","params":["ping",{}],"id":1}`, "Accept", "application/json, text/event-stream")
	if err != nil {
		return nil, fmt.Errorf("callback: %w", err)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		resp.Body.Close()
		return nil, fmt.Errorf("callback answered %s, not an event stream", ct)
	}
	events := bufio.NewReader(resp.Body)
	_, data, err := readEvent(events)
	var call struct {
		Method string
		ID     json.RawMessage
	}
	if err != nil || json.Unmarshal([]byte(data), &call) != nil || call.Method != "ping" || len(call.ID) == 0 {
		return nil, fmt.Errorf("the stream's first event: %.200q, %v; want the server's call of ping", data, err)
	}
	m.c.SetDeadline(time.Time{})
	return &heldStream{m: m, events: events}, nil
}

// idleSessions begins up to n sessions with subscribe (jsonrpcd -sessions
// subscribe), from 64 connections kept alive, for up to openWait, and
// leaves them idle until ctx ends.
func idleSessions(ctx context.Context, addr string, n int) (string, error) {
	const conns = 64
	open, cancel := context.WithTimeout(context.Background(), openWait)
	defer cancel()
	var (
		next, begun atomic.Int64
		mu          sync.Mutex
		refused     = map[string]int{}
		wg          sync.WaitGroup
	)
	for range conns {
		wg.Go(func() {
			var m *mcpConn
			defer func() {
				if m != nil {
					m.c.Close()
				}
			}()
			for open.Err() == nil && next.Add(1) <= int64(n) {
				if m == nil {
					var err error
					if m, err = dialMCP(open, addr); err != nil {
						mu.Lock()
						refused[err.Error()]++
						mu.Unlock()
						return
					}
				}
				resp, err := m.do(`{"jsonrpc":"2.0","method":"subscribe","id":1}`, "Accept", "application/json")
				if err == nil {
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.Header.Get("Mcp-Session-Id") == "" {
						err = errors.New("no Mcp-Session-Id")
					}
				}
				if err == nil {
					begun.Add(1)
					continue
				}
				why := err.Error()
				var se *statusError
				if errors.As(err, &se) {
					why = fmt.Sprintf("HTTP %d", se.code)
				} else {
					m.c.Close() // a connection that failed is not reused
					m = nil
				}
				mu.Lock()
				refused[why]++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	got := fmt.Sprintf("%d sessions begun and left idle", begun.Load())
	if len(refused) > 0 {
		got += fmt.Sprintf("; refused: %v", refused)
	}
	hold(ctx)
	return got, nil
}

// streamableHealthy calls add over Streamable HTTP (/mcp), without a
// session, on one HTTP/1.1 keep-alive connection, taking JSON or an event
// stream: the answer must come as JSON, since add sends nothing before it.
func streamableHealthy(addr string) (*healthy, func(), error) {
	tr := &http.Transport{MaxIdleConnsPerHost: 1, MaxConnsPerHost: 1, DialContext: healthyDialer.DialContext}
	hc := &http.Client{Transport: tr, Timeout: callTimeout}
	url := "http://" + addr + "/mcp"
	h := &healthy{name: "Streamable HTTP", call: func(id int) error {
		body := fmt.Sprintf(`{"jsonrpc":"2.0","method":"add","params":[%d,1],"id":%d}`, id, id)
		req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader([]byte(body)))
		if err != nil {
			return err
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := hc.Do(req)
		if err != nil {
			return err
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return err
		}
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/json" {
			return fmt.Errorf("HTTP %s, %s: %.200s", resp.Status, resp.Header.Get("Content-Type"), b)
		}
		return checkAdd(string(b), id)
	}}
	if err := h.call(0); err != nil {
		return nil, nil, err
	}
	return h, tr.CloseIdleConnections, nil
}
