package nginx_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jsonrpc-go/jsonrpc/deploy/internal/proc"
)

// startSessionRedis starts Debian's redis-server on 127.0.0.1 without
// persistence until the test ends, and returns its address; it skips the
// test when redis-server is missing, unless JSONRPC_REDIS=required.
func startSessionRedis(t *testing.T) string {
	t.Helper()
	const bin = "/usr/bin/redis-server"
	if _, err := os.Stat(bin); err != nil {
		if os.Getenv("JSONRPC_REDIS") == "required" {
			t.Fatalf("redis-server: %v", err)
		}
		t.Skip("redis-server is not installed")
	}
	addr := proc.FreeAddr(t)
	_, port, _ := net.SplitHostPort(addr)
	cmd := exec.Command(bin, "--bind", "127.0.0.1", "--port", port, "--save", "", "--appendonly", "no")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	deadline := time.Now().Add(wait)
	for {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
			return addr
		}
		if time.Now().After(deadline) {
			t.Fatalf("redis-server does not listen on %s", addr)
		}
		time.Sleep(10 * time.Millisecond) // polls for readiness
	}
}

// TestSessionReplicas: two jsonrpcd -replica nN -session-store behind
// nginx. A session's id names the process that began it, and nginx sends
// its requests there; that process is killed and started again while the
// session's GET stream is broken, and the stream resumed with
// Last-Event-ID through nginx replays, from Redis, the events the client
// missed.
func TestSessionReplicas(t *testing.T) {
	redisAddr := startSessionRedis(t)
	bin := proc.Jsonrpcd(t)
	args := func(i int, addr string) []string {
		return []string{"-http", addr, "-tcp", "", "-sessions", "subscribe", "-replica", fmt.Sprintf("n%d", i), "-session-store", "redis://" + redisAddr}
	}
	backends := []string{proc.FreeAddr(t), proc.FreeAddr(t)}
	procs := make([]*process, 2)
	for i, a := range backends {
		procs[i] = start(t, bin, args(i, a)...)
		waitListening(t, "jsonrpcd", a, procs[i].exited, procs[i].out.String)
	}
	addr := startNginx(t, backends)
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	c := &mcpClient{t: t, ctx: ctx, url: "http://" + addr + "/mcp"}
	var sub string
	if err := json.Unmarshal(c.call(`{"jsonrpc":"2.0","method":"subscribe","id":1}`, nil).Result, &sub); err != nil || sub == "" {
		t.Fatalf("subscribe: %q, %v", sub, err)
	}
	owner := -1
	for i, b := range backends {
		if c.node == b {
			owner = i
		}
	}
	if want := fmt.Sprintf("n%d.", owner); !strings.HasPrefix(c.id, want) {
		t.Fatalf("the session %q began on process %d: want the prefix %s", c.id, owner, want)
	}
	c.call(`{"jsonrpc":"2.0","method":"add","params":[1,2],"id":3}`, nil) // fails unless on the owner

	events, stream := c.get("")
	if _, err := events.next(); err != nil {
		t.Fatal(err)
	}
	c.publish("a")
	last := notification(t, events, sub, "a")
	stream.Close()
	c.publish("b")
	c.publish("c")

	// The owner is killed (no shutdown: nothing of it is cleaned up) and
	// started again on its address.
	p := procs[owner]
	p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.exited
	procs[owner] = start(t, bin, args(owner, backends[owner])...)
	waitListening(t, "jsonrpcd", backends[owner], procs[owner].exited, procs[owner].out.String)

	events, _ = c.get(last)
	notification(t, events, sub, "b")
	notification(t, events, sub, "c")
	if ev, err := events.next(); err == nil {
		t.Errorf("after the replay, event %+v; want the end of the stream, whose call ended with its process", ev)
	}
}
