package streamhttp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/internal/leaktest"
	"github.com/jsonrpc-go/jsonrpc/peer"
	"github.com/jsonrpc-go/jsonrpc/streamhttp"
)

// event is one server-sent event.
type event struct {
	id, data string
	retry    bool
}

// sse reads the events of a stream one at a time, comments skipped.
type sse struct {
	t  *testing.T
	br *bufio.Reader
}

func newSSE(t *testing.T, resp *http.Response) *sse {
	t.Helper()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("%d Content-Type %q, want text/event-stream", resp.StatusCode, ct)
	}
	return &sse{t: t, br: bufio.NewReader(resp.Body)}
}

// next returns the next event, and false at the end of the stream.
func (s *sse) next() (event, bool) {
	var e event
	has := false
	for {
		line, err := s.br.ReadString('\n')
		if err != nil {
			return e, false
		}
		line = strings.TrimRight(line, "\n")
		switch {
		case line == "":
			if has {
				return e, true
			}
		case strings.HasPrefix(line, ":"):
		case strings.HasPrefix(line, "id: "):
			e.id, has = strings.TrimPrefix(line, "id: "), true
		case strings.HasPrefix(line, "retry: "):
			e.retry, has = true, true
		case strings.HasPrefix(line, "data: "):
			e.data, has = strings.TrimPrefix(line, "data: "), true
		case line == "data:" || line == "event: message":
			has = true
		default:
			s.t.Errorf("unexpected line %q", line)
		}
	}
}

// mustNext is next, failing the test at the end of the stream.
func (s *sse) mustNext() event {
	s.t.Helper()
	e, ok := s.next()
	if !ok {
		s.t.Fatal("the stream ended")
	}
	return e
}

// sessionServer serves srv with sessions begun by "initialize", and closes
// the handler at the test's end.
func sessionServer(t *testing.T, h *streamhttp.Handler) string {
	t.Helper()
	if h.SessionMethod == "" && h.MCP == nil {
		h.SessionMethod = "initialize"
	}
	url := serve(t, h)
	t.Cleanup(func() { h.Close() })
	return url
}

// newSessionServer is a server with newServer's methods, and initialize.
func newSessionServer(t *testing.T) (*jsonrpc.Server, *testState) {
	srv, st := newServer(t)
	srv.MustRegister("initialize", func(struct{}) string { return "ready" })
	srv.MustRegister("fail", func(struct{}) (string, error) { return "", jsonrpc.NewError(jsonrpc.CodeInvalidParams, "no") })
	return srv, st
}

// initialize begins a session and returns its id.
func initialize(t *testing.T, url string) string {
	t.Helper()
	resp := post(t, url, both, `{"jsonrpc":"2.0","method":"initialize","params":{},"id":0}`)
	if got := readAll(t, resp); resp.StatusCode != 200 || got != `{"jsonrpc":"2.0","result":"ready","id":0}` {
		t.Fatalf("initialize: %d %s", resp.StatusCode, got)
	}
	id := resp.Header.Get("Mcp-Session-Id")
	if len(id) < 16 {
		t.Fatalf("initialize: Mcp-Session-Id %q, want a long random id", id)
	}
	for _, c := range id {
		if c < 0x21 || c > 0x7e {
			t.Fatalf("session id %q has a character that is not visible ASCII", id)
		}
	}
	return id
}

