package nginx_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/deploy/nginx"
	"github.com/jsonrpc-go/jsonrpc/protocol/mcp"
	"github.com/jsonrpc-go/jsonrpc/protocol/progress"
	"github.com/jsonrpc-go/jsonrpc/streamhttp"
	"github.com/jsonrpc-go/jsonrpc/transport"
)

// wait bounds each exchange of the Streamable HTTP tests: an event that
// does not pass nginx fails the test then, instead of hanging it.
const wait = 30 * time.Second

// TestStreamableConfig: each location of Streamable HTTP passes events on
// unbuffered, uncached and uncompressed, over HTTP/1.1, for an hour
// between two reads or writes, and sets no header of its own, so that it
// inherits the server's (no Connection header to the process).
func TestStreamableConfig(t *testing.T) {
	var conf bytes.Buffer
	if err := nginx.Write(&conf, nginx.Params{Dir: "/d", Listen: "127.0.0.1:8000", Backends: []string{"127.0.0.1:8080", "127.0.0.1:8081"}, Workers: 1}); err != nil {
		t.Fatal(err)
	}
	text := conf.String()
	for _, loc := range []string{"location = /mcp {", "location = /node/0/mcp {", "location = /node/1/mcp {"} {
		i := strings.Index(text, loc)
		if i < 0 {
			t.Errorf("no %s in the configuration", loc)
			continue
		}
		block := text[i : i+strings.Index(text[i:], "}")]
		for _, want := range []string{"proxy_buffering off;", "proxy_cache off;", "gzip off;", "proxy_http_version 1.1;", "proxy_read_timeout 1h;", "proxy_send_timeout 1h;"} {
			if !strings.Contains(block, want) {
				t.Errorf("%s has no %s", loc, want)
			}
		}
		if strings.Contains(block, "proxy_set_header") {
			t.Errorf("%s sets a header of its own, and so inherits none of the server's", loc)
		}
	}
	if !strings.Contains(text, "proxy_set_header Connection $jsonrpcd_connection;") || !strings.Contains(text, `"" "";`) {
		t.Error("the server does not send an empty Connection header to the processes for requests that are not upgrades")
	}
}

// An sseEvent is one event of a stream: its id, retry field and data.
type sseEvent struct{ id, retry, data string }

// sseReader reads the events of a stream, skipping comments.
type sseReader struct{ br *bufio.Reader }

// next returns the next event, or an error when the stream ends first.
func (r sseReader) next() (sseEvent, error) {
	var ev sseEvent
	seen := false
	for {
		line, err := r.br.ReadString('\n')
		if err != nil {
			return ev, err
		}
		line = strings.TrimSuffix(line, "\n")
		field, value, _ := strings.Cut(line, ": ")
		switch {
		case line == "":
			if seen {
				return ev, nil
			}
		case strings.HasPrefix(line, ":"): // a comment
		case field == "id":
			ev.id, seen = value, true
		case field == "retry":
			ev.retry, seen = value, true
		case field == "data":
			ev.data, seen = value, true
		case field == "event":
			seen = true
		}
	}
}

// message is what the tests read of a JSON-RPC message, decoded.
type message struct {
	Method string
	Params struct {
		Progress     float64
		Subscription string
		Result       string
	}
	Result json.RawMessage
	Error  *struct{ Message string }
}

// decode decodes the data of ev.
func decode(t *testing.T, ev sseEvent) message {
	t.Helper()
	var m message
	if err := json.Unmarshal([]byte(ev.data), &m); err != nil {
		t.Fatalf("event %+v: %v", ev, err)
	}
	return m
}

// mcpRequest is a POST of body to url, as a Streamable HTTP client sends
// it, with the headers of h added.
func mcpRequest(ctx context.Context, url, body string, h http.Header) *http.Request {
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range h {
		req.Header[k] = v
	}
	return req
}

// gatedServer is a Streamable HTTP server on loopback in the test's
// process, whose method gated reports its progress once, waits until the
// test sends on release, reports again and answers. It records what it
// saw of each request's headers.
type gatedServer struct {
	addr    string
	release chan struct{}

	mu      sync.Mutex // protects the field below
	headers []http.Header
	protos  []string
}

