package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
)

// mcpAnswer POSTs req in session id with MCP's version header and
// returns the JSON-RPC answer, read from a JSON body or from the last
// event of an event stream.
func mcpAnswer(t *testing.T, url, id, req string) (status int, answer string) {
	t.Helper()
	resp := mcpPost(t, url, id, req, "Mcp-Protocol-Version", "2025-11-25")
	if resp.Header.Get("Content-Type") == "text/event-stream" {
		br := bufio.NewReader(resp.Body)
		for {
			ev := nextEvent(t, br)
			if strings.Contains(ev.data, `"id":`) {
				return resp.StatusCode, ev.data
			}
		}
	}
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, strings.TrimSpace(string(b))
}

// TestMCP: jsonrpcd -mcp is an MCP server of 2025-11-25 on /mcp. An
// initialize begins a session; tools/list lists the demo methods with
// their input schemas; tools/call runs them, a method's error as a
// result with isError; the tool subscribe subscribes the session to the
// feed, whose values reach its GET stream; a request of 2026-07-28 is
// answered UnsupportedProtocolVersion. Its first request is the example
// of -mcp in docs/HOSTING.md.
func TestMCP(t *testing.T) {
	r := startRun(t, "-mcp")
	url := r.addr["http"] + "mcp"

	resp := mcpPost(t, url, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}`)
	sid := resp.Header.Get("Mcp-Session-Id")
	var init struct {
		Result struct {
			ProtocolVersion string
			Capabilities    struct{ Tools json.RawMessage }
			ServerInfo      struct{ Name string }
		}
	}
	if body, _ := io.ReadAll(resp.Body); resp.StatusCode != 200 || sid == "" || json.Unmarshal(body, &init) != nil ||
		init.Result.ProtocolVersion != "2025-11-25" || init.Result.Capabilities.Tools == nil || init.Result.ServerInfo.Name != "jsonrpcd" {
		t.Fatalf("initialize: %d, Mcp-Session-Id %q, %s", resp.StatusCode, sid, body)
	}
	if status, body := mcpAnswer(t, url, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); status != http.StatusAccepted {
		t.Fatalf("notifications/initialized: %d %s", status, body)
	}
	// An older version is answered with itself; one the server does not
	// know, with its newest.
	for req, want := range map[string]string{"2025-06-18": "2025-06-18", "2024-11-05": "2025-11-25"} {
		resp := mcpPost(t, url, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"`+req+`","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`)
		body, _ := io.ReadAll(resp.Body)
		if !strings.Contains(string(body), `"protocolVersion":"`+want+`"`) {
			t.Errorf("initialize of %s: %s, want %s", req, body, want)
		}
	}

	if _, body := mcpAnswer(t, url, sid, `{"jsonrpc":"2.0","id":2,"method":"ping"}`); body != `{"jsonrpc":"2.0","result":{},"id":2}` {
		t.Errorf("ping: %s", body)
	}
	_, body := mcpAnswer(t, url, sid, `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`)
	var list struct {
		Result struct {
			Tools []struct {
				Name        string
				InputSchema struct {
					Type       string
					Properties map[string]json.RawMessage
				}
			}
		}
	}
	if err := json.Unmarshal([]byte(body), &list); err != nil {
		t.Fatalf("tools/list: %v: %s", err, body)
	}
	tools := map[string]map[string]json.RawMessage{}
	for _, tool := range list.Result.Tools {
		if tool.InputSchema.Type != "object" {
			t.Errorf("tool %s: input schema of type %q, want object", tool.Name, tool.InputSchema.Type)
		}
		tools[tool.Name] = tool.InputSchema.Properties
	}
	for _, name := range []string{"add", "subtract", "subscribe", "publish"} {
		if _, ok := tools[name]; !ok {
			t.Errorf("tools/list has no %s: %s", name, body)
		}
	}
	if _, ok := tools["rpc.discover"]; ok {
		t.Error("tools/list lists rpc.discover")
	}
	if p := tools["subtract"]; p["minuend"] == nil || p["subtrahend"] == nil {
		t.Errorf("subtract's input schema: %v", p)
	}

	for _, c := range []struct{ req, want string }{
		{`{"name":"subtract","arguments":{"minuend":42,"subtrahend":23}}`, `{"content":[{"text":"19","type":"text"}]}`},
		// add takes its params by position: the arguments in the order
		// of its schema's properties.
		{`{"name":"add","arguments":{` + argsOf(tools["add"], "1", "2") + `}}`, `{"content":[{"text":"3","type":"text"}]}`},
		// sum's one param is variadic: its array's elements are the
		// params.
		{`{"name":"sum","arguments":{"param0":[1,2,3.5]}}`, `{"content":[{"text":"6.5","type":"text"}]}`},
		{`{"name":"subtract","arguments":{"minuend":"x"}}`, `"isError":true`},
		// The _meta of MCP's requests, and the one progress's schema
		// lists (issue 34: refused as an unknown param).
		{`{"name":"progress","arguments":{"steps":1},"_meta":{"progressToken":"t"}}`, `"result":{"content":[{"text":"1","type":"text"}]}`},
		{`{"name":"progress","arguments":{"steps":1,"_meta":{"progressToken":"t"}}}`, `"result":{"content":[{"text":"1","type":"text"}]}`},
	} {
		_, body := mcpAnswer(t, url, sid, `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":`+c.req+`}`)
		if !strings.Contains(body, c.want) {
			t.Errorf("tools/call %s: %s, want %s", c.req, body, c.want)
		}
	}
	if _, body := mcpAnswer(t, url, sid, `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"nope"}}`); !strings.Contains(body, `"code":-32602`) {
		t.Errorf("tools/call of an unknown tool: %s, want -32602", body)
	}

	// subscribe, then publish: the value reaches the session's GET stream.
	_, body = mcpAnswer(t, url, sid, `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"subscribe"}}`)
	var sub struct {
		Result struct{ Content []struct{ Text string } }
	}
	if json.Unmarshal([]byte(body), &sub) != nil || len(sub.Result.Content) != 1 {
		t.Fatalf("tools/call subscribe: %s", body)
	}
	subID := strings.Trim(sub.Result.Content[0].Text, `"`)
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	get, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	get.Header.Set("Accept", "text/event-stream")
	get.Header.Set("Mcp-Session-Id", sid)
	get.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	gresp, err := http.DefaultClient.Do(get)
	if err != nil {
		t.Fatal(err)
	}
	defer gresp.Body.Close()
	br := bufio.NewReader(gresp.Body)
	nextEvent(t, br) // priming
	if _, body := mcpAnswer(t, url, sid, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"publish","arguments":{"s":"ab","n":2}}}`); !strings.Contains(body, `"text":"1"`) {
		t.Errorf("tools/call publish: %s", body)
	}
	if ev := nextEvent(t, br); ev.data != `{"jsonrpc":"2.0","method":"subscription","params":{"subscription":"`+subID+`","result":"abab"}}` {
		t.Errorf("the GET stream's event: %s", ev.data)
	}

	// MCP 2026-07-28 is not spoken here.
	resp26 := mcpPost(t, url, "", `{"jsonrpc":"2.0","id":8,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`,
		"Mcp-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/list")
	b26, _ := io.ReadAll(resp26.Body)
	if resp26.StatusCode != http.StatusBadRequest || !strings.Contains(string(b26), `"code":-32022`) || !strings.Contains(string(b26), `"2025-11-25"`) {
		t.Errorf("a request of 2026-07-28: %d %s, want 400 with -32022 and the versions spoken", resp26.StatusCode, b26)
	}

	// -mcp begins its sessions with initialize only.
	if _, code, _ := parseFlags([]string{"-mcp", "-sessions", "subscribe"}, io.Discard); code != 2 {
		t.Errorf("-mcp -sessions subscribe: exit %d, want 2", code)
	}
}

// argsOf gives the properties of a schema, in the order the server
// numbered them, the values vs: the members of a tool's arguments.
func argsOf(props map[string]json.RawMessage, vs ...string) string {
	var names []string
	for n := range props {
		names = append(names, n)
	}
	// The server's names of params by position sort as their positions.
	slices.Sort(names)
	var b strings.Builder
	for i, n := range names {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"` + n + `":` + vs[i])
	}
	return b.String()
}

