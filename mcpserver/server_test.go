package mcpserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jsonrpc-go/jsonrpc/mcpserver"
	"github.com/jsonrpc-go/jsonrpc/protocol/mcp"
	"github.com/jsonrpc-go/jsonrpc/protocol/progress"
)

// full returns a server with one of everything.
func full() *mcpserver.Server {
	s := mcpserver.New("full", "2.0.0", &mcpserver.Options{ListTTL: time.Minute, Instructions: "Be kind."})
	mcpserver.AddTool(s, "echo", func(_ context.Context, in struct {
		Text string `json:"text"`
	}) (string, error) {
		return in.Text, nil
	})
	mcpserver.AddTool(s, "meta", func(ctx context.Context, _ struct{}) (string, error) {
		r := mcpserver.RequestOf(ctx)
		return fmt.Sprintf("%s %v %s form=%v", r.Version, r.Stateless, r.Meta, r.Capabilities.FormElicitation()), nil
	})
	mcpserver.AddTool(s, "work", func(ctx context.Context, in struct {
		Steps int `json:"steps"`
	}) (string, error) {
		for i := range in.Steps {
			if err := ctx.Err(); err != nil {
				return "", err
			}
			progress.Of(ctx).Report(ctx, mcp.Progress{Progress: float64(i), Total: float64(in.Steps)})
			mcpserver.Log(ctx, mcpserver.LevelDebug, "step")
			mcpserver.Log(ctx, mcpserver.LevelWarning, map[string]int{"step": i})
			time.Sleep(20 * time.Millisecond)
		}
		return "done", nil
	})
	mcpserver.AddTool(s, "touch", func(ctx context.Context, in struct {
		URI string `json:"uri"`
	}) (string, error) {
		s.ResourceUpdated(ctx, in.URI)
		return "touched", nil
	})
	s.AddResource(mcpserver.Resource{URI: "test://a", Name: "a", MIMEType: "text/plain", TTL: time.Second}, func(_ context.Context, uri string) ([]mcpserver.ResourceContents, error) {
		return []mcpserver.ResourceContents{{URI: uri, MIMEType: "text/plain", Text: "A"}}, nil
	})
	s.AddResourceTemplate(mcpserver.ResourceTemplate{URITemplate: "test://item/{id}/part/{part}", Name: "item"}, func(_ context.Context, uri string, vars map[string]string) ([]mcpserver.ResourceContents, error) {
		if vars["id"] == "0" {
			return nil, mcpserver.ErrResourceNotFound
		}
		return []mcpserver.ResourceContents{{URI: uri, Text: vars["id"] + "/" + vars["part"]}}, nil
	})
	s.AddPrompt(mcpserver.Prompt{Name: "greet", Arguments: []mcpserver.PromptArgument{{Name: "who", Required: true}}}, func(_ context.Context, args map[string]string) (*mcpserver.PromptResult, error) {
		return &mcpserver.PromptResult{Messages: []mcpserver.PromptMessage{{Role: "user", Content: mcpserver.Text("Greet " + args["who"])}}}, nil
	})
	s.HandleCompletion(func(_ context.Context, req *mcpserver.CompleteRequest) (mcpserver.Completion, error) {
		return mcpserver.Complete(req.Argument.Value, "alice", "albert", "bob"), nil
	})
	s.JSONRPC().MustRegister("x/noparams", func(ctx context.Context) (string, error) {
		return string(mcpserver.RequestOf(ctx).Meta), nil
	})
	return s
}