func startGated(t *testing.T) *gatedServer {
	t.Helper()
	g := &gatedServer{release: make(chan struct{})}
	srv := jsonrpc.NewServer()
	srv.MustRegister("gated", func(ctx context.Context, p struct {
		Meta json.RawMessage `json:"_meta"`
	}) (string, error) {
		pr := progress.Of(ctx)
		if pr == nil {
			return "", errors.New("no progress token")
		}
		if err := pr.Report(ctx, mcp.Progress{Progress: 1, Total: 2}); err != nil {
			return "", err
		}
		select {
		case <-g.release:
		case <-ctx.Done():
			return "", ctx.Err()
		}
		if err := pr.Report(ctx, mcp.Progress{Progress: 2, Total: 2}); err != nil {
			return "", err
		}
		return "released", nil
	}, jsonrpc.Blocking())
	h := &streamhttp.Handler{Server: srv, Health: &transport.Health{}}
	mux := http.NewServeMux()
	mux.Handle(transport.ReadyPath, h) // the probe startNginx waits for
	mux.Handle("/mcp", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		g.mu.Lock()
		g.headers = append(g.headers, r.Header.Clone())
		g.protos = append(g.protos, r.Proto)
		g.mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: mux}
	go hs.Serve(l)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), wait)
		defer cancel()
		h.Shutdown(ctx)
		hs.Shutdown(ctx)
	})
	g.addr = l.Addr().String()
	return g
}

// TestStreamableEvents: a POST whose method reports progress gets each
// event through nginx as it is sent. The method waits after its first
// report until the test lets it go on, and the test reads that report
// through nginx before it does: an nginx that held the events back until
// its buffer filled, or until the answer, would never pass it on, and the
// test would fail when wait ends. Then the second report and the answer
// come, in order, and the request reached the process over HTTP/1.1,
// with no Connection header and the MCP headers as sent.
func TestStreamableEvents(t *testing.T) {
	nginxBinary(t)
	g := startGated(t)
	addr := startNginx(t, []string{g.addr})
	mcpHeaders := http.Header{"Mcp-Protocol-Version": {"2025-11-25"}, "Mcp-Method": {"gated"}, "Mcp-Name": {"the-name"}}
	for i, path := range []string{"/mcp", "/node/0/mcp"} {
		ctx, cancel := context.WithTimeout(context.Background(), wait)
		defer cancel()
		body := fmt.Sprintf(`{"jsonrpc":"2.0","method":"gated","params":{"_meta":{"progressToken":"p%d"}},"id":%d}`, i, i)
		resp, err := http.DefaultClient.Do(mcpRequest(ctx, "http://"+addr+path, body, mcpHeaders))
		if err != nil {
			t.Fatalf("POST %s: no answer through nginx while the method waited (held back by a buffer?): %v", path, err)
		}
		defer resp.Body.Close()
		if ct := resp.Header.Get("Content-Type"); resp.StatusCode != 200 || ct != "text/event-stream" {
			t.Fatalf("POST %s: %d %s, want 200 text/event-stream", path, resp.StatusCode, ct)
		}
		events := sseReader{bufio.NewReader(resp.Body)}
		first, err := events.next()
		if err != nil {
			t.Fatalf("POST %s: the first report did not pass nginx while the method waited (held back by a buffer?): %v", path, err)
		}
		if m := decode(t, first); m.Method != "notifications/progress" || m.Params.Progress != 1 {
			t.Fatalf("POST %s: the first event is %s, want the report of progress 1", path, first.data)
		}
		select {
		case g.release <- struct{}{}:
		case <-ctx.Done():
			t.Fatalf("POST %s: the method did not wait to be released", path)
		}
		second, err := events.next()
		if err != nil {
			t.Fatalf("POST %s: the second report: %v", path, err)
		}
		if m := decode(t, second); m.Method != "notifications/progress" || m.Params.Progress != 2 {
			t.Errorf("POST %s: the second event is %s, want the report of progress 2", path, second.data)
		}
		last, err := events.next()
		if err != nil {
			t.Fatalf("POST %s: the answer: %v", path, err)
		}
		if m := decode(t, last); string(m.Result) != `"released"` {
			t.Errorf("POST %s: the last event is %s, want the answer", path, last.data)
		}
		if ev, err := events.next(); err != io.EOF {
			t.Errorf("POST %s: after the answer: %+v, %v; want the stream's end", path, ev, err)
		}
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.headers) != 2 {
		t.Fatalf("the process saw %d requests, want 2", len(g.headers))
	}
	for i, hd := range g.headers {
		if g.protos[i] != "HTTP/1.1" || hd.Get("Connection") != "" {
			t.Errorf("request %d reached the process over %s with Connection %q, want HTTP/1.1 and none", i, g.protos[i], hd.Get("Connection"))
		}
		for k, v := range mcpHeaders {
			if hd.Get(k) != v[0] {
				t.Errorf("request %d reached the process with %s %q, want %q", i, k, hd.Get(k), v[0])
			}
		}
	}
}

// mcpClient is a client of a session of jsonrpcd -sessions subscribe or
// -mcp through nginx.
type mcpClient struct {
	t      *testing.T
	ctx    context.Context
	url    string
	id     string      // the session's, from its first answer
	node   string      // the process that answered it (X-Upstream)
	header http.Header // sent with every request but the first (MCP-Protocol-Version)
}

