package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// mcpPost POSTs req to url, in the session id when it is not "", with
// the headers of kv (name, value, ...), and returns the response, closed
// at the test's end.
func mcpPost(t *testing.T, url, id, req string, kv ...string) *http.Response {
	t.Helper()
	r, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(req))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "application/json, text/event-stream")
	if id != "" {
		r.Header.Set("Mcp-Session-Id", id)
	}
	for i := 0; i+1 < len(kv); i += 2 {
		r.Header.Set(kv[i], kv[i+1])
	}
	resp, err := (&http.Client{Timeout: wait}).Do(r)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// sseEvent is one event of an event stream: its id and its data.
type sseEvent struct{ id, data string }

// nextEvent reads the next event of br, skipping comments.
func nextEvent(t *testing.T, br *bufio.Reader) sseEvent {
	t.Helper()
	var ev sseEvent
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("reading the event stream: %v", err)
		}
		line = strings.TrimSuffix(line, "\n")
		switch {
		case line == "":
			if ev.id != "" || ev.data != "" {
				return ev
			}
		case strings.HasPrefix(line, "id: "):
			ev.id = line[len("id: "):]
		case strings.HasPrefix(line, "data: "):
			ev.data = line[len("data: "):]
		}
	}
}

// TestStreamableSessions: with -sessions subscribe, a subscribe POSTed to
// /mcp begins a session; the session's GET stream gets what the feed
// publishes, outside any call; progress reports on the stream of its POST;
// -max-sessions bounds the sessions. Without -sessions, a GET is refused.
func TestStreamableSessions(t *testing.T) {
	r := startRun(t, "-sessions", "subscribe", "-max-sessions", "2", "-max-sessions-per-client", "2")
	url := r.addr["http"] + "mcp"

	resp := mcpPost(t, url, "", `{"jsonrpc":"2.0","method":"subscribe","id":1}`)
	id := resp.Header.Get("Mcp-Session-Id")
	var sub struct{ Result string }
	if body, _ := io.ReadAll(resp.Body); resp.StatusCode != 200 || id == "" || json.Unmarshal(body, &sub) != nil || sub.Result == "" {
		t.Fatalf("subscribe: %d, Mcp-Session-Id %q, %s", resp.StatusCode, id, body)
	}

	// The GET stream stays open; wait bounds it, should an event not come.
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	get, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	get.Header.Set("Accept", "text/event-stream")
	get.Header.Set("Mcp-Session-Id", id)
	gresp, err := http.DefaultClient.Do(get)
	if err != nil {
		t.Fatal(err)
	}
	defer gresp.Body.Close()
	if gresp.StatusCode != 200 || gresp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("GET: %d %s", gresp.StatusCode, gresp.Header.Get("Content-Type"))
	}
	br := bufio.NewReader(gresp.Body)
	if prime := nextEvent(t, br); prime.id == "" || prime.data != "" {
		t.Fatalf("the GET stream's first event is %+v, want an id and no data", prime)
	}

	// The GET stream is open before publish: its answer says the value
	// was queued for the session's subscription.
	resp = mcpPost(t, url, id, `{"jsonrpc":"2.0","method":"publish","params":["ab",2],"id":2}`)
	if body, _ := io.ReadAll(resp.Body); strings.TrimSpace(string(body)) != `{"jsonrpc":"2.0","result":1,"id":2}` {
		t.Fatalf("publish: %d %s", resp.StatusCode, body)
	}
	var note struct {
		Method string
		Params struct{ Subscription, Result string }
	}
	ev := nextEvent(t, br)
	if err := json.Unmarshal([]byte(ev.data), &note); err != nil || note.Method != "subscription" || note.Params.Subscription != sub.Result || note.Params.Result != "abab" {
		t.Errorf("the GET stream's event: %+v, want the subscription's notification of abab", ev)
	}

	// progress, in the session, reports on its POST's stream.
	resp = mcpPost(t, url, id, `{"jsonrpc":"2.0","method":"progress","params":{"steps":2,"_meta":{"progressToken":"p"}},"id":3}`)
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("progress: %d %s, want an event stream", resp.StatusCode, ct)
	}
	pr := bufio.NewReader(resp.Body)
	nextEvent(t, pr) // priming
	for i := 1; i <= 2; i++ {
		var rep struct {
			Method string
			Params struct{ Progress float64 }
		}
		if ev := nextEvent(t, pr); json.Unmarshal([]byte(ev.data), &rep) != nil || rep.Method != "notifications/progress" || rep.Params.Progress != float64(i) {
			t.Errorf("progress event %d: %+v", i, ev)
		}
	}
	var answer struct{ Result int }
	if ev := nextEvent(t, pr); json.Unmarshal([]byte(ev.data), &answer) != nil || answer.Result != 2 {
		t.Errorf("progress answered %+v", ev)
	}

	// -max-sessions 2: a second session, and no third.
	if resp := mcpPost(t, url, "", `{"jsonrpc":"2.0","method":"subscribe","id":1}`); resp.StatusCode != 200 || resp.Header.Get("Mcp-Session-Id") == "" {
		t.Errorf("a second session: %d", resp.StatusCode)
	}
	if resp := mcpPost(t, url, "", `{"jsonrpc":"2.0","method":"subscribe","id":1}`); resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("a third session past -max-sessions 2: %d, want 503", resp.StatusCode)
	}
	// A request without the header, of another method, is served on its own.
	if resp := mcpPost(t, url, "", `{"jsonrpc":"2.0","method":"add","params":[1,2],"id":4}`); resp.StatusCode != 200 || resp.Header.Get("Mcp-Session-Id") != "" {
		t.Errorf("add without a session: %d, Mcp-Session-Id %q", resp.StatusCode, resp.Header.Get("Mcp-Session-Id"))
	}
	gresp.Body.Close()
	r.stop(t)

	// Without -sessions, /mcp has no GET stream.
	plain := startRun(t)
	get, _ = http.NewRequest(http.MethodGet, plain.addr["http"]+"mcp", nil)
	get.Header.Set("Accept", "text/event-stream")
	c := &http.Client{Timeout: 5 * time.Second}
	if resp, err := c.Do(get); err != nil || resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET /mcp without -sessions: %v, %v; want 405", resp, err)
	} else {
		resp.Body.Close()
	}
}
