package redisrpc_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/peer"
	"github.com/jsonrpc-go/jsonrpc/protocol/mcp"
	"github.com/jsonrpc-go/jsonrpc/redisrpc"
	"github.com/jsonrpc-go/jsonrpc/streamhttp"
	"github.com/redis/go-redis/v9"
)

// outageServer serves initialize, ping (answered as JSON) and note, which
// sends its caller a notification before it answers, so that its answer
// is an event stream whose events go to the EventStore.
func outageServer() *jsonrpc.Server {
	srv := jsonrpc.NewServer(jsonrpc.AllowUnknownFields())
	srv.MustRegister("initialize", func() map[string]string { return map[string]string{"protocolVersion": "2025-11-25"} })
	srv.MustRegister("ping", func() string { return "pong" })
	srv.MustRegister("note", func(ctx context.Context) (string, error) {
		if err := peer.FromContext(ctx).Notify(ctx, "notifications/message", map[string]string{"level": "info", "data": "noted"}); err != nil {
			return "", err
		}
		return "noted", nil
	}, jsonrpc.Blocking())
	return srv
}

// call POSTs body to url in session id (none for ""), and returns the
// response's status, its headers and its body, read whole.
func call(t *testing.T, url, id, body string) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if id != "" {
		req.Header.Set("Mcp-Session-Id", id)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, string(b)
}

// begin begins a session at url and returns its id.
func begin(t *testing.T, url string) string {
	t.Helper()
	status, hd, body := call(t, url, "", `{"jsonrpc":"2.0","method":"initialize","params":{},"id":0}`)
	if status != http.StatusOK || hd.Get("Mcp-Session-Id") == "" {
		t.Fatalf("initialize: %d %s", status, body)
	}
	return hd.Get("Mcp-Session-Id")
}

// TestStoreAsleep: with its Redis asleep for 5 s (redis-server stopped
// with SIGSTOP), a Streamable HTTP handler whose SessionStore and
// EventStore are a redisrpc.Store goes on serving the sessions it holds:
// their calls answered as JSON and their calls answered as event streams
// (whose events it cannot keep meanwhile) are answered, none slower than
// a few StoreTimeouts; a request for a session only the store holds is
// answered 503 with Retry-After and the JSON-RPC error "Session store
// unavailable" under MCP's shutdown code, for the client to retry; once
// Redis is awake, the handler uses it again (that session is revived, a
// new one saved). Before, each event waited
// for Redis under its stream's lock, and every session's calls with it
// (0 calls a second).
func TestStoreAsleep(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	_, proc := launchRedis(t, addr)
	client := redis.NewClient(&redis.Options{Addr: addr})
	t.Cleanup(func() { client.Close() })
	store := &redisrpc.Store{Client: client, Prefix: "asleep:"}
	serve := func() (*streamhttp.Handler, string) {
		h := &streamhttp.Handler{Server: outageServer(), SessionMethod: "initialize", SessionStore: store, EventStore: store}
		ts := httptest.NewServer(h)
		t.Cleanup(func() { ts.Close(); h.Close() })
		return h, ts.URL
	}
	_, url := serve()
	_, other := serve() // another replica: its sessions are in the store alone, for h
	const sessions = 4
	ids := make([]string, sessions)
	for i := range ids {
		ids[i] = begin(t, url)
	}
	elsewhere := begin(t, other)
	if status, _, body := call(t, url, ids[0], `{"jsonrpc":"2.0","method":"note","id":1}`); status != http.StatusOK || !strings.Contains(body, "noted") {
		t.Fatalf("note before the outage: %d %s", status, body)
	}

	if err := proc.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	asleep := true
	wake := func() {
		if asleep {
			asleep = false
			proc.Signal(syscall.SIGCONT)
		}
	}
	t.Cleanup(wake)
	const outage = 5 * time.Second
	timeout := streamhttp.DefaultStoreTimeout
	var mu sync.Mutex
	var slowest time.Duration
	calls := 0
	var wg sync.WaitGroup
	end := time.Now().Add(outage)
	for _, id := range ids {
		wg.Go(func() {
			for n := 2; time.Now().Before(end); n++ {
				method, want := "ping", `"pong"`
				if n%2 == 0 {
					method, want = "note", `"noted"`
				}
				start := time.Now()
				status, _, body := call(t, url, id, fmt.Sprintf(`{"jsonrpc":"2.0","method":%q,"id":%d}`, method, n))
				took := time.Since(start)
				if status != http.StatusOK || !strings.Contains(body, want) {
					t.Errorf("%s in session %s with Redis asleep: %d %s", method, id, status, body)
					return
				}
				mu.Lock()
				calls++
				slowest = max(slowest, took)
				mu.Unlock()
			}
		})
	}
	// A session only the store holds cannot be served meanwhile: the
	// client is told to retry.
	status, hd, body := call(t, url, elsewhere, `{"jsonrpc":"2.0","method":"ping","id":9}`)
	var answer struct {
		Error *jsonrpc.Error `json:"error"`
	}
	json.Unmarshal([]byte(body), &answer)
	if shutdown := mcp.Protocol().Codes.WithDefaults().Shutdown; status != http.StatusServiceUnavailable || hd.Get("Retry-After") == "" ||
		answer.Error == nil || answer.Error.Code != shutdown || answer.Error.Message != streamhttp.StoreUnavailable {
		t.Errorf("a session held only by the store, with Redis asleep: %d (Retry-After %q) %s, want 503 with Retry-After and the error %q of code %d",
			status, hd.Get("Retry-After"), body, streamhttp.StoreUnavailable, shutdown)
	}
	wg.Wait()
	wake()
	t.Logf("%d sessions: %d calls in %v with Redis asleep, the slowest %v", sessions, calls, outage, slowest)
	if slowest > 4*timeout {
		t.Errorf("with Redis asleep the slowest call took %v, want at most %v (4 StoreTimeouts)", slowest, 4*timeout)
	}
	if calls < 10*sessions {
		t.Errorf("%d calls of %d sessions in %v with Redis asleep, want at least %d", calls, sessions, outage, 10*sessions)
	}

	// Awake, the store serves again, once the breaker lets a call try
	// it: the session it alone holds is revived, and a new one saved.
	deadline := time.Now().Add(redisWait)
	for {
		status, _, body := call(t, url, elsewhere, `{"jsonrpc":"2.0","method":"ping","id":10}`)
		if status == http.StatusOK {
			break
		}
		if status != http.StatusServiceUnavailable || time.Now().After(deadline) {
			t.Fatalf("the session held by the store after the outage: %d %s", status, body)
		}
		time.Sleep(100 * time.Millisecond)
	}
	id := begin(t, url)
	if _, ok, err := store.Load(id); !ok || err != nil {
		t.Errorf("a session begun after the outage is not stored: %v", err)
	}
}
