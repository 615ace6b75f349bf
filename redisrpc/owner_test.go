package redisrpc

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/streamhttp"
	"github.com/jsonrpc-go/jsonrpc/transport"
)

// TestSessionOwnerAcrossReplicas (issue 35): two replicas on one Redis
// store: the subject that began a session is stored with it, so that on
// the other replica a request bearing another subject's token finds no
// session (404), and the subject's own token revives it.
func TestSessionOwnerAcrossReplicas(t *testing.T) {
	store := newStore(t, &Store{TTL: time.Minute, Prefix: "owner:"})
	tokens := transport.TokenVerifierFunc(func(ctx context.Context, token string) (*jsonrpc.Principal, error) {
		switch token {
		case "bob", "carol":
			return &jsonrpc.Principal{Subject: token}, nil
		}
		return nil, errors.New("unknown token")
	})
	replica := func(name string) string {
		srv := jsonrpc.NewServer()
		srv.MustRegister("initialize", func(struct{}) map[string]string { return map[string]string{"protocolVersion": "2025-11-25"} })
		srv.MustRegister("whoami", func(ctx context.Context) string { return jsonrpc.PrincipalOf(ctx).Subject })
		h := &streamhttp.Handler{Server: srv, Tokens: tokens, SessionMethod: "initialize", Replica: name, SessionStore: store, EventStore: store}
		ts := httptest.NewServer(h)
		t.Cleanup(func() {
			h.Shutdown(context.Background())
			ts.Close()
		})
		return ts.URL
	}
	urlA, urlB := replica("a"), replica("b")
	post := func(url, token, id, body string) (int, string, string) {
		t.Helper()
		req, _ := http.NewRequest("POST", url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+token)
		if id != "" {
			req.Header.Set("Mcp-Session-Id", id)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header.Get("Mcp-Session-Id"), string(b)
	}
	_, id, body := post(urlA, "bob", "", `{"jsonrpc":"2.0","method":"initialize","params":{},"id":1}`)
	if id == "" {
		t.Fatalf("initialize on a: %s", body)
	}
	if st, ok, err := store.Load(id); !ok || err != nil || st.Subject != "bob" {
		t.Fatalf("stored in Redis: %+v %v %v, want bob's", st, ok, err)
	}
	const whoami = `{"jsonrpc":"2.0","method":"whoami","id":2}`
	if status, _, body := post(urlB, "carol", id, whoami); status != http.StatusNotFound {
		t.Errorf("carol's token on b: %d %s, want 404", status, body)
	}
	if status, _, body := post(urlB, "bob", id, whoami); status != 200 || body != `{"jsonrpc":"2.0","result":"bob","id":2}` {
		t.Errorf("bob's token on b: %d %s", status, body)
	}
}