// call POSTs body in the session (or begins it) and returns the answer,
// which must come as JSON, from the session's process.
func (c *mcpClient) call(body string, h http.Header) message {
	c.t.Helper()
	if c.id != "" {
		h = c.headers(h)
	}
	resp, err := http.DefaultClient.Do(mcpRequest(c.ctx, c.url, body, h))
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json" {
		c.t.Fatalf("%s: %d %s: %s", body, resp.StatusCode, resp.Header.Get("Content-Type"), b)
	}
	if c.id == "" {
		c.id, c.node = resp.Header.Get("Mcp-Session-Id"), answeredBy(resp)
		if c.id == "" {
			c.t.Fatalf("%s began no session: no Mcp-Session-Id in its answer", body)
		}
	} else if up := answeredBy(resp); up != c.node {
		c.t.Fatalf("%s in the session went to %s, not to %s, the session's process", body, up, c.node)
	}
	var m message
	if err := json.Unmarshal(b, &m); err != nil || m.Error != nil {
		c.t.Fatalf("%s answered %s", body, b)
	}
	return m
}

// answeredBy returns the process that answered resp: the last address
// of its X-Upstream, which lists each process nginx tried, in turn.
func answeredBy(resp *http.Response) string {
	up := resp.Header.Get("X-Upstream")
	return strings.TrimSpace(up[strings.LastIndexByte(up, ',')+1:])
}

// headers returns h with the session's id and c.header.
func (c *mcpClient) headers(h http.Header) http.Header {
	h = h.Clone()
	if h == nil {
		h = http.Header{}
	}
	for k, v := range c.header {
		h[k] = v
	}
	h.Set("Mcp-Session-Id", c.id)
	return h
}

