package streamhttp_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/internal/leaktest"
	"github.com/jsonrpc-go/jsonrpc/protocol/mcp"
	"github.com/jsonrpc-go/jsonrpc/protocol/progress"
	"github.com/jsonrpc-go/jsonrpc/streamhttp"
)

// replicaServer is a server whose initialize negotiates MCP 2025-11-25,
// with "version", which answers the session's negotiated version, and
// "moved", which reports progress 1, ends its HTTP response
// (CloseStream), then reports 2 and 3 and answers "moved".
func replicaServer(t *testing.T) *jsonrpc.Server {
	srv, _ := newServer(t)
	srv.MustRegister("initialize", func(struct{}) map[string]string {
		return map[string]string{"protocolVersion": "2025-11-25"}
	})
	srv.MustRegister("version", func(ctx context.Context) string {
		s, _ := streamhttp.SessionOf(ctx)
		return s.Version
	})
	srv.MustRegister("moved", func(ctx context.Context, _ struct {
		Meta map[string]any `json:"_meta"`
	}) (string, error) {
		prog := progress.Of(ctx)
		for i := 1; i <= 3; i++ {
			if i == 2 && !streamhttp.CloseStream(ctx) {
				return "", errors.New("the stream cannot be resumed")
			}
			if err := prog.Report(ctx, mcp.Progress{Progress: float64(i), Total: 3}); err != nil {
				return "", err
			}
		}
		return "moved", nil
	}, jsonrpc.Blocking())
	return srv
}

// TestReplicas: a handler with Replica mints ids that name it; a session
// begun on one handler is served by another that shares its SessionStore
// (revived, with its negotiated version); a stream cut short on the first
// is resumed on the second after the first has closed, replayed from the
// shared EventStore; DELETE removes the session from the store.
func TestReplicas(t *testing.T) {
	leaktest.Check(t)
	sessions, events := &streamhttp.MemorySessions{}, &streamhttp.MemoryStore{}
	ha := &streamhttp.Handler{Server: replicaServer(t), Replica: "a", SessionStore: sessions, EventStore: events}
	hb := &streamhttp.Handler{Server: replicaServer(t), Replica: "b", SessionStore: sessions, EventStore: events}
	urlA, urlB := sessionServer(t, ha), sessionServer(t, hb)

	resp := post(t, urlA, both, `{"jsonrpc":"2.0","method":"initialize","params":{},"id":0}`)
	readAll(t, resp)
	id := resp.Header.Get("Mcp-Session-Id")
	if !strings.HasPrefix(id, "a.") || streamhttp.ReplicaOf(id) != "a" || len(id) != len("a.")+32 {
		t.Fatalf("session id %q, want a. and 32 hex digits", id)
	}
	if _, ok, _ := sessions.Load(id); !ok {
		t.Fatal("the session is not in the SessionStore")
	}

	// A call of the session on b: revived there.
	resp = post(t, urlB, both, `{"jsonrpc":"2.0","method":"version","id":1}`, "Mcp-Session-Id", id)
	if got := readAll(t, resp); resp.StatusCode != 200 || got != `{"jsonrpc":"2.0","result":"2025-11-25","id":1}` {
		t.Fatalf("a call on the other replica: %d %s", resp.StatusCode, got)
	}
	if hb.Sessions() != 1 {
		t.Errorf("b holds %d sessions, want 1", hb.Sessions())
	}

	// A stream on a, cut short by its method, resumed on b once a is gone.
	resp = post(t, urlA, both, `{"jsonrpc":"2.0","method":"moved","params":{"_meta":{"progressToken":"p"}},"id":2}`, "Mcp-Session-Id", id)
	if resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("moved: %d %s", resp.StatusCode, readAll(t, resp))
	}
	r := newSSE(t, resp)
	prime := r.mustNext()
	if first := r.mustNext(); !strings.Contains(first.data, `"progress":1`) {
		t.Fatalf("first event %+v, want progress 1", first)
	}
	if e, ok := r.next(); ok {
		t.Fatalf("after CloseStream, event %+v", e)
	}
	stream, _, _ := strings.Cut(prime.id, "-")
	waitFor(t, func() bool {
		answered := false
		events.Replay(id, stream, 0, func(_ uint64, msg []byte) error {
			answered = answered || strings.Contains(string(msg), `"result":"moved"`)
			return nil
		})
		return answered
	})
	ha.Close()

	r = newSSE(t, getStream(t, urlB, id, prime.id))
	var got []string
	for e, ok := r.next(); ok; e, ok = r.next() {
		got = append(got, e.data)
	}
	if len(got) != 4 || !strings.Contains(got[1], `"progress":2`) || !strings.Contains(got[2], `"progress":3`) || got[3] != `{"jsonrpc":"2.0","result":"moved","id":2}` {
		t.Fatalf("resumed on b: %q, want progress 1 to 3 and the answer", got)
	}

	req, _ := http.NewRequest(http.MethodDelete, urlB, nil)
	req.Header.Set("Mcp-Session-Id", id)
	dresp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	dresp.Body.Close()
	if _, ok, _ := sessions.Load(id); ok || dresp.StatusCode != 200 {
		t.Errorf("DELETE: %d, and the session is still stored", dresp.StatusCode)
	}
	hc := &streamhttp.Handler{Server: replicaServer(t), SessionStore: sessions, EventStore: events}
	resp = post(t, sessionServer(t, hc), both, `{"jsonrpc":"2.0","method":"version","id":3}`, "Mcp-Session-Id", id)
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("a deleted session: %d, want 404", resp.StatusCode)
	}
}