// TestHandshake: a session of 2025-11-25 over stdio: initialize, the
// capabilities of what is registered, the lists without the fields of
// 2026-07-28, requests before initialize refused.
func TestHandshake(t *testing.T) {
	w := serve(t, full())
	if a := w.call("1", "tools/list", "{}"); code(a) != -32602 {
		t.Errorf("tools/list before initialize: %s", a)
	}
	if a := w.call("2", "server/discover", "{}"); code(a) != -32602 {
		t.Errorf("server/discover without _meta: %s", a)
	}
	if a := w.call("3", "ping", "{}"); result(t, a) != "{}" {
		t.Errorf("ping: %s", a)
	}
	a := w.initialize("2099-01-01", `{"elicitation":{}}`)
	if want := `{"protocolVersion":"2025-11-25","capabilities":{"tools":{},"resources":{"subscribe":true},"prompts":{},"logging":{},"completions":{}},"serverInfo":{"name":"full","version":"2.0.0"},"instructions":"Be kind."}`; result(t, a) != want {
		t.Errorf("initialize: %s\nwant %s", result(t, a), want)
	}
	a = w.call("4", "tools/call", `{"name":"meta","_meta":{"progressToken":"p","x":1}}`)
	if got := result(t, a, "content"); got != `[{"type":"text","text":"2025-11-25 false {\"progressToken\":\"p\",\"x\":1} form=true"}]` {
		t.Errorf("meta: %s", a)
	}
	for _, m := range []string{"tools/list", "resources/list", "resources/templates/list", "prompts/list"} {
		if a := w.call("5", m, "{}"); strings.Contains(a, "resultType") || strings.Contains(a, "ttlMs") {
			t.Errorf("%s under 2025-11-25: %s", m, a)
		}
	}
	if a := w.call("6", "x/noparams", `{"_meta":{"k":"v"}}`); result(t, a) != `"{\"k\":\"v\"}"` {
		t.Errorf("a method without params, sent _meta: %s", a)
	}
}

