package interop

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// serveJsonrpcdMCP starts cmd/jsonrpcd with -mcp on a loopback port (and
// no TCP listener) and returns the URL of its /mcp.
func serveJsonrpcdMCP(t *testing.T) string {
	t.Helper()
	return startStreamable(t, buildJsonrpcd(t), "-http", "127.0.0.1:0", "-tcp", "", "-mcp")
}

// getStream is an http.RoundTripper that closes open once a GET (the
// session's GET stream) is answered 200, and keeps what the server sends
// on that stream, as it is read, and the statuses of the answers to
// server/discover. It is safe for concurrent use.
type getStream struct {
	open chan struct{}
	once sync.Once

	mu       sync.Mutex
	buf      bytes.Buffer
	discover []int
}

func (g *getStream) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err == nil && r.Header.Get("Mcp-Method") == "server/discover" {
		g.mu.Lock()
		g.discover = append(g.discover, resp.StatusCode)
		g.mu.Unlock()
	}
	if err == nil && r.Method == http.MethodGet && resp.StatusCode == http.StatusOK {
		g.once.Do(func() { close(g.open) })
		resp.Body = struct {
			io.Reader
			io.Closer
		}{io.TeeReader(resp.Body, g), resp.Body}
	}
	return resp, err
}

func (g *getStream) Write(p []byte) (int, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.buf.Write(p)
}

// data returns the data of the events read so far that hold part.
func (g *getStream) data(part string) []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []string
	for line := range strings.Lines(g.buf.String()) {
		if d, ok := strings.CutPrefix(strings.TrimSpace(line), "data:"); ok && strings.Contains(d, part) {
			out = append(out, strings.TrimSpace(d))
		}
	}
	return out
}

// TestJsonrpcdGoSDK drives jsonrpcd -mcp with the official MCP Go SDK's
// client over its StreamableClientTransport, twice: asking for 2025-11-25,
// and in the SDK's default, which first probes with server/discover at
// 2026-07-28, is refused (400, UnsupportedProtocolVersion) and falls back
// to the handshake. Each time: the initialize handshake agrees on
// 2025-11-25 with the server jsonrpcd and begins a session
// (Mcp-Session-Id); tools/list has add, subtract, publish and subscribe,
// each with an object input schema; subtract of 42 and 23 answers the
// text "19"; subtract with a minuend "x" (and no subtrahend) fails inside
// the method, a result with IsError that says why; an unknown tool is
// refused with -32602; and the tool subscribe subscribes the session to
// the feed, so that what the tool publish publishes (s "ab" twice)
// arrives on the session's GET stream, which the SDK opens itself, as a
// notification "subscription" (one the SDK does not know, and ignores:
// the session goes on), publish having reached that one subscriber only
// (the session of the run before, ended by the SDK's DELETE at its close,
// is subscribed no more).
//
// The SDK's LoggingTransport is not used here: it hides from the
// transport the end of the handshake, after which the transport opens its
// GET stream, so that none is opened. The test reads that stream as it
// comes instead, through the SDK's HTTP client.
func TestJsonrpcdGoSDK(t *testing.T) {
	url := serveJsonrpcdMCP(t)
	t.Run("2025-11-25", func(t *testing.T) { goSDKJsonrpcd(t, url, "2025-11-25") })
	t.Run("default", func(t *testing.T) { goSDKJsonrpcd(t, url, "") })
}

// goSDKJsonrpcd runs the session of TestJsonrpcdGoSDK with jsonrpcd at
// url, the client asking for version ("": the SDK's default).
func goSDKJsonrpcd(t *testing.T, url, version string) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	cl := mcp.NewClient(&mcp.Implementation{Name: "interop-test", Version: "1.0.0"}, nil)
	get := &getStream{open: make(chan struct{})}
	tr := &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1, HTTPClient: &http.Client{Transport: get}}
	cs, err := cl.Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal("connect:", err)
	}
	defer func() {
		if err := cs.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
		if t.Failed() {
			get.mu.Lock()
			t.Logf("the GET stream:\n%s", get.buf.String())
			get.mu.Unlock()
		}
	}()
	init := cs.InitializeResult()
	if init.ProtocolVersion != "2025-11-25" || init.ServerInfo == nil || init.ServerInfo.Name != "jsonrpcd" || init.Capabilities == nil || init.Capabilities.Tools == nil {
		t.Errorf("the session: %+v, want protocol 2025-11-25, server jsonrpcd with tools", init)
	}
	get.mu.Lock()
	discover := slices.Clone(get.discover)
	get.mu.Unlock()
	// Only the SDK's default probes, and is refused once.
	wantDiscover := []int{http.StatusBadRequest}
	if version != "" {
		wantDiscover = nil
	}
	if !slices.Equal(discover, wantDiscover) {
		t.Errorf("server/discover answered %v, want %v", discover, wantDiscover)
	}
	if cs.ID() == "" {
		t.Error("the session has no Mcp-Session-Id")
	}

	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal("tools/list:", err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
		// The client keeps a tool's input schema as the JSON it read.
		var schema struct{ Type string }
		b, _ := json.Marshal(tl.InputSchema)
		if err := json.Unmarshal(b, &schema); err != nil || schema.Type != "object" {
			t.Errorf("tool %s: input schema %s, want an object's", tl.Name, b)
		}
	}
	for _, want := range []string{"add", "subtract", "publish", "subscribe"} {
		if !slices.Contains(names, want) {
			t.Errorf("tools/list: %v, want %s among them", names, want)
		}
	}

	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "subtract", Arguments: map[string]any{"minuend": 42, "subtrahend": 23}})
	if err != nil {
		t.Fatal("subtract:", err)
	}
	if text := textOf(res); res.IsError || text != "19" {
		t.Errorf("subtract 42 23 answered %q (isError %v), want 19", text, res.IsError)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "subtract", Arguments: map[string]any{"minuend": "x"}})
	if err != nil || !res.IsError || !strings.Contains(textOf(res), "-32602") {
		t.Errorf("subtract of a minuend \"x\": %v, %+v; want a tool execution error that says why", err, res)
	}
	_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "nope", Arguments: map[string]any{}})
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeInvalidParams {
		t.Errorf("an unknown tool: %v, want an error -32602", err)
	}

	// subscribe, then publish once the GET stream is open (the server
	// makes it before it answers the GET; a notification outside any call
	// with no GET stream is dropped, as MCP allows): the value reaches it.
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "subscribe"})
	if err != nil || res.IsError {
		t.Fatalf("subscribe: %v, %+v", err, res)
	}
	sub := strings.Trim(textOf(res), `"`)
	if sub == "" {
		t.Fatalf("subscribe answered %+v, want the subscription's id", res)
	}
	select {
	case <-get.open:
	case <-ctx.Done():
		t.Fatal("the SDK's GET stream was not answered 200")
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "publish", Arguments: map[string]any{"s": "ab", "n": 2}})
	if err != nil || res.IsError || textOf(res) != "1" {
		t.Fatalf("publish: %v, %+v; want 1 (the subscriber reached)", err, res)
	}
	want := `{"jsonrpc":"2.0","method":"subscription","params":{"subscription":"` + sub + `","result":"abab"}}`
	for len(get.data(`"subscription"`)) == 0 && ctx.Err() == nil {
		time.Sleep(10 * time.Millisecond)
	}
	if got := get.data(`"subscription"`); len(got) != 1 || got[0] != want {
		t.Errorf("the GET stream's notifications: %q, want %s", got, want)
	}
	if err := cs.Ping(ctx, nil); err != nil {
		t.Error("ping after the notification:", err)
	}
}

