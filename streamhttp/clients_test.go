package streamhttp_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/jsonrpc-go/jsonrpc/internal/demo"
	"github.com/jsonrpc-go/jsonrpc/internal/keys"
	"github.com/jsonrpc-go/jsonrpc/streamhttp"
	"github.com/jsonrpc-go/jsonrpc/transport"
)

// names is a transport.Handler that records the client each message's
// context names (transport.WithClient), the name by which the Server
// shares its goroutines and request copies between clients, and answers
// with the demo server.
type names struct {
	srv  transport.Handler
	mu   sync.Mutex // protects the field below
	seen []string
}

func (n *names) ProcessAsync(ctx context.Context, dst, req []byte, reply func([]byte)) {
	client, _ := ctx.Value(keys.Client{}).(string)
	n.mu.Lock()
	n.seen = append(n.seen, client)
	n.mu.Unlock()
	n.srv.ProcessAsync(ctx, dst, req, reply)
}

func (n *names) clients() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.seen
}

// TestClientOfRequest: the handler names the client of each request by the
// host of its RemoteAddr, or by ClientKey, for a call, a notification and a
// batch alike, so that the Server's shares per client
// (jsonrpc.Limits.MaxRunningPerClient, MaxHeldPerClient) tell clients
// apart. Before, every request was of no client.
func TestClientOfRequest(t *testing.T) {
	docs := []string{
		`{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`,
		`{"jsonrpc":"2.0","method":"add","params":[1,2]}`,
		`[{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}]`,
	}
	for _, tc := range []struct {
		name   string
		key    func(*http.Request) string
		remote []string // RemoteAddr of each request, with X-Client "c<i>"
		want   []string
	}{
		{"remote host", nil, []string{"127.0.0.1:40001", "127.0.0.2:40001", "[2001:db8::1]:40001"}, []string{"127.0.0.1", "127.0.0.2", "2001:db8::1"}},
		{"ClientKey", func(r *http.Request) string { return r.Header.Get("X-Client") }, []string{"127.0.0.1:40001", "127.0.0.1:40002", "127.0.0.1:40003"}, []string{"c0", "c1", "c2"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := &names{srv: demo.NewServer()}
			h := &streamhttp.Handler{Server: n, ClientKey: tc.key}
			defer h.Close()
			var want []string
			for i, remote := range tc.remote {
				for _, doc := range docs {
					req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(doc))
					req.RemoteAddr = remote
					req.Header.Set("Content-Type", "application/json")
					req.Header.Set("Accept", "application/json")
					req.Header.Set("X-Client", fmt.Sprintf("c%d", i))
					rec := httptest.NewRecorder()
					h.ServeHTTP(rec, req)
					if rec.Code != http.StatusOK && rec.Code != http.StatusAccepted {
						t.Fatalf("%s from %s: %d %s", doc, remote, rec.Code, rec.Body)
					}
					want = append(want, tc.want[i])
				}
			}
			if got := n.clients(); !slices.Equal(got, want) {
				t.Errorf("the clients named: %q, want %q", got, want)
			}
		})
	}
}

// Over a connection, the client is the IP address the connection came
// from.
func TestClientOfConnection(t *testing.T) {
	n := &names{srv: demo.NewServer()}
	h := &streamhttp.Handler{Server: n}
	hs := httptest.NewServer(h) // 127.0.0.1
	defer hs.Close()
	defer h.Close()
	resp := post(t, hs.URL, "application/json", `{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`)
	if got := readAll(t, resp); got != `{"jsonrpc":"2.0","result":3,"id":1}` {
		t.Fatalf("answer %s", got)
	}
	if got := n.clients(); !slices.Equal(got, []string{"127.0.0.1"}) {
		t.Errorf("the clients named: %q, want [127.0.0.1]", got)
	}
}

// TestClientOfSession: the calls of a session are of the client that
// opened it, named as its first request was (ClientKey here), and its
// connection logs through the handler's bounded Logger. Before, a
// session's calls were of no client.
func TestClientOfSession(t *testing.T) {
	n := &names{srv: demo.NewServer()}
	h := &streamhttp.Handler{Server: n, SessionMethod: "add", ClientKey: func(r *http.Request) string { return r.Header.Get("X-Client") }}
	defer h.Close()
	send := func(doc, session string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodPost, "/rpc", strings.NewReader(doc))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("X-Client", "c7")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK && rec.Code != http.StatusAccepted {
			t.Fatalf("%s: %d %s", doc, rec.Code, rec.Body)
		}
		return rec
	}
	id := send(`{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`, "").Header().Get("Mcp-Session-Id")
	if id == "" {
		t.Fatal("no session")
	}
	send(`{"jsonrpc":"2.0","method":"add","params":[2,3],"id":2}`, id)
	if got := n.clients(); !slices.Equal(got, []string{"c7", "c7"}) {
		t.Errorf("the clients named: %q, want [c7 c7]", got)
	}
}