// TestStateless: requests of 2026-07-28: resultType and serverInfo on
// every result, the caching hints of the cacheable ones, the methods of
// the handshake refused, versions checked.
func TestStateless(t *testing.T) {
	w := serve(t, full())
	a := w.call("1", "server/discover", stateless("{}", ""))
	if got := result(t, a); got != `{"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"full","version":"2.0.0"}},"supportedVersions":["2026-07-28","2025-11-25","2025-06-18"],"capabilities":{"tools":{},"resources":{"subscribe":true},"prompts":{},"logging":{},"completions":{}},"instructions":"Be kind.","ttlMs":60000,"cacheScope":"public"}` {
		t.Errorf("server/discover: %s", got)
	}
	for _, tc := range []struct{ method, params, want string }{
		{"tools/list", stateless("{}", ""), `"ttlMs":60000`},
		{"resources/read", stateless("{}", `"uri":"test://a"`), `"ttlMs":1000`},
		{"resources/read", stateless("{}", `"uri":"test://item/7/part/x"`), `"text":"7/x"`},
		{"tools/call", stateless(`{"elicitation":{"form":{}}}`, `"name":"meta"`), `2026-07-28 true`},
		{"tools/call", stateless(`{}`, `"name":"echo","arguments":{"text":"hi"}`), `{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"full","version":"2.0.0"}},"content":[{"type":"text","text":"hi"}],"resultType":"complete"}`},
		{"prompts/get", stateless(`{}`, `"name":"greet","arguments":{"who":"Ann"}`), `"resultType":"complete"`},
		{"completion/complete", stateless(`{}`, `"ref":{"type":"ref/prompt","name":"greet"},"argument":{"name":"who","value":"AL"}`), `"completion":{"values":["alice","albert"],"total":2}`},
		{"x/noparams", stateless(`{}`, ""), `io.modelcontextprotocol/protocolVersion`},
	} {
		a := w.call("2", tc.method, tc.params)
		if code(a) != 0 || !strings.Contains(result(t, a), tc.want) || !strings.Contains(a, `"resultType":"complete"`) && !strings.HasPrefix(tc.method, "x/") {
			t.Errorf("%s %s: %s, want %s", tc.method, tc.params, a, tc.want)
		}
	}
	for _, tc := range []struct {
		method, params string
		code           int
	}{
		{"tools/list", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-11-25","io.modelcontextprotocol/clientCapabilities":{}}}`, -32022},
		{"tools/list", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`, -32602},
		{"ping", stateless("{}", ""), -32601},
		{"logging/setLevel", stateless("{}", `"level":"info"`), -32601},
		{"resources/read", stateless("{}", `"uri":"test://none"`), -32602},
		{"resources/read", stateless("{}", `"uri":"test://item/0/part/x"`), -32602},
		{"prompts/get", stateless("{}", `"name":"greet"`), -32602},
		{"completion/complete", stateless("{}", `"ref":{"type":"ref/other"},"argument":{"name":"a","value":""}`), -32602},
	} {
		if a := w.call("3", tc.method, tc.params); code(a) != tc.code {
			t.Errorf("%s %s: %s, want %d", tc.method, tc.params, a, tc.code)
		}
	}
}

// TestResources: reads of a resource and a template's, not found by
// revision, subscriptions of both revisions told of a change.
func TestResources(t *testing.T) {
	w := serve(t, full())
	w.initialize("2025-11-25", "{}")
	a := w.call("1", "resources/read", `{"uri":"test://a"}`)
	if got := result(t, a); got != `{"contents":[{"uri":"test://a","mimeType":"text/plain","text":"A"}]}` {
		t.Errorf("read: %s", got)
	}
	for _, uri := range []string{"test://b", "test://item/0/part/x", "test://item//part/x", "test://item/1/part/x/y"} {
		if a := w.call("2", "resources/read", `{"uri":"`+uri+`"}`); code(a) != -32002 || !strings.Contains(a, uri) {
			t.Errorf("read %s: %s, want -32002", uri, a)
		}
	}
	if a := w.call("3", "resources/templates/list", `{}`); result(t, a) != `{"resourceTemplates":[{"uriTemplate":"test://item/{id}/part/{part}","name":"item"}]}` {
		t.Errorf("templates: %s", a)
	}
	if a := w.call("4", "resources/subscribe", `{"uri":"test://none"}`); code(a) != -32002 {
		t.Errorf("subscribe to nothing: %s", a)
	}
	w.call("5", "resources/subscribe", `{"uri":"test://a"}`)
	// A subscription of 2026-07-28 on the same connection.
	w.send(`{"jsonrpc":"2.0","id":"l","method":"subscriptions/listen","params":` + stateless("{}", `"notifications":{"resourceSubscriptions":["test://a","test://none","test://a"],"toolsListChanged":true}`) + `}`)
	if ack := w.next(); !strings.Contains(ack, `"method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"l"},"notifications":{"resourceSubscriptions":["test://a"]}}`) {
		t.Fatalf("the acknowledgment: %s", ack)
	}
	w.send(`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"touch","arguments":{"uri":"test://a"}}}`)
	_, before := w.answer("6")
	seen := strings.Join(before, "\n")
	for !strings.Contains(seen, `subscriptionId`) {
		seen += w.next()
	}
	if !strings.Contains(strings.Join(before, "\n"), `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"test://a"}}`) || !strings.Contains(seen, `"params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"l"},"uri":"test://a"}`) {
		t.Errorf("the updates: %s", seen)
	}
	w.call("7", "resources/unsubscribe", `{"uri":"test://a"}`)
	w.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"l"}}`)
	w.call("8", "ping", "{}")
	if _, before := w.answer2("9", `{"name":"touch","arguments":{"uri":"test://a"}}`); len(before) != 0 {
		t.Errorf("updates after unsubscribe and cancel: %v", before)
	}
	if rest := w.close(); len(rest) != 0 {
		t.Errorf("after the input ended: %v", rest)
	}
}

func (w *wire) answer2(id, params string) (string, []string) {
	w.t.Helper()
	w.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":` + params + `}`)
	return w.answer(id)
}

