package nginx_test

import (
	"context"
	"fmt"
	"maps"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/client"
	"github.com/jsonrpc-go/jsonrpc/deploy/internal/proc"
	"github.com/jsonrpc-go/jsonrpc/ws"
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
	p := proc.Start(t, bin, "--bind", "127.0.0.1", "--port", port, "--save", "", "--appendonly", "no")
	t.Cleanup(p.Kill)
	proc.WaitListening(t, "redis-server", addr, wait, p.Exited, p.Output)
	return addr
}

// TestSessionReplicas: two jsonrpcd -mcp -replica nN -session-store
// behind nginx. An MCP 2025-11-25 session begun by initialize has an id
// that names the process that began it, and nginx sends its requests
// there; that process is killed and started again while the session's
// GET stream is broken, the session is served by the new process from
// the shared store, and the stream resumed with Last-Event-ID through
// nginx replays, from Redis, the events the client missed. Killed again,
// for good, its session is served by the other process, to which nginx
// routes it then, and a stream resumed there replays what it missed.
func TestSessionReplicas(t *testing.T) {
	redisAddr := startSessionRedis(t)
	bin := proc.Jsonrpcd(t)
	args := func(i int, addr string) []string {
		return []string{"-http", addr, "-tcp", "", "-mcp", "-replica", fmt.Sprintf("n%d", i), "-session-store", "redis://" + redisAddr}
	}
	backends := []string{proc.FreeAddr(t), proc.FreeAddr(t)}
	procs := make([]*process, 2)
	for i, a := range backends {
		procs[i] = start(t, bin, args(i, a)...)
		waitListening(t, "jsonrpcd", a, procs[i].Exited, procs[i].Output)
	}
	addr := startNginx(t, backends)
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	c := &mcpClient{t: t, ctx: ctx, url: "http://" + addr + "/mcp"}
	init := c.call(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"TestSessionReplicas","version":"1"}}}`, nil)
	if !strings.Contains(string(init.Result), `"protocolVersion":"2025-11-25"`) {
		t.Fatalf("initialize answered %s", init.Result)
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
	c.header = http.Header{"Mcp-Protocol-Version": {"2025-11-25"}}
	c.notify(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	sub := c.tool("subscribe", "")
	sub = strings.Trim(sub, `"`)
	if got := c.tool("add", `{"param0":1,"param1":2}`); got != "3" { // fails unless on the owner
		t.Fatalf("tools/call add answered %s", got)
	}

	events, stream := c.get("")
	if _, err := events.next(); err != nil {
		t.Fatal(err)
	}
	publish := func(v string) {
		if got := c.tool("publish", fmt.Sprintf(`{"s":%q,"n":1}`, v)); got != "1" {
			t.Fatalf("publish %s: queued for %s subscribers, want 1", v, got)
		}
	}
	publish("a")
	last := notification(t, events, sub, "a")
	stream.Close()
	publish("b")
	publish("c")

	// The owner is killed (no shutdown: nothing of it is cleaned up) and
	// started again on its address.
	procs[owner].Kill()
	procs[owner] = start(t, bin, args(owner, backends[owner])...)
	waitListening(t, "jsonrpcd", backends[owner], procs[owner].Exited, procs[owner].Output)

	events, _ = c.get(last)
	notification(t, events, sub, "b")
	notification(t, events, sub, "c")
	if ev, err := events.next(); err == nil {
		t.Errorf("after the replay, event %+v; want the end of the stream, whose call ended with its process", ev)
	}
	// The session lives on in the new process, from the store.
	if c.call(`{"jsonrpc":"2.0","id":9,"method":"ping"}`, nil); c.id == "" {
		t.Fatal("the session ended")
	}

	// Subscribed again there, the session's new GET stream gets d; the
	// stream breaks, e is published, and the owner is killed again, for
	// good: nginx sends the session's requests to the other process, a
	// backup of the owner's upstream, which never held the session and
	// revives it from the store, and the stream resumed there replays e,
	// from Redis.
	sub = strings.Trim(c.tool("subscribe", ""), `"`)
	events, stream = c.get("")
	if _, err := events.next(); err != nil {
		t.Fatal(err)
	}
	publish("d")
	last = notification(t, events, sub, "d")
	stream.Close()
	publish("e")
	procs[owner].Kill()
	c.node = backends[1-owner]
	if got := c.tool("add", `{"param0":2,"param1":3}`); got != "5" {
		t.Fatalf("tools/call add on the other process answered %s", got)
	}
	events, _ = c.get(last)
	notification(t, events, sub, "e")
}

// TestBrokerReplicas: nginx in front of three jsonrpcd -broker on one
// redis-server, the issue of a load balancer with state. A WebSocket
// subscriber through nginx stays on one process; publishes are plain
// HTTP calls through nginx, which sends them round-robin to all three;
// the subscriber receives every value, in the order it was published,
// once.
func TestBrokerReplicas(t *testing.T) {
	redisAddr := startSessionRedis(t)
	backends, _ := startJsonrpcd(t, 3, "-log-level", "warn", "-broker", "redis://"+redisAddr)
	addr := startNginx(t, backends)

	notes := make(chan string, 1024)
	handler := jsonrpc.NewServer()
	handler.MustRegister("subscription", func(p struct {
		Subscription string `json:"subscription"`
		Result       string `json:"result"`
	}) {
		notes <- p.Result
	})
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	ch, err := ws.Dial(ctx, "ws://"+addr+"/ws", nil)
	if err != nil {
		t.Fatal(err)
	}
	sub := client.New(ch, client.Serve(handler))
	defer sub.Close()
	if id, err := client.Call[string](ctx, sub, "subscribe", nil); err != nil || id == "" {
		t.Fatalf("subscribe: %q, %v", id, err)
	}

	const values = 500
	up := &upstreams{seen: map[string]int{}}
	pub := client.New(client.HTTP("http://"+addr+"/", &http.Client{Transport: up}))
	defer pub.Close()
	began := time.Now()
	for i := range values {
		if _, err := client.Call[int](ctx, pub, "publish", []any{fmt.Sprint(i), 1}); err != nil {
			t.Fatalf("publish %d: %v", i, err)
		}
	}
	t.Logf("%d publishes in %v", values, time.Since(began))
	up.mu.Lock()
	reached := maps.Clone(up.seen)
	up.mu.Unlock()
	if len(reached) != 3 {
		t.Errorf("the publishes reached %v, want all three processes", reached)
	}
	for i := range values {
		select {
		case v := <-notes:
			if v != fmt.Sprint(i) {
				t.Fatalf("value %d is %s", i, v)
			}
		case <-time.After(wait):
			t.Fatalf("value %d did not come within %v", i, wait)
		}
	}
	select {
	case v := <-notes:
		t.Fatalf("a value past the last: %s", v)
	default:
	}
}

// upstreams is an http.RoundTripper that counts the answers of each
// process behind nginx (X-Upstream).
type upstreams struct {
	mu   sync.Mutex
	seen map[string]int
}

func (u *upstreams) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err == nil {
		u.mu.Lock()
		u.seen[resp.Header.Get("X-Upstream")]++
		u.mu.Unlock()
	}
	return resp, err
}
