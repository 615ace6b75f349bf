package demo_test

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/client"
	"github.com/jsonrpc-go/jsonrpc/framing"
	"github.com/jsonrpc-go/jsonrpc/internal/demo"
	"github.com/jsonrpc-go/jsonrpc/peer"
	"github.com/jsonrpc-go/jsonrpc/protocol/lsp"
	"github.com/jsonrpc-go/jsonrpc/protocol/mcp"
	"github.com/jsonrpc-go/jsonrpc/protocol/progress"
	"github.com/jsonrpc-go/jsonrpc/stream"
)

// wait bounds every wait of the tests.
const wait = 10 * time.Second

// serveTwoWay serves the demo services with RegisterTwoWay's over a pipe
// under proto, and returns a client of them that serves mine, and the Feed.
func serveTwoWay(t *testing.T, proto peer.Protocol, mine *jsonrpc.Server) (*client.Client, *demo.Feed) {
	t.Helper()
	srv := demo.NewServer()
	feed, err := demo.RegisterTwoWay(srv)
	if err != nil {
		t.Fatal(err)
	}
	s := &stream.Server{Server: srv, Protocol: proto}
	cc, sc := net.Pipe()
	go s.ServeConn(context.Background(), sc)
	t.Cleanup(func() { s.Close() })
	if mine == nil {
		mine = jsonrpc.NewServer()
	}
	c := client.New(client.Stream(cc, framing.Line), client.Serve(mine), client.UseProtocol(proto))
	t.Cleanup(func() { c.Close() })
	return c, feed
}

func TestFeed(t *testing.T) {
	type note struct {
		Subscription string `json:"subscription"`
		Result       string `json:"result"`
	}
	got := make(chan note, 1)
	mine := jsonrpc.NewServer()
	mine.MustRegister(demo.FeedMethod, func(n note) { got <- n })
	c, feed := serveTwoWay(t, peer.Protocol{}, mine)
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()

	id, err := client.Call[string](ctx, c, "subscribe", nil)
	if err != nil || !strings.HasPrefix(id, "0x") || feed.Len() != 1 {
		t.Fatalf("subscribe = %q, %v; %d subscriptions", id, err, feed.Len())
	}
	if n, err := client.Call[int](ctx, c, "publish", map[string]any{"s": "ab", "n": 3}); n != 1 || err != nil {
		t.Fatalf("publish = %d, %v; want 1", n, err)
	}
	select {
	case n := <-got:
		if n.Subscription != id || n.Result != "ababab" {
			t.Errorf("notification %+v, want subscription %s, result ababab", n, id)
		}
	case <-ctx.Done():
		t.Fatal("no notification")
	}
	if ok, err := client.Call[bool](ctx, c, "unsubscribe", []any{id}); !ok || err != nil || feed.Len() != 0 {
		t.Errorf("unsubscribe = %v, %v; %d subscriptions left", ok, err, feed.Len())
	}
	if n, err := client.Call[int](ctx, c, "publish", []any{"x", demo.MaxPublish + 1}); !errors.Is(err, jsonrpc.ErrInvalidParams) {
		t.Errorf("publish past MaxPublish = %d, %v; want invalid params", n, err)
	}
}

// TestTwoWayOverHTTP: without a two-way connection (Process, as the HTTP
// hosts call), the methods that need one answer with an error that says
// so, and progress reports nothing.
func TestTwoWayOverHTTP(t *testing.T) {
	srv := demo.NewServer()
	if _, err := demo.RegisterTwoWay(srv); err != nil {
		t.Fatal(err)
	}
	for _, req := range []string{
		`{"jsonrpc":"2.0","method":"subscribe","id":1}`,
		`{"jsonrpc":"2.0","method":"callback","params":["add",[1,2]],"id":1}`,
	} {
		got := srv.ProcessString(context.Background(), req)
		if !strings.Contains(got, `"code":-32000`) || !strings.Contains(got, "two-way connection") {
			t.Errorf("%s: %s", req, got)
		}
	}
	got := srv.ProcessString(context.Background(), `{"jsonrpc":"2.0","method":"progress","params":{"steps":3,"workDoneToken":"t"},"id":1}`)
	if want := `{"jsonrpc":"2.0","result":0,"id":1}`; got != want {
		t.Errorf("progress = %s, want %s", got, want)
	}
}

func TestProgress(t *testing.T) {
	for _, tt := range []struct {
		name   string
		proto  peer.Protocol
		params func(token json.RawMessage) any
	}{
		{"LSP", lsp.Protocol(), func(token json.RawMessage) any {
			return map[string]any{"steps": 3, "workDoneToken": token}
		}},
		{"MCP", mcp.Protocol(), func(token json.RawMessage) any {
			return map[string]any{"steps": 3, "_meta": map[string]any{"progressToken": token}}
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, _ := serveTwoWay(t, tt.proto, nil)
			ctx, cancel := context.WithTimeout(context.Background(), wait)
			defer cancel()
			var mu sync.Mutex
			var reports []string
			token, stop := progress.Watch(c.Conn(), func(p json.RawMessage) {
				mu.Lock()
				reports = append(reports, string(p))
				mu.Unlock()
			})
			defer stop()
			n, err := client.Call[int](ctx, c, "progress", tt.params(token))
			if n != 3 || err != nil {
				t.Fatalf("progress = %d, %v; want 3", n, err)
			}
			// The reports were sent before the answer, on the same
			// connection, and handed over as they were read.
			mu.Lock()
			defer mu.Unlock()
			if len(reports) != 3 || !strings.Contains(reports[2], `"progress":3`) || !strings.Contains(reports[2], `"total":3`) {
				t.Errorf("reports %q", reports)
			}

			// A token longer than progress.MaxToken gets no report.
			long := json.RawMessage(`"` + strings.Repeat("t", progress.MaxToken) + `"`)
			if n, err := client.Call[int](ctx, c, "progress", tt.params(long)); n != 0 || err != nil {
				t.Errorf("progress with a long token = %d, %v; want 0", n, err)
			}
			if _, err := client.Call[int](ctx, c, "progress", map[string]any{"steps": demo.MaxSteps + 1}); !errors.Is(err, jsonrpc.ErrInvalidParams) {
				t.Errorf("progress past MaxSteps: %v, want invalid params", err)
			}
		})
	}
}

func TestCallback(t *testing.T) {
	mine := jsonrpc.NewServer()
	mine.MustRegister("double", func(x int) int { return 2 * x })
	c, _ := serveTwoWay(t, peer.Protocol{}, mine)
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	if n, err := client.Call[int](ctx, c, "callback", []any{"double", []int{21}}); n != 42 || err != nil {
		t.Errorf("callback(double, [21]) = %d, %v; want 42", n, err)
	}
	if _, err := client.Call[int](ctx, c, "callback", map[string]any{"method": "nope", "params": []int{}}); !errors.Is(err, jsonrpc.ErrMethodNotFound) {
		t.Errorf("callback of a method the caller lacks: %v, want method not found", err)
	}
}