// notify POSTs the notification body in the session: 202, from the
// session's process.
func (c *mcpClient) notify(body string) {
	c.t.Helper()
	resp, err := http.DefaultClient.Do(mcpRequest(c.ctx, c.url, body, c.headers(nil)))
	if err != nil {
		c.t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted || answeredBy(resp) != c.node {
		c.t.Fatalf("%s: %d from %s, want 202 from %s", body, resp.StatusCode, answeredBy(resp), c.node)
	}
}

// tool calls the MCP tool name with the JSON object args ("" for none)
// and returns its result's text, which must not be an error.
func (c *mcpClient) tool(name, args string) string {
	c.t.Helper()
	params := fmt.Sprintf(`{"name":%q}`, name)
	if args != "" {
		params = fmt.Sprintf(`{"name":%q,"arguments":%s}`, name, args)
	}
	m := c.call(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":`+params+`}`, nil)
	var r struct {
		Content []struct{ Type, Text string }
		IsError bool
	}
	if err := json.Unmarshal(m.Result, &r); err != nil || r.IsError || len(r.Content) != 1 || r.Content[0].Type != "text" {
		c.t.Fatalf("tools/call %s %s answered %s", name, args, m.Result)
	}
	return r.Content[0].Text
}

// get opens the session's GET stream, resuming after lastEventID unless
// it is "".
func (c *mcpClient) get(lastEventID string) (sseReader, io.Closer) {
	c.t.Helper()
	req, _ := http.NewRequestWithContext(c.ctx, http.MethodGet, c.url, nil)
	req.Header = c.headers(nil)
	req.Header.Set("Accept", "text/event-stream")
	if lastEventID != "" {
		req.Header.Set("Last-Event-ID", lastEventID)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" || answeredBy(resp) != c.node {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		c.t.Fatalf("GET (Last-Event-ID %q): %d %s from %s: %s", lastEventID, resp.StatusCode, resp.Header.Get("Content-Type"), answeredBy(resp), b)
	}
	c.t.Cleanup(func() { resp.Body.Close() })
	return sseReader{bufio.NewReader(resp.Body)}, resp.Body
}

// publish publishes value on the feed of the session's process, which
// has one subscriber: the session.
func (c *mcpClient) publish(value string) {
	c.t.Helper()
	if m := c.call(fmt.Sprintf(`{"jsonrpc":"2.0","method":"publish","params":[%q,1],"id":2}`, value), nil); string(m.Result) != "1" {
		c.t.Fatalf("publish %s: queued for %s subscribers, want 1", value, m.Result)
	}
}

// notification reads the next event of the GET stream, which must be the
// feed's notification of value for the subscription sub, and returns its id.
func notification(t *testing.T, events sseReader, sub, value string) string {
	t.Helper()
	ev, err := events.next()
	if err != nil {
		t.Fatalf("waiting for the notification of %s on the GET stream: %v", value, err)
	}
	if m := decode(t, ev); m.Method != "subscription" || m.Params.Subscription != sub || m.Params.Result != value || ev.id == "" {
		t.Fatalf("the GET stream's event is %+v, want the notification of %s, with an id", ev, value)
	}
	return ev.id
}

// TestStreamableSessions: two jsonrpcd -sessions subscribe behind nginx.
// A subscribe POSTed to /mcp begins a session on one process, and every
// request of the session reaches that process (the other does not know
// the session: 404). The session's GET stream through nginx gets what the
// feed publishes; a client whose GET stream broke resumes it through
// nginx with Last-Event-ID and gets exactly the events it missed, then the
// stream goes on. X-Jsonrpcd-Node and /node/N/mcp pick a process.
func TestStreamableSessions(t *testing.T) {
	backends, _ := startJsonrpcd(t, 2, "-sessions", "subscribe")
	addr := startNginx(t, backends)
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	c := &mcpClient{t: t, ctx: ctx, url: "http://" + addr + "/mcp"}
	var sub string
	if err := json.Unmarshal(c.call(`{"jsonrpc":"2.0","method":"subscribe","id":1}`, nil).Result, &sub); err != nil || sub == "" {
		t.Fatalf("subscribe: %q, %v", sub, err)
	}
	other := backends[0]
	if c.node == backends[0] {
		other = backends[1]
	}

	events, stream := c.get("")
	prime, err := events.next()
	if err != nil || prime.id == "" || prime.retry == "" || prime.data != "" {
		t.Fatalf("the GET stream's first event: %+v, %v; want an id, a retry and no data", prime, err)
	}
	c.publish("a")
	last := notification(t, events, sub, "a")

	// The connection breaks; two values are published meanwhile.
	stream.Close()
	c.publish("b")
	c.publish("c")
	events, _ = c.get(last)
	idB := notification(t, events, sub, "b")
	idC := notification(t, events, sub, "c")
	// The stream goes on where it was: the next event is the next value,
	// with nothing replayed twice between.
	c.publish("d")
	idD := notification(t, events, sub, "d")
	if ids := []string{prime.id, last, idB, idC, idD}; !consecutive(ids) {
		t.Errorf("the GET stream's event ids %v are not one stream's, numbered one after another", ids)
	}

	// The session is unknown to the other process.
	req := mcpRequest(ctx, "http://"+addr+"/mcp", `{"jsonrpc":"2.0","method":"publish","params":["x",1],"id":3}`, http.Header{"Mcp-Session-Id": {c.id}, "X-Jsonrpcd-Node": {nodeOf(backends, other)}})
	if resp, err := http.DefaultClient.Do(req); err != nil {
		t.Fatal(err)
	} else {
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound || resp.Header.Get("X-Upstream") != other {
			t.Errorf("the session's request sent to the other process: %d from %s, want 404 from %s", resp.StatusCode, resp.Header.Get("X-Upstream"), other)
		}
	}
	// X-Jsonrpcd-Node and /node/N/mcp reach process N.
	for i, b := range backends {
		for _, r := range []*http.Request{
			mcpRequest(ctx, "http://"+addr+"/mcp", `{"jsonrpc":"2.0","method":"add","params":[1,2],"id":4}`, http.Header{"X-Jsonrpcd-Node": {fmt.Sprint(i)}}),
			mcpRequest(ctx, fmt.Sprintf("http://%s/node/%d/mcp", addr, i), `{"jsonrpc":"2.0","method":"add","params":[1,2],"id":4}`, nil),
		} {
			resp, err := http.DefaultClient.Do(r)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if got := resp.Header.Get("X-Upstream"); resp.StatusCode != 200 || got != b || !strings.Contains(string(body), `"result":3`) {
				t.Errorf("%s (X-Jsonrpcd-Node %q): %d %s from %s, want 3 from %s", r.URL.Path, r.Header.Get("X-Jsonrpcd-Node"), resp.StatusCode, body, got, b)
			}
		}
	}
}

// nodeOf returns the number of the process at addr.
func nodeOf(backends []string, addr string) string {
	for i, b := range backends {
		if b == addr {
			return fmt.Sprint(i)
		}
	}
	return ""
}

// consecutive reports whether the event ids, "stream-number", are of one
// stream and numbered one after another.
func consecutive(ids []string) bool {
	var stream string
	for i, id := range ids {
		s, n, ok := strings.Cut(id, "-")
		if !ok || i > 0 && s != stream {
			return false
		}
		stream = s
		var seq int
		if _, err := fmt.Sscan(n, &seq); err != nil {
			return false
		}
		if i > 0 {
			var prev int
			fmt.Sscan(ids[i-1][strings.IndexByte(ids[i-1], '-')+1:], &prev)
			if seq != prev+1 {
				return false
			}
		}
	}
	return true
}