// TestProgressLogCancel: a tool's progress on the client's token, its log
// messages at the session's level (every one under 2026-07-28), and its
// cancellation: no answer.
func TestProgressLogCancel(t *testing.T) {
	w := serve(t, full())
	w.initialize("2025-11-25", "{}")
	if a := w.call("1", "logging/setLevel", `{"level":"loud"}`); code(a) != -32602 {
		t.Errorf("setLevel loud: %s", a)
	}
	w.call("2", "logging/setLevel", `{"level":"info"}`)
	a, before := w.answer2("3", `{"name":"work","arguments":{"steps":2},"_meta":{"progressToken":"t"}}`)
	got := strings.Join(before, "\n")
	if result(t, a, "content") != `[{"type":"text","text":"done"}]` || strings.Count(got, `"method":"notifications/progress","params":{"progress":`) != 2 ||
		strings.Count(got, `"method":"notifications/message","params":{"level":"warning","logger":"full","data":{"step":`) != 2 || strings.Contains(got, `"debug"`) {
		t.Errorf("work: %s\n%s", a, got)
	}
	_, before = w.answer2("4", stateless("{}", `"name":"work","arguments":{"steps":1}`))
	if len(before) != 0 {
		t.Errorf("work at 2026-07-28 without a logLevel: %v, want no messages and no progress", before)
	}
	_, before = w.answer2("4", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":"debug"},"name":"work","arguments":{"steps":1}}`)
	if len(before) != 2 || !strings.Contains(before[0], `"level":"debug"`) {
		t.Errorf("work at 2026-07-28 with logLevel debug: %v, want both messages and no progress", before)
	}
	_, before = w.answer2("4", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":"error"},"name":"work","arguments":{"steps":1}}`)
	if len(before) != 0 {
		t.Errorf("work at 2026-07-28 with logLevel error: %v, want none", before)
	}
	if a, _ := w.answer2("4", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":"loud"},"name":"work","arguments":{"steps":1}}`); code(a) != -32602 {
		t.Errorf("logLevel loud: %s, want -32602", a)
	}
	w.send(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"work","arguments":{"steps":500},"_meta":{"progressToken":"c"}}}`)
	w.next()
	w.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5}}`)
	w.call("6", "logging/setLevel", `{"level":"emergency"}`)
	time.Sleep(100 * time.Millisecond)
	w.call("7", "ping", "{}")
	for _, l := range w.close() {
		if strings.Contains(l, `"id":5`) {
			t.Errorf("the cancelled call was answered: %s", l)
		}
	}
}

// TestHTTP: the handler serves a session of 2025-11-25 and a stateless
// request of 2026-07-28 on one endpoint.
func TestHTTP(t *testing.T) {
	srv := httptest.NewServer(full().HTTPHandler())
	defer srv.Close()
	post := func(body string, h ...string) (*http.Response, string) {
		req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		for i := 0; i+1 < len(h); i += 2 {
			req.Header.Set(h[i], h[i+1])
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, string(b)
	}
	resp, body := post(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	sid := resp.Header.Get("Mcp-Session-Id")
	if sid == "" || !strings.Contains(body, `"protocolVersion":"2025-11-25"`) {
		t.Fatalf("initialize: %v %s", resp.Header, body)
	}
	_, body = post(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"in a session"}}}`, "Mcp-Session-Id", sid, "Mcp-Protocol-Version", "2025-11-25")
	if !strings.Contains(body, `"text":"in a session"`) || strings.Contains(body, "resultType") {
		t.Errorf("a call in the session: %s", body)
	}
	resp, body = post(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":`+stateless("{}", `"name":"echo","arguments":{"text":"alone"}`)+`}`,
		"Mcp-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call", "Mcp-Name", "echo")
	if resp.StatusCode != 200 || resp.Header.Get("Mcp-Session-Id") != "" || !strings.Contains(body, `"resultType":"complete"`) || !strings.Contains(body, `"text":"alone"`) {
		t.Errorf("a stateless call: %d %s", resp.StatusCode, body)
	}
}

// TestRegisterWhileServing: a registration made while the server serves
// is seen by the requests after it.
func TestRegisterWhileServing(t *testing.T) {
	s := mcpserver.New("live", "1", nil)
	w := serve(t, s)
	w.initialize("2025-11-25", "{}")
	var n atomic.Int32
	for i := range 3 {
		mcpserver.AddTool(s, fmt.Sprint("t", i), func(context.Context, struct{}) (int32, error) { return n.Add(1), nil })
		var list struct{ Tools []json.RawMessage }
		json.Unmarshal([]byte(result(t, w.call("1", "tools/list", "{}"))), &list)
		if len(list.Tools) != i+1 {
			t.Errorf("%d tools after %d registrations", len(list.Tools), i+1)
		}
	}
}