// TestSessionLifecycle: an initialize answered with a result begins a
// session, whose id its answer carries; the session's requests carry it
// and run on its connection; an unknown or ended id is 404; DELETE ends
// it; an initialize answered with an error begins none; requests without
// the header are served on their own.
func TestSessionLifecycle(t *testing.T) {
	leaktest.Check(t)
	srv, _ := newSessionServer(t)
	h := &streamhttp.Handler{Server: srv}
	url := sessionServer(t, h)
	id := initialize(t, url)
	other := initialize(t, url)
	if id == other {
		t.Fatalf("two sessions have the id %s", id)
	}
	if h.Sessions() != 2 {
		t.Errorf("Sessions() = %d, want 2", h.Sessions())
	}
	resp := post(t, url, both, `{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`, "Mcp-Session-Id", id)
	if got := readAll(t, resp); resp.StatusCode != 200 || got != `{"jsonrpc":"2.0","result":3,"id":1}` || resp.Header.Get("Mcp-Session-Id") != "" {
		t.Errorf("a call in the session: %d %s %v", resp.StatusCode, got, resp.Header)
	}
	resp = post(t, url, both, `{"jsonrpc":"2.0","method":"note","params":["x"]}`, "Mcp-Session-Id", id)
	if resp.StatusCode != http.StatusAccepted {
		t.Errorf("a notification in the session: %d, want 202", resp.StatusCode)
	}
	for _, bad := range []string{"nope", strings.Repeat("x", 200), "a b"} {
		resp = post(t, url, both, `{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`, "Mcp-Session-Id", bad)
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("session %q: %d, want 404", bad, resp.StatusCode)
		}
	}
	// Without the header, a server that is not MCP serves the call alone.
	resp = post(t, url, both, `{"jsonrpc":"2.0","method":"add","params":[2,2],"id":1}`)
	if got := readAll(t, resp); resp.StatusCode != 200 || got != `{"jsonrpc":"2.0","result":4,"id":1}` {
		t.Errorf("no session: %d %s", resp.StatusCode, got)
	}

	del := func(sid string) int {
		req, _ := http.NewRequest(http.MethodDelete, url, nil)
		req.Header.Set("Mcp-Session-Id", sid)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := del(id); code != 200 {
		t.Errorf("DELETE: %d, want 200", code)
	}
	if code := del(id); code != 404 {
		t.Errorf("DELETE again: %d, want 404", code)
	}
	resp = post(t, url, both, `{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`, "Mcp-Session-Id", id)
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("a call in an ended session: %d, want 404", resp.StatusCode)
	}
	if h.Sessions() != 1 {
		t.Errorf("Sessions() = %d after DELETE, want 1", h.Sessions())
	}

	srv2, _ := newServer(t)
	srv2.MustRegister("initialize", func(struct{}) (string, error) { return "", jsonrpc.NewError(jsonrpc.CodeInvalidParams, "no") })
	h2 := &streamhttp.Handler{Server: srv2}
	url2 := sessionServer(t, h2)
	resp = post(t, url2, both, `{"jsonrpc":"2.0","method":"initialize","params":{},"id":0}`)
	if got := readAll(t, resp); !strings.Contains(got, `"code":-32602`) {
		t.Errorf("failing initialize answered %s", got)
	}
	if h2.Sessions() != 0 {
		t.Errorf("an initialize answered with an error left %d sessions, want 0", h2.Sessions())
	}
}

// TestSessionDuplicateID: a request whose id is that of a request running
// in the session is refused with 400 and -32600; the running one goes on.
func TestSessionDuplicateID(t *testing.T) {
	leaktest.Check(t)
	srv, st := newSessionServer(t)
	url := sessionServer(t, &streamhttp.Handler{Server: srv})
	id := initialize(t, url)
	done := make(chan string, 1)
	go func() {
		resp := post(t, url, "application/json", `{"jsonrpc":"2.0","method":"hold","id":5}`, "Mcp-Session-Id", id)
		done <- readAll(t, resp)
	}()
	<-st.started
	resp := post(t, url, both, `{"jsonrpc":"2.0","method":"add","params":[1,2],"id":5}`, "Mcp-Session-Id", id)
	if got := readAll(t, resp); resp.StatusCode != 400 || !strings.Contains(got, `"code":-32600`) || !strings.Contains(got, `"id":5`) {
		t.Errorf("duplicate id: %d %s, want 400 and -32600", resp.StatusCode, got)
	}
	close(st.release)
	if got := <-done; got != `{"jsonrpc":"2.0","result":"released","id":5}` {
		t.Errorf("the first call answered %s", got)
	}
}

// TestSessionCallsClient: a method of a session calls its client: the
// request is an event of the call's stream, after the priming event; the
// client POSTs its answer (202), which reaches the method.
func TestSessionCallsClient(t *testing.T) {
	leaktest.Check(t)
	srv, _ := newSessionServer(t)
	srv.MustRegister("greet", func(ctx context.Context) (string, error) {
		var name string
		err := peer.FromContext(ctx).Call(ctx, "whoami", nil, &name)
		return "hello " + name, err
	}, jsonrpc.Blocking())
	url := sessionServer(t, &streamhttp.Handler{Server: srv})
	id := initialize(t, url)
	resp := post(t, url, both, `{"jsonrpc":"2.0","method":"greet","id":"g"}`, "Mcp-Session-Id", id)
	s := newSSE(t, resp)
	prime := s.mustNext()
	if prime.id == "" || prime.data != "" || !prime.retry {
		t.Errorf("first event %+v, want the priming event: an id, a retry field and no data", prime)
	}
	call := s.mustNext()
	var req struct {
		Method string
		ID     json.RawMessage
	}
	if err := json.Unmarshal([]byte(call.data), &req); err != nil || req.Method != "whoami" || call.id == "" || call.id == prime.id {
		t.Fatalf("second event %+v, want the call whoami with an id of its own", call)
	}
	answer := post(t, url, both, `{"jsonrpc":"2.0","result":"ada","id":`+string(req.ID)+`}`, "Mcp-Session-Id", id)
	if answer.StatusCode != http.StatusAccepted {
		t.Errorf("the client's answer: %d, want 202", answer.StatusCode)
	}
	last := s.mustNext()
	if last.data != `{"jsonrpc":"2.0","result":"hello ada","id":"g"}` {
		t.Errorf("the answer: %+v", last)
	}
	if e, ok := s.next(); ok {
		t.Errorf("an event after the answer: %+v", e)
	}
}

