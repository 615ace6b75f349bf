package client_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/client"
	"github.com/jsonrpc-go/jsonrpc/peer"
	"github.com/jsonrpc-go/jsonrpc/protocol/mcp"
	"github.com/jsonrpc-go/jsonrpc/protocol/progress"
	"github.com/jsonrpc-go/jsonrpc/streamhttp"
)

// TestHTTPEventStream: over Streamable HTTP the HTTP channel reads an
// answer that is an event stream as it comes: the method's progress
// reaches OnProgress and its notifications the client's Server before the
// call returns its result; a call whose context ends closes its stream,
// and the server's method sees its context cancelled.
func TestHTTPEventStream(t *testing.T) {
	cancelled := make(chan struct{})
	started := make(chan struct{})
	srv := jsonrpc.NewServer(jsonrpc.AllowUnknownFields())
	srv.MustRegister("count", func(ctx context.Context, p struct {
		N int `json:"n"`
	}) (int, error) {
		for i := 1; i <= p.N; i++ {
			progress.Of(ctx).Report(ctx, mcp.Progress{Progress: float64(i), Total: float64(p.N)})
		}
		peer.FromContext(ctx).Notify(ctx, "notifications/message", map[string]string{"data": "counted"})
		return p.N, nil
	}, jsonrpc.Blocking())
	srv.MustRegister("hold", func(ctx context.Context) error {
		close(started)
		<-ctx.Done()
		close(cancelled)
		return ctx.Err()
	}, jsonrpc.Blocking())
	ts := httptest.NewServer(&streamhttp.Handler{Server: srv})
	defer ts.Close()

	var mu sync.Mutex
	var got []string
	mine := jsonrpc.NewServer()
	mine.MustRegister("notifications/message", func(p struct {
		Data string `json:"data"`
	}) {
		mu.Lock()
		got = append(got, "message "+p.Data)
		mu.Unlock()
	})
	c := client.New(client.HTTP(ts.URL, nil), client.UseProtocol(mcp.Protocol()), client.Serve(mine))
	defer c.Close()
	token, stop := progress.Watch(c.Conn(), func(params json.RawMessage) {
		mu.Lock()
		got = append(got, "progress "+string(params))
		mu.Unlock()
	})
	defer stop()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	n, err := client.Call[int](ctx, c, "count", map[string]any{"n": 2, "_meta": map[string]any{"progressToken": token}})
	if err != nil || n != 2 {
		t.Fatalf("count: %d, %v", n, err)
	}
	mu.Lock()
	all := strings.Join(got, "\n")
	mu.Unlock()
	want := "progress {\"progress\":1,\"progressToken\":" + string(token) + ",\"total\":2}\n" +
		"progress {\"progress\":2,\"progressToken\":" + string(token) + ",\"total\":2}\n" +
		"message counted"
	if all != want {
		t.Errorf("before the result:\n%s\nwant\n%s", all, want)
	}

	hctx, hcancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { _, err := client.Call[any](hctx, c, "hold", nil); errc <- err }()
	<-started
	hcancel()
	select {
	case <-cancelled:
	case <-time.After(30 * time.Second):
		t.Fatal("the server's method was not cancelled")
	}
	if err := <-errc; err == nil {
		t.Error("the cancelled call returned no error")
	}
}