// TestJsonrpcdTypeScript runs mcpts/jsonrpcd.mjs, which drives jsonrpcd
// -mcp with the MCP TypeScript SDK from npm (@modelcontextprotocol/sdk
// 1.32.2, npm ci in mcpts/) over its StreamableHTTPClientTransport, and
// checks what each step printed: the handshake agreed on 2025-11-25 with
// the server jsonrpcd, in a session; add, subtract, publish and subscribe
// among the tools, each with an object input schema; subtract of 42 and
// 23 answers "19"; subtract with a minuend "x" is a result with isError;
// an unknown tool is refused with -32602; and what publish publishes
// after subscribe reaches the SDK on the session's GET stream as the
// notification "subscription".
func TestJsonrpcdTypeScript(t *testing.T) {
	node, dir := needNode(t, "mcpts", "@modelcontextprotocol/sdk")
	url := serveJsonrpcdMCP(t)
	steps, order := runSteps(t, node, filepath.Join(dir, "jsonrpcd.mjs"), url)
	if want := []string{"connect", "tools", "subtract", "toolerror", "unknown", "subscribe", "publish"}; !slices.Equal(order, want) {
		t.Fatalf("steps %v, want %v", order, want)
	}
	var conn struct {
		Version, Session string
		Server           struct{ Name string }
	}
	if step(t, steps, "connect", &conn); conn.Version != "2025-11-25" || conn.Server.Name != "jsonrpcd" || conn.Session == "" {
		t.Errorf("connect: %s, want 2025-11-25 with jsonrpcd, in a session", steps["connect"])
	}
	var tools struct {
		Names []string
		Types []*string
	}
	step(t, steps, "tools", &tools)
	for _, want := range []string{"add", "subtract", "publish", "subscribe"} {
		if !slices.Contains(tools.Names, want) {
			t.Errorf("tools: %v, want %s among them", tools.Names, want)
		}
	}
	for i, typ := range tools.Types {
		if typ == nil || *typ != "object" {
			t.Errorf("tools: %s has no object input schema: %s", tools.Names[i], steps["tools"])
		}
	}
	type toolResult struct {
		Text    string
		IsError bool
	}
	var res toolResult
	if step(t, steps, "subtract", &res); res != (toolResult{Text: "19"}) {
		t.Errorf("subtract: %s, want 19", steps["subtract"])
	}
	if step(t, steps, "toolerror", &res); !res.IsError || !strings.Contains(res.Text, "-32602") {
		t.Errorf("subtract of a minuend \"x\": %s, want a tool error that says why", steps["toolerror"])
	}
	var unknown struct{ Code int }
	if step(t, steps, "unknown", &unknown); unknown.Code != -32602 {
		t.Errorf("unknown tool: %s, want -32602", steps["unknown"])
	}
	if step(t, steps, "subscribe", &res); res.IsError || strings.Trim(res.Text, `"`) == "" {
		t.Errorf("subscribe: %s, want the subscription's id", steps["subscribe"])
	}
	sub := strings.Trim(res.Text, `"`)
	var pub struct {
		Text          string
		IsError       bool
		Notifications []struct {
			Method string
			Params struct{ Subscription, Result string }
		}
	}
	step(t, steps, "publish", &pub)
	if pub.Text != "1" || pub.IsError || len(pub.Notifications) != 1 {
		t.Fatalf("publish: %s, want 1 (the subscriber reached) and one notification", steps["publish"])
	}
	if n := pub.Notifications[0]; n.Method != "subscription" || n.Params.Subscription != sub || n.Params.Result != "abab" {
		t.Errorf("the notification: %+v, want subscription of %s with abab", n, sub)
	}
}
