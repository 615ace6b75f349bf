package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// The attacks on what Streamable HTTP keeps of a session's GET stream:
// how long its response lasts (jsonrpcd -stream-idle, -stream-lifetime),
// and the events kept for its resumption.

// The bounds of the attacks on GET streams.
const (
	timedStreams  = 200                    // the GET streams getStreamTimes holds
	streamIdle    = time.Second            // jsonrpcd -stream-idle under getStreamTimes
	streamLife    = 2 * time.Second        // jsonrpcd -stream-lifetime under getStreamTimes
	streamSlack   = 3 * time.Second        // how late past its bound a stream may end
	keptStreams   = 128                    // the GET streams keptBytes reads
	keptValue     = 256 << 10              // bytes of each value keptBytes publishes
	keptPeriod    = 500 * time.Millisecond // how often: past the store's 64 MiB in all within 2 s
	publishPeriod = 250 * time.Millisecond // getStreamTimes' values, within the idle time
)

// A sessionStream is a session of the attacker's and its GET stream.
type sessionStream struct {
	m      *mcpConn
	id     string // Mcp-Session-Id
	events *bufio.Reader
	opened time.Time
}

// openSessionStream begins a session on m (jsonrpcd -sessions subscribe)
// and opens its GET stream.
func openSessionStream(m *mcpConn) (*sessionStream, error) {
	resp, err := m.do(`{"jsonrpc":"2.0","method":"subscribe","id":1}`, "Accept", "application/json, text/event-stream")
	if err != nil {
		return nil, fmt.Errorf("subscribe: %w", err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	s := &sessionStream{m: m, id: resp.Header.Get("Mcp-Session-Id")}
	if s.id == "" {
		return nil, errors.New("subscribe began no session (is jsonrpcd run with -sessions subscribe?)")
	}
	return s, s.reopen()
}

// reopen opens the session's GET stream again (a GET without
// Last-Event-ID), reading its priming event.
func (s *sessionStream) reopen() error {
	resp, err := s.m.do("", "Accept", "text/event-stream", "Mcp-Session-Id", s.id)
	if err != nil {
		return fmt.Errorf("GET: %w", err)
	}
	s.events, s.opened = bufio.NewReader(resp.Body), time.Now()
	if eid, _, err := readEvent(s.events); err != nil || eid == "" {
		return fmt.Errorf("the GET stream's priming event: %q, %v", eid, err)
	}
	s.m.c.SetDeadline(time.Time{})
	return nil
}

// lasted reads s's stream until its response ends, within bound and
// streamSlack, and returns how long it lasted from its opening; -1 when it
// had not ended by then.
func (s *sessionStream) lasted(bound time.Duration) time.Duration {
	s.m.c.SetReadDeadline(s.opened.Add(bound + streamSlack))
	defer s.m.c.SetReadDeadline(time.Time{})
	if _, err := io.Copy(io.Discard, s.events); err != nil {
		return -1
	}
	return time.Since(s.opened)
}

// holdSessionStreams opens up to n sessions with their GET streams, each
// on a connection of its own, 64 at a time, for up to openWait.
func holdSessionStreams(addr string, n int) ([]*sessionStream, int, error) {
	return holdStreams(n, func(ctx context.Context) (*sessionStream, error) {
		m, err := dialMCP(ctx, addr)
		if err != nil {
			return nil, err
		}
		s, err := openSessionStream(m)
		if err != nil {
			m.c.Close()
		}
		return s, err
	})
}

// publishEvery publishes a value of size bytes on the feed (jsonrpcd's
// publish, over TCP) every period until ctx ends, and returns how many it
// published.
func publishEvery(ctx context.Context, addr string, size int, period time.Duration) (int, error) {
	c, err := dialTCP(ctx, addr)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	r := bufio.NewReaderSize(c, 4<<10)
	req := fmt.Sprintf(`{"jsonrpc":"2.0","method":"publish","params":["x",%d],"id":1}`, size)
	t := time.NewTicker(period)
	defer t.Stop()
	n := 0
	for {
		if _, err := callLine(c, r, req, streamWait); err != nil {
			if ctx.Err() != nil {
				return n, nil
			}
			return n, fmt.Errorf("publish: %w", err)
		}
		n++
		select {
		case <-ctx.Done():
			return n, nil
		case <-t.C:
		}
	}
}

// getStreamTimes holds timedStreams sessions' GET streams (jsonrpcd
// -sessions subscribe -stream-idle 1s -stream-lifetime 2s) and checks
// that each response ends in its time, the stream going on for the client
// to open again: while a value is published every quarter of a second
// (never idle), each ends at its lifetime; opened again, with nothing
// published, each ends once idle. A response that outlives its bound by
// streamSlack is a broken bound. Before, GET streams never ended: 100 held
// 150 s were all open (issue 34).
func getStreamTimes(ctx context.Context, addr, tcp string) (string, error) {
	held, fails, first := holdSessionStreams(addr, timedStreams)
	defer func() {
		for _, s := range held {
			s.m.c.Close()
		}
	}()
	if len(held) == 0 {
		return "", fmt.Errorf("no GET stream: %v", first)
	}
	got := fmt.Sprintf("%d GET streams, %d not", len(held), fails)
	// Busy: each ends at its lifetime.
	pctx, stop := context.WithCancel(context.Background())
	published := make(chan int, 1)
	go func() { n, _ := publishEvery(pctx, tcp, 16, publishPeriod); published <- n }()
	busy := measure(held, streamLife)
	stop()
	n := <-published
	// Idle: opened again, each ends once idle.
	for _, s := range held {
		if err := s.reopen(); err != nil {
			return got, fmt.Errorf("opening a GET stream again: %w", err)
		}
	}
	idle := measure(held, streamIdle)
	got += fmt.Sprintf("; %d values published: busy, they ended after %v (lifetime %v); idle, after %v (idle %v)", n, busy, streamLife, idle, streamIdle)
	hold(ctx)
	if busy.open > 0 || idle.open > 0 {
		return got, broken("%d busy GET streams outlived their lifetime of %v, and %d idle ones their idle time of %v, by %v", busy.open, streamLife, idle.open, streamIdle, streamSlack)
	}
	return got, nil
}

// spread is how long a set of streams lasted, and how many outlived the
// bound they were measured against.
type spread struct {
	min, max time.Duration
	open     int
}

func (s spread) String() string {
	return fmt.Sprintf("%.1f to %.1f s", s.min.Seconds(), s.max.Seconds())
}

// measure reads every stream of held until it ends, and returns how long
// they lasted.
func measure(held []*sessionStream, bound time.Duration) spread {
	times := make([]time.Duration, len(held))
	var wg sync.WaitGroup
	for i, s := range held {
		wg.Go(func() { times[i] = s.lasted(bound) })
	}
	wg.Wait()
	var sp spread
	var ended []time.Duration
	for _, d := range times {
		if d < 0 {
			sp.open++
			continue
		}
		ended = append(ended, d)
	}
	if len(ended) > 0 {
		sp.min, sp.max = slices.Min(ended), slices.Max(ended)
	}
	return sp
}

// keptBytes holds keptStreams sessions' GET streams (jsonrpcd -sessions
// subscribe), each read as fast as it comes, and publishes values of
// keptValue bytes every keptPeriod until ctx ends: every event
// of a GET stream is kept for its resumption, bounded by the store's bytes
// over all streams. Before those were bounded, 128 such sessions held 597
// MiB, and 586 MiB once they had gone (issue 34).
func keptBytes(ctx context.Context, addr, tcp string) (string, error) {
	held, fails, first := holdSessionStreams(addr, keptStreams)
	if len(held) == 0 {
		return "", fmt.Errorf("no GET stream: %v", first)
	}
	var read atomic.Int64
	var wg sync.WaitGroup
	for _, s := range held {
		wg.Go(func() {
			n, _ := io.Copy(io.Discard, s.events)
			read.Add(n)
		})
	}
	n, err := publishEvery(ctx, tcp, keptValue, keptPeriod)
	for _, s := range held {
		s.m.c.Close()
	}
	wg.Wait()
	got := fmt.Sprintf("%d GET streams read, %d not; %d values of %d KiB published, %.0f MB read", len(held), fails, n, keptValue>>10, float64(read.Load())/1e6)
	var ne net.Error
	if err != nil && !(errors.As(err, &ne) && ne.Timeout()) {
		return got, err
	}
	return got, nil
}