// TestMCPConcurrentTools: -mcp runs a session's tool calls on goroutines
// of their own, so that the session goes on reading while one runs: a ping
// is answered while a tool waits, and notifications/cancelled reaches the
// tool's context and ends it. Before, a tool ran on the session's reading
// goroutine: a ping waited 9.5 s behind a 10-second tool, and a cancel was
// read only once the call had ended (issue 34). The tool hold says when it
// has begun and when its context has ended.
func TestMCPConcurrentTools(t *testing.T) {
	began, ended := make(chan struct{}), make(chan struct{})
	srv := jsonrpc.NewServer()
	srv.MustRegister("hold", func(ctx context.Context) (int, error) {
		close(began)
		<-ctx.Done()
		close(ended)
		return 0, ctx.Err()
	}, jsonrpc.Blocking())
	s := startServing(t, srv, "-mcp", "-ws=false")
	url := "http://" + s.httpAddr + "/mcp"

	resp := mcpPost(t, url, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`)
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || sid == "" {
		t.Fatalf("initialize: %d, Mcp-Session-Id %q", resp.StatusCode, sid)
	}
	if status, body := mcpAnswer(t, url, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); status != http.StatusAccepted {
		t.Fatalf("notifications/initialized: %d %s", status, body)
	}

	// post POSTs req in the session, for a goroutine of its own: the
	// status and body, or the error.
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	post := func(req string) string {
		r, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(req))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "application/json, text/event-stream")
		r.Header.Set("Mcp-Session-Id", sid)
		r.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		resp, err := http.DefaultClient.Do(r)
		if err != nil {
			return err.Error()
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return fmt.Sprintf("%d %s", resp.StatusCode, bytes.TrimSpace(b))
	}
	// The call of hold: its POST waits for its answer.
	answered := make(chan string, 1)
	go func() { answered <- post(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"hold"}}`) }()
	select {
	case <-began:
	case <-time.After(wait):
		t.Fatal("the tool hold did not begin")
	}

	// A ping is answered while hold runs.
	pinged := make(chan string, 1)
	go func() { pinged <- post(`{"jsonrpc":"2.0","id":2,"method":"ping"}`) }()
	select {
	case body := <-pinged:
		if body != `200 {"jsonrpc":"2.0","result":{},"id":2}` {
			t.Errorf("ping while a tool runs: %s", body)
		}
	case <-ended:
		t.Fatal("the tool ended before the ping was answered")
	case <-time.After(wait):
		t.Fatal("a ping was not answered while a tool ran")
	}
	select {
	case <-ended:
		t.Fatal("the tool ended before it was cancelled")
	default:
	}

	// notifications/cancelled reaches the tool while it runs.
	if status, body := mcpAnswer(t, url, sid, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9,"reason":"test"}}`); status != http.StatusAccepted {
		t.Fatalf("notifications/cancelled: %d %s", status, body)
	}
	select {
	case <-ended:
	case <-time.After(wait):
		t.Fatal("notifications/cancelled did not end the tool")
	}
	select {
	case a := <-answered:
		// MCP: a call its client cancels gets no answer.
		if strings.Contains(a, `"id":9`) {
			t.Errorf("the cancelled call was answered: %s", a)
		}
	case <-time.After(wait):
		t.Error("the cancelled call's POST did not end")
	}
}
