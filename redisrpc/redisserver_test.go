package redisrpc_test

import (
	"bufio"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// redisWait bounds the start and the stop of redis-server.
const redisWait = 10 * time.Second

// startRedis starts redis-server on 127.0.0.1 and a free port, with no
// persistence, and returns its address and a function that stops it
// (also called at the end of the test). The test is skipped when
// redis-server is not installed, unless JSONRPC_REDIS=required, when it
// fails.
func startRedis(t *testing.T) (addr string, stop func()) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr = l.Addr().String()
	l.Close()
	return addr, startRedisOn(t, addr)
}

// startRedisOn starts redis-server at addr, as startRedis does.
func startRedisOn(t *testing.T, addr string) (stop func()) {
	t.Helper()
	stop, _ = launchRedis(t, addr)
	return stop
}

// launchRedis starts redis-server at addr, as startRedis does, and also
// returns its process (for a test that stops it with a signal).
func launchRedis(t *testing.T, addr string) (stop func(), p *os.Process) {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		if os.Getenv("JSONRPC_REDIS") == "required" {
			t.Fatalf("JSONRPC_REDIS=required, and redis-server: %v", err)
		}
		t.Skipf("redis-server: %v (JSONRPC_REDIS=required makes this a failure)", err)
	}
	host, port, _ := net.SplitHostPort(addr)
	if _, err := strconv.Atoi(port); err != nil {
		t.Fatalf("address %q", addr)
	}
	cmd := exec.Command(bin, "--bind", host, "--port", port, "--save", "", "--appendonly", "no",
		"--dir", t.TempDir(), "--logfile", "", "--daemonize", "no")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	ready := make(chan bool, 1)
	var log strings.Builder
	go func() {
		sc := bufio.NewScanner(out)
		said := false
		for sc.Scan() {
			if !said {
				log.WriteString(sc.Text() + "\n")
			}
			if !said && strings.Contains(sc.Text(), "Ready to accept connections") {
				said = true
				ready <- true
			}
		}
		if !said {
			ready <- false
		}
		cmd.Wait()
		close(exited)
	}()
	stopped := false
	stop = func() {
		if stopped {
			return
		}
		stopped = true
		cmd.Process.Kill()
		select {
		case <-exited:
		case <-time.After(redisWait):
			t.Error("redis-server did not exit")
		}
	}
	t.Cleanup(stop)
	select {
	case ok := <-ready:
		if !ok {
			stop()
			t.Fatalf("redis-server ended before it was ready:\n%s", log.String())
		}
	case <-time.After(redisWait):
		stop()
		t.Fatalf("redis-server not ready within %v", redisWait)
	}
	return stop, cmd.Process
}
