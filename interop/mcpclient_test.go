package interop

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/client"
	mcpprofile "github.com/jsonrpc-go/jsonrpc/protocol/mcp"
	"github.com/jsonrpc-go/jsonrpc/protocol/progress"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// getSpy tells when the first GET's answer is flushed: the session's
// GET stream has begun.
type getSpy struct {
	http.ResponseWriter
	flushed func()
}

func (g *getSpy) Flush() {
	http.NewResponseController(g.ResponseWriter).Flush()
	g.flushed()
}

func (g *getSpy) Unwrap() http.ResponseWriter { return g.ResponseWriter }

// TestClientHTTPWithGoSDKServer: this library's client.HTTP, with
// mcpprofile.Protocol(), against the official MCP Go SDK's Streamable HTTP server (a
// stateful session at 2025-11-25): the initialize handshake begins a
// session the channel keeps; a tool call's progress arrives on its event
// stream before the result; the server's ping to the client, sent while
// the tool runs, is answered in a POST of the session; a change of the
// tool list, announced outside any call, arrives on the session's GET
// stream; Close ends the session with a DELETE.
func TestClientHTTPWithGoSDKServer(t *testing.T) {
	server := mcp.NewServer(&mcp.Implementation{Name: "sdk", Version: "1.0.0"}, nil)
	type countIn struct {
		N int `json:"n"`
	}
	mcp.AddTool(server, &mcp.Tool{Name: "count"}, func(ctx context.Context, req *mcp.CallToolRequest, in countIn) (*mcp.CallToolResult, any, error) {
		for i := 1; i <= in.N; i++ {
			if err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: req.Params.GetProgressToken(), Progress: float64(i), Total: float64(in.N)}); err != nil {
				return nil, nil, err
			}
		}
		if err := req.Session.Ping(ctx, nil); err != nil {
			return nil, nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "counted"}}}, nil, nil
	})
	sdk := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil)
	gets := make(chan struct{})
	var once sync.Once
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			w = &getSpy{ResponseWriter: w, flushed: func() { once.Do(func() { close(gets) }) }}
		}
		sdk.ServeHTTP(w, r)
	}))
	defer ts.Close()

	mine := jsonrpc.NewServer(jsonrpc.AllowUnknownFields())
	pinged := make(chan struct{}, 1)
	mine.MustRegister("ping", func(struct{}) struct{} {
		select {
		case pinged <- struct{}{}:
		default:
		}
		return struct{}{}
	})
	listChanged := make(chan struct{}, 8)
	mine.MustRegister("notifications/tools/list_changed", func(struct{}) { listChanged <- struct{}{} })

	ch := client.HTTP(ts.URL, nil, client.HTTPHeader(http.Header{"MCP-Protocol-Version": {"2025-11-25"}}))
	c := client.New(ch, client.UseProtocol(mcpprofile.Protocol()), client.Serve(mine))
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	type initResult struct {
		ProtocolVersion string `json:"protocolVersion"`
		ServerInfo      struct{ Name string }
	}
	init, err := client.Call[initResult](ctx, c, "initialize", map[string]any{
		"protocolVersion": "2025-11-25",
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]string{"name": "jsonrpc-go", "version": "1.0.0"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if init.ProtocolVersion != "2025-11-25" || init.ServerInfo.Name != "sdk" {
		t.Fatalf("initialize: %+v", init)
	}
	session := client.HTTPSessionID(ch)
	if session == "" {
		t.Fatal("the SDK's session id was not kept")
	}
	if err := c.Notify(ctx, "notifications/initialized", map[string]any{}); err != nil {
		t.Fatal(err)
	}

	var mu sync.Mutex
	var reports []float64
	token, stop := progress.Watch(c.Conn(), func(params json.RawMessage) {
		var p struct{ Progress float64 }
		json.Unmarshal(params, &p)
		mu.Lock()
		reports = append(reports, p.Progress)
		mu.Unlock()
	})
	defer stop()
	type toolResult struct {
		Content []struct{ Text string }
		IsError bool
	}
	res, err := client.Call[toolResult](ctx, c, "tools/call", map[string]any{
		"name": "count", "arguments": map[string]int{"n": 3},
		"_meta": map[string]any{"progressToken": token},
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError || len(res.Content) != 1 || res.Content[0].Text != "counted" {
		t.Fatalf("tools/call: %+v", res)
	}
	mu.Lock()
	got := append([]float64(nil), reports...)
	mu.Unlock()
	if len(got) != 3 || got[0] != 1 || got[1] != 2 || got[2] != 3 {
		t.Errorf("progress before the result: %v, want [1 2 3]", got)
	}
	select {
	case <-pinged:
	default:
		t.Error("the server's ping did not reach the client before the result")
	}

	select {
	case <-gets:
	case <-ctx.Done():
		t.Fatal("the channel opened no GET stream")
	}
	mcp.AddTool(server, &mcp.Tool{Name: "later"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{}, nil, nil
	})
	select {
	case <-listChanged:
	case <-ctx.Done():
		t.Fatal("notifications/tools/list_changed did not arrive on the GET stream")
	}

	c.Close()
	req, _ := http.NewRequest(http.MethodPost, ts.URL, nil)
	req.Header.Set("Mcp-Session-Id", session)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Body = http.NoBody
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("a request in the session after Close: %d, want 404 (ended by the DELETE)", resp.StatusCode)
	}
}
