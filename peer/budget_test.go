package peer_test

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/httprpc"
	"github.com/jsonrpc-go/jsonrpc/internal/leaktest"
	"github.com/jsonrpc-go/jsonrpc/internal/testutil"
	"github.com/jsonrpc-go/jsonrpc/stream"
	"github.com/jsonrpc-go/jsonrpc/streamhttp"
	"github.com/jsonrpc-go/jsonrpc/transport"
	"github.com/jsonrpc-go/jsonrpc/ws"
)

// TestSharedBudget: the hosts given one transport.Budget take the room
// of their large messages from it, whatever their own MaxBuffered says.
// With the budget spent elsewhere, each refuses a message of 200 KiB as
// it refuses past its own MaxBuffered (503 over HTTP and Streamable HTTP,
// "server busy" on a stream, close status 1013 on a WebSocket); with the
// room given back, each serves it, and gives all it took back.
func TestSharedBudget(t *testing.T) {
	testutil.SkipOnJS(t, "no WebSocket client to its own server on js")
	leaktest.Check(t)
	b := transport.NewBudget(1 << 20)
	srv := jsonrpc.NewServer()
	srv.MustRegister("len", func(s string) int { return len(s) })
	mux := http.NewServeMux()
	mux.Handle("/", &httprpc.Handler{Server: srv, Budget: b})
	mux.Handle("/mcp", &streamhttp.Handler{Server: srv, Budget: b})
	wh := &ws.Handler{Server: srv, Budget: b}
	mux.Handle("/ws", wh)
	hs := httptest.NewServer(mux)
	defer hs.Close()
	defer wh.Shutdown(context.Background())
	ss := &stream.Server{Server: srv, Budget: b}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go ss.Serve(ln)
	defer ss.Close()

	const size = 200 << 10
	msg := `{"jsonrpc":"2.0","method":"len","params":["` + strings.Repeat("x", size) + `"],"id":1}`
	const answer = `{"jsonrpc":"2.0","result":204800,"id":1}`
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	post := func(path string) (int, string) {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, hs.URL+path, strings.NewReader(msg))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, strings.TrimSpace(string(body))
	}
	overStream := func() string {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(wait))
		if _, err := io.WriteString(c, msg+"\n"); err != nil {
			t.Fatal(err)
		}
		line, err := bufio.NewReader(c).ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(line)
	}
	overWS := func() (string, error) {
		c, _, err := websocket.Dial(ctx, "ws"+hs.URL[len("http"):]+"/ws", nil)
		if err != nil {
			t.Fatal(err)
		}
		defer c.CloseNow()
		if err := c.Write(ctx, websocket.MessageText, []byte(msg)); err != nil {
			return "", err
		}
		_, got, err := c.Read(ctx)
		return string(got), err
	}

	if !b.Take(b.Max()) {
		t.Fatal("the budget is not free")
	}
	for _, path := range []string{"/", "/mcp"} {
		if status, body := post(path); status != http.StatusServiceUnavailable {
			t.Errorf("POST %s with the budget spent: %d %s, want 503", path, status, body)
		}
	}
	if got := overStream(); !strings.Contains(got, "server busy") {
		t.Errorf("stream with the budget spent: %s, want a server busy error", got)
	}
	if got, err := overWS(); websocket.CloseStatus(err) != websocket.StatusTryAgainLater {
		t.Errorf("WebSocket with the budget spent: %s, %v; want close status 1013", got, err)
	}

	b.Give(b.Max())
	for _, path := range []string{"/", "/mcp"} {
		if status, body := post(path); status != http.StatusOK || body != answer {
			t.Errorf("POST %s: %d %s, want 200 %s", path, status, body, answer)
		}
	}
	if got := overStream(); got != answer {
		t.Errorf("stream: %s, want %s", got, answer)
	}
	if got, err := overWS(); got != answer || err != nil {
		t.Errorf("WebSocket: %s, %v; want %s", got, err, answer)
	}
	for deadline := time.Now().Add(wait); b.Used() != 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d bytes still taken after every message was answered", b.Used())
		}
	}
}
