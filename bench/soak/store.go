package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// The attack of a session store asleep: jsonrpcd -session-store on a
// redis-server that the soak stops (SIGSTOP) while the sessions jsonrpcd
// holds go on calling.

// The bounds of storeAsleep.
const (
	asleepSessions = 32                     // the sessions that go on calling
	asleepAfter    = 500 * time.Millisecond // Redis is stopped this long into the attack
	asleepCallWait = 2 * time.Second        // a session's call slower than this breaks the bound
)

// redisEnv starts redis-server on a free loopback port, without
// persistence, for jsonrpcd -sessions subscribe -session-store, and stops
// it (SIGSTOP) from asleepAfter into the attack to its end. It returns
// errSkip without redis-server, unless JSONRPC_REDIS=required.
func redisEnv() (*environment, error) {
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		if os.Getenv("JSONRPC_REDIS") == "required" {
			return nil, fmt.Errorf("JSONRPC_REDIS=required, and redis-server: %w", err)
		}
		return nil, fmt.Errorf("%w: no redis-server (JSONRPC_REDIS=required makes it a failure)", errSkip)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := l.Addr().(*net.TCPAddr)
	l.Close()
	cmd := exec.Command(bin, "--bind", "127.0.0.1", "--port", fmt.Sprint(addr.Port), "--save", "", "--appendonly", "no")
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	stop := func() { cmd.Process.Signal(syscall.SIGCONT); cmd.Process.Kill(); cmd.Wait() }
	if err := waitRedis(addr.String(), 10*time.Second); err != nil {
		stop()
		return nil, err
	}
	return &environment{
		args: []string{"-sessions", "subscribe", "-session-store", "redis://" + addr.String()},
		during: func(ctx context.Context) {
			t := time.NewTimer(asleepAfter)
			defer t.Stop()
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			cmd.Process.Signal(syscall.SIGSTOP)
			<-ctx.Done()
			cmd.Process.Signal(syscall.SIGCONT)
		},
		stop: stop,
	}, nil
}

// waitRedis waits until the redis-server at addr answers PING.
func waitRedis(addr string, wait time.Duration) error {
	deadline := time.Now().Add(wait)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.SetDeadline(time.Now().Add(time.Second))
			io.WriteString(c, "PING\r\n")
			line, err := bufio.NewReader(c).ReadString('\n')
			c.Close()
			if err == nil && line == "+PONG\r\n" {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("redis-server at %s did not answer PING in %v", addr, wait)
		}
		time.Sleep(20 * time.Millisecond) // polls for readiness
	}
}

// storeAsleep begins asleepSessions sessions (jsonrpcd -sessions
// subscribe, saved in Redis), each reading its GET stream, while a value
// is published every 100 ms (an event of each stream, kept in Redis); each
// session calls progress, whose answer is an event stream of its own
// (its events kept in Redis too), one call after another, and the
// Redis is stopped meanwhile (SIGSTOP, asleepAfter in). Each call must be
// answered within asleepCallWait: the sessions jsonrpcd holds need
// nothing of Redis to be served. Before, with Redis asleep for 5 s, 4
// sessions made 4 calls in all, the slowest 20 s (issue 34).
func storeAsleep(ctx context.Context, addr, tcp string) (string, error) {
	held, fails, first := holdSessionStreams(addr, asleepSessions)
	defer func() {
		for _, s := range held {
			s.m.c.Close()
		}
	}()
	if len(held) == 0 {
		return "", fmt.Errorf("no session: %v", first)
	}
	for _, s := range held {
		go io.Copy(io.Discard, s.events)
	}
	pctx, stop := context.WithCancel(ctx)
	defer stop()
	go publishEvery(pctx, tcp, 16, 100*time.Millisecond)
	var (
		mu      sync.Mutex
		calls   int
		slowest time.Duration
		failed  error
		wg      sync.WaitGroup
	)
	for _, s := range held {
		wg.Go(func() {
			m, err := dialMCP(ctx, addr)
			if err != nil {
				return
			}
			defer m.c.Close()
			m.wait = asleepCallWait
			for n := 2; ctx.Err() == nil; n++ {
				start := time.Now()
				err := sessionCall(m, s.id, fmt.Sprintf(`{"jsonrpc":"2.0","method":"progress","params":{"steps":2,"_meta":{"progressToken":%d}},"id":%d}`, n, n))
				took := time.Since(start)
				mu.Lock()
				if err == nil {
					calls++
				}
				slowest = max(slowest, took)
				var ne net.Error
				if err != nil && failed == nil && (ctx.Err() == nil || errors.As(err, &ne) && ne.Timeout()) {
					failed = err // a call begun before the end that did not end in time fails too
				}
				mu.Unlock()
				if err != nil {
					return
				}
			}
		})
	}
	wg.Wait()
	got := fmt.Sprintf("%d sessions, %d not; Redis asleep from %v in: %d calls answered as event streams, the slowest %v", len(held), fails, asleepAfter, calls, slowest.Round(time.Millisecond))
	if failed != nil {
		return got, broken("a session's call failed with Redis asleep: %v", failed)
	}
	if slowest > asleepCallWait {
		return got, broken("a session's call took %v with Redis asleep, over %v", slowest.Round(time.Millisecond), asleepCallWait)
	}
	return got, nil
}

// sessionCall POSTs req in session id on m and reads its answer, an event
// stream, to its end, within asleepCallWait.
func sessionCall(m *mcpConn, id, req string) error {
	deadline := time.Now().Add(asleepCallWait)
	resp, err := m.do(req, "Accept", "application/json, text/event-stream", "Mcp-Session-Id", id)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	m.c.SetDeadline(deadline)
	defer m.c.SetDeadline(time.Time{})
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		return err
	}
	if resp.Header.Get("Content-Type") != "text/event-stream" {
		return errors.New("progress answered " + resp.Header.Get("Content-Type") + ", not an event stream")
	}
	return nil
}