// getStream opens the session's GET stream.
func getStream(t *testing.T, url, session, lastEventID string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", session)
	if lastEventID != "" {
		req.Header.Set("Last-Event-ID", lastEventID)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// TestGetStream: the GET stream carries the messages of the session that
// belong to no call, after its priming event; a second GET while one is
// open is 409; a GET without a session is 400, with an unknown one 404,
// without Accept: text/event-stream 406.
func TestGetStream(t *testing.T) {
	leaktest.Check(t)
	srv, _ := newSessionServer(t)
	srv.MustRegister("later", func(ctx context.Context, text string) string {
		// Sent after the call, under no call's context.
		conn := peer.FromContext(ctx)
		go conn.Notify(context.Background(), "notifications/message", map[string]string{"data": text})
		return "ok"
	}, jsonrpc.ParamNames("text"))
	url := sessionServer(t, &streamhttp.Handler{Server: srv})
	id := initialize(t, url)
	g := getStream(t, url, id, "")
	s := newSSE(t, g)
	if prime := s.mustNext(); prime.id == "" || prime.data != "" {
		t.Errorf("first event %+v, want the priming event", prime)
	}
	if resp := getStream(t, url, id, ""); resp.StatusCode != http.StatusConflict {
		t.Errorf("a second GET stream: %d, want 409", resp.StatusCode)
	}
	for i, text := range []string{"one", "two"} {
		resp := post(t, url, both, `{"jsonrpc":"2.0","method":"later","params":{"text":"`+text+`"},"id":`+string(rune('1'+i))+`}`, "Mcp-Session-Id", id)
		readAll(t, resp)
		if e := s.mustNext(); e.data != `{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"`+text+`"}}` || e.id == "" {
			t.Errorf("GET stream event %+v, want the notification %q", e, text)
		}
	}

	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req.Header.Set("Accept", "text/event-stream")
	for _, tc := range []struct {
		session, accept string
		status          int
	}{
		{"", "text/event-stream", 400},
		{"unknown", "text/event-stream", 404},
		{id, "application/json", 406},
	} {
		req, _ := http.NewRequest(http.MethodGet, url, nil)
		req.Header.Set("Accept", tc.accept)
		if tc.session != "" {
			req.Header.Set("Mcp-Session-Id", tc.session)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.status {
			t.Errorf("GET session %q Accept %q: %d, want %d", tc.session, tc.accept, resp.StatusCode, tc.status)
		}
	}
}

// TestResumeGetStream: a GET stream resumed with Last-Event-ID replays
// exactly the events sent after that one while no request carried it,
// then carries the stream on.
func TestResumeGetStream(t *testing.T) {
	leaktest.Check(t)
	srv, _ := newSessionServer(t)
	sent := make(chan struct{}, 16)
	srv.MustRegister("push", func(ctx context.Context, text string) string {
		peer.FromContext(ctx).Notify(context.Background(), "notifications/message", map[string]string{"data": text})
		sent <- struct{}{}
		return "ok"
	}, jsonrpc.ParamNames("text"), jsonrpc.Blocking())
	h := &streamhttp.Handler{Server: srv}
	url := sessionServer(t, h)
	id := initialize(t, url)
	push := func(text string) {
		t.Helper()
		readAll(t, post(t, url, "application/json", `{"jsonrpc":"2.0","method":"push","params":{"text":"`+text+`"},"id":"`+text+`"}`, "Mcp-Session-Id", id))
		<-sent
	}
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", id)
	first, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	s := newSSE(t, first)
	s.mustNext() // priming
	push("a")
	a := s.mustNext()
	push("b")
	b := s.mustNext()
	// The connection breaks; c and d are sent meanwhile. The client
	// resumes after b, the last it got: c and d are replayed.
	_ = a
	cancel()
	first.Body.Close()
	waitFor(t, func() bool { return !streamhttp.GetCarried(h, id) })
	push("c")
	push("d")
	resumed := newSSE(t, getStream(t, url, id, b.id))
	var got []string
	for range 2 {
		got = append(got, resumed.mustNext().data)
	}
	want := []string{
		`{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"c"}}`,
		`{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"d"}}`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("replayed after %s:\n%s\nwant\n%s", b.id, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	push("e")
	if e := resumed.mustNext(); e.data != `{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"e"}}` {
		t.Errorf("after the replay: %+v, want e", e)
	}
	if resp := getStream(t, url, id, "999-1"); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("Last-Event-ID of no stream: %d, want 400", resp.StatusCode)
	}
}

// waitFor waits until ok, within the failure bound.
func waitFor(t *testing.T, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(wait)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatal("timed out")
		}
		time.Sleep(time.Millisecond)
	}
}