// TestBadReplica: a Replica that would make an invalid id begins no
// session.
func TestBadReplica(t *testing.T) {
	leaktest.Check(t)
	h := &streamhttp.Handler{Server: replicaServer(t), Replica: "a.b"}
	resp := post(t, sessionServer(t, h), both, `{"jsonrpc":"2.0","method":"initialize","params":{},"id":0}`)
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("initialize with Replica %q: %d, want 503", h.Replica, resp.StatusCode)
	}
}

// countingSessions is a MemorySessions that counts its saves.
type countingSessions struct {
	streamhttp.MemorySessions
	saves atomic.Int64
}

func (c *countingSessions) Save(s streamhttp.SessionState) error {
	c.saves.Add(1)
	return c.MemorySessions.Save(s)
}

// TestSessionResaved: a session in use is saved again in its
// SessionStore, at most once a resave time (a minute), so that the store's
// TTL counts from its last use; one ended by DELETE is not in the store,
// whatever was saved before. A store of the user's is saved again and
// deleted from in the background (Handler.StoreTimeout), so the test
// waits for both.
func TestSessionResaved(t *testing.T) {
	leaktest.Check(t)
	for _, c := range []struct {
		name   string
		resave time.Duration
		saves  int64
	}{
		{"every request", -1, 3},
		{"an hour", time.Hour, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			sessions := &countingSessions{}
			h := &streamhttp.Handler{Server: replicaServer(t), SessionStore: sessions}
			streamhttp.SetResave(h, c.resave)
			url := sessionServer(t, h)
			resp := post(t, url, both, `{"jsonrpc":"2.0","method":"initialize","params":{},"id":0}`)
			readAll(t, resp)
			id := resp.Header.Get("Mcp-Session-Id")
			for i := 1; i <= 2; i++ {
				resp := post(t, url, both, `{"jsonrpc":"2.0","method":"version","id":1}`, "Mcp-Session-Id", id)
				if got := readAll(t, resp); got != `{"jsonrpc":"2.0","result":"2025-11-25","id":1}` {
					t.Fatalf("call %d: %s", i, got)
				}
			}
			settled(t, func() bool { return sessions.saves.Load() >= c.saves })
			if got := sessions.saves.Load(); got != c.saves {
				t.Errorf("%d saves after initialize and two calls, want %d", got, c.saves)
			}
			req, _ := http.NewRequest(http.MethodDelete, url, nil)
			req.Header.Set("Mcp-Session-Id", id)
			dresp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			dresp.Body.Close()
			settled(t, func() bool { _, ok, _ := sessions.Load(id); return !ok })
			if _, ok, _ := sessions.Load(id); ok {
				t.Error("after DELETE the session is still stored")
			}
		})
	}
}

// settled waits until ok, for what the handler does in the background, or
// for a while.
func settled(t *testing.T, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(wait); !ok() && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
}
