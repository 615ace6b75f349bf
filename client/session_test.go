package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/client"
	"github.com/jsonrpc-go/jsonrpc/peer"
	"github.com/jsonrpc-go/jsonrpc/protocol/lsp"
	"github.com/jsonrpc-go/jsonrpc/protocol/mcp"
	"github.com/jsonrpc-go/jsonrpc/protocol/progress"
	"github.com/jsonrpc-go/jsonrpc/streamhttp"
)

// sessionServer is a Streamable HTTP server with sessions begun by
// "initialize". Its methods: initialize; count, the calls its session's
// connection has served; notify, which sends a notification outside any
// call (on the session's GET stream); long, which reports progress, ends
// its stream's connection (streamhttp.CloseStream), reports again and
// answers. gets is closed once the first GET stream has begun (its
// priming event written); endGet ends the request of the latest GET.
type sessionServer struct {
	ts     *httptest.Server
	h      *streamhttp.Handler
	gets   chan struct{}
	once   sync.Once
	endGet atomic.Pointer[context.CancelFunc] // ends the GET stream's request
	conns  sync.Map                           // *peer.Conn → *atomic.Int64
}

func newSessionServer(t *testing.T) *sessionServer {
	t.Helper()
	s := &sessionServer{gets: make(chan struct{})}
	srv := jsonrpc.NewServer(jsonrpc.AllowUnknownFields())
	srv.MustRegister("initialize", func(ctx context.Context) string { return "ok" })
	srv.MustRegister("count", func(ctx context.Context) int64 {
		n, _ := s.conns.LoadOrStore(peer.FromContext(ctx), new(atomic.Int64))
		return n.(*atomic.Int64).Add(1)
	})
	srv.MustRegister("notify", func(ctx context.Context, p struct {
		Data string `json:"data"`
	}) error {
		return peer.FromContext(ctx).Notify(context.Background(), "notifications/message", p)
	})
	srv.MustRegister("long", func(ctx context.Context, _ struct {
		Meta json.RawMessage `json:"_meta"`
	}) (string, error) {
		prog := progress.Of(ctx)
		prog.Report(ctx, mcp.Progress{Progress: 1})
		if !streamhttp.CloseStream(ctx) {
			return "", errors.New("the stream cannot be resumed")
		}
		prog.Report(ctx, mcp.Progress{Progress: 2})
		return "done", nil
	}, jsonrpc.Blocking())
	srv.MustRegister("numbers", func(ctx context.Context, n int) iter.Seq[int] {
		return func(yield func(int) bool) {
			for i := range n {
				if !yield(i) {
					return
				}
			}
		}
	})
	s.h = &streamhttp.Handler{Server: srv, SessionMethod: "initialize", Retry: time.Millisecond}
	s.ts = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			ctx, cancel := context.WithCancel(r.Context())
			defer cancel()
			s.endGet.Store(&cancel)
			r = r.WithContext(ctx)
			if r.Header.Get("Last-Event-ID") == "" {
				w = &flushSpy{ResponseWriter: w, flushed: func() { s.once.Do(func() { close(s.gets) }) }}
			}
		}
		s.h.ServeHTTP(w, r)
	}))
	t.Cleanup(s.ts.Close)
	return s
}

// flushSpy calls flushed when its writer is first flushed.
type flushSpy struct {
	http.ResponseWriter
	flushed func()
}

func (f *flushSpy) Flush() {
	http.NewResponseController(f.ResponseWriter).Flush()
	f.flushed()
}

func (f *flushSpy) Unwrap() http.ResponseWriter { return f.ResponseWriter }

// messages is a client's Server that records notifications/message.
type messages struct {
	srv *jsonrpc.Server
	got chan string
}

func newMessages() *messages {
	m := &messages{srv: jsonrpc.NewServer(), got: make(chan string, 16)}
	m.srv.MustRegister("notifications/message", func(p struct {
		Data string `json:"data"`
	}) {
		m.got <- p.Data
	})
	return m
}

func (m *messages) next(t *testing.T) string {
	t.Helper()
	select {
	case d := <-m.got:
		return d
	case <-time.After(30 * time.Second):
		t.Fatal("no notification came")
		return ""
	}
}

// TestHTTPSession: the HTTP channel keeps the session a Streamable HTTP
// server begins (Mcp-Session-Id on every request after the one that
// began it, so that they run on one connection of the server's), opens
// its GET stream, on which what the server sends outside a call arrives,
// and resumes that stream from its last event when its connection breaks.
func TestHTTPSession(t *testing.T) {
	s := newSessionServer(t)
	msgs := newMessages()
	ch := client.HTTP(s.ts.URL, nil)
	c := client.New(ch, client.UseProtocol(mcp.Protocol()), client.Serve(msgs.srv))
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	if id := client.HTTPSessionID(ch); id != "" {
		t.Fatalf("a session %q before any request", id)
	}
	if _, err := client.Call[string](ctx, c, "initialize", nil); err != nil {
		t.Fatal(err)
	}
	id := client.HTTPSessionID(ch)
	if len(id) != 32 {
		t.Fatalf("session id %q, want the server's 32 hex digits", id)
	}
	for want := int64(1); want <= 3; want++ {
		if n, err := client.Call[int64](ctx, c, "count", nil); err != nil || n != want {
			t.Fatalf("count: %d, %v; want %d on the session's one connection", n, err, want)
		}
	}

	<-s.gets
	if _, err := client.Call[any](ctx, c, "notify", map[string]string{"data": "one"}); err != nil {
		t.Fatal(err)
	}
	if got := msgs.next(t); got != "one" {
		t.Fatalf("on the GET stream: %q, want one", got)
	}
	// The server ends the GET stream's request without ending the stream;
	// what it sends meanwhile is kept, and replayed when the channel
	// resumes the stream.
	(*s.endGet.Load())()
	if _, err := client.Call[any](ctx, c, "notify", map[string]string{"data": "two"}); err != nil {
		t.Fatal(err)
	}
	if got := msgs.next(t); got != "two" {
		t.Fatalf("after the GET stream's connection broke: %q, want two", got)
	}
	if client.HTTPSessionID(ch) != id {
		t.Fatal("the channel changed its session")
	}
}

// TestHTTPResumeCall: a call whose event stream's connection the server
// ends before the answer (streamhttp.CloseStream) is resumed with a GET
// naming its last event: the progress sent meanwhile and the answer
// arrive, each once.
func TestHTTPResumeCall(t *testing.T) {
	s := newSessionServer(t)
	c := client.New(client.HTTP(s.ts.URL, nil, client.HTTPNoGetStream()), client.UseProtocol(mcp.Protocol()))
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if _, err := client.Call[string](ctx, c, "initialize", nil); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var reports []string
	token, stop := progress.Watch(c.Conn(), func(params json.RawMessage) {
		var p struct{ Progress float64 }
		json.Unmarshal(params, &p)
		mu.Lock()
		reports = append(reports, string(rune('0'+int(p.Progress))))
		mu.Unlock()
	})
	defer stop()
	got, err := client.Call[string](ctx, c, "long", map[string]any{"_meta": map[string]any{"progressToken": token}})
	if err != nil || got != "done" {
		t.Fatalf("long: %q, %v", got, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if strings.Join(reports, ",") != "1,2" {
		t.Errorf("progress %v, want 1,2", reports)
	}
	select {
	case <-s.gets:
		t.Error("a GET stream was opened under HTTPNoGetStream")
	default:
	}
}

// TestHTTPSessionEnded: a request whose session the server has ended is
// answered 404, which the channel returns as ErrSessionEnded (and an
// HTTPStatusError) and forgets the session; Close ends the channel's
// session with a DELETE.
func TestHTTPSessionEnded(t *testing.T) {
	s := newSessionServer(t)
	ch := client.HTTP(s.ts.URL, nil, client.HTTPNoGetStream())
	c := client.New(ch)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if _, err := client.Call[string](ctx, c, "initialize", nil); err != nil {
		t.Fatal(err)
	}
	del := func(id string) int {
		req, _ := http.NewRequest(http.MethodDelete, s.ts.URL, nil)
		req.Header.Set("Mcp-Session-Id", id)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := del(client.HTTPSessionID(ch)); code != http.StatusOK {
		t.Fatalf("DELETE: %d", code)
	}
	_, err := client.Call[int64](ctx, c, "count", nil)
	var se *client.HTTPStatusError
	if !errors.Is(err, client.ErrSessionEnded) || !errors.As(err, &se) || se.StatusCode != http.StatusNotFound {
		t.Fatalf("a call in an ended session: %v, want ErrSessionEnded and 404", err)
	}
	if id := client.HTTPSessionID(ch); id != "" {
		t.Fatalf("the channel keeps the ended session %q", id)
	}
	// A new session, which Close ends.
	if _, err := client.Call[string](ctx, c, "initialize", nil); err != nil {
		t.Fatal(err)
	}
	id := client.HTTPSessionID(ch)
	if id == "" {
		t.Fatal("no new session")
	}
	c.Close()
	if code := del(id); code != http.StatusNotFound {
		t.Fatalf("the session after Close: DELETE %d, want 404 (ended)", code)
	}
}

// TestHTTPSessionSeq: in a Streamable HTTP session a sequence result
// answers with the enumerator protocol, and client.CallSeq pulls its
// items in POSTs of the session.
func TestHTTPSessionSeq(t *testing.T) {
	s := newSessionServer(t)
	c := client.New(client.HTTP(s.ts.URL, nil, client.HTTPNoGetStream()), client.UseProtocol(mcp.Protocol()))
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if _, err := client.Call[string](ctx, c, "initialize", nil); err != nil {
		t.Fatal(err)
	}
	n := 0
	for v, err := range client.CallSeq[int](ctx, c, "numbers", []int{200}) {
		if err != nil || v != n {
			t.Fatalf("item %d: %d, %v", n, v, err)
		}
		n++
	}
	if n != 200 {
		t.Fatalf("%d items, want 200", n)
	}
	raw, err := c.CallRaw(ctx, "numbers", []int{100})
	if err != nil || !strings.Contains(string(raw), `"token":`) {
		t.Errorf("the first answer in a session: %s, %v; want the enumerator's token", raw, err)
	}
}

// TestHTTPPartialResults: over Streamable HTTP with no session, under
// LSP, CallSeq's partialResultToken makes the server send the items as
// $/progress events on the call's event stream, which CallSeq reads.
func TestHTTPPartialResults(t *testing.T) {
	srv := jsonrpc.NewServer(jsonrpc.AllowUnknownFields())
	srv.MustRegister("workspace/symbol", func(ctx context.Context, p struct {
		Query string          `json:"query"`
		Token json.RawMessage `json:"partialResultToken"`
	}) iter.Seq2[string, error] {
		return func(yield func(string, error) bool) {
			if p.Token == nil {
				yield("", errors.New("no partialResultToken"))
				return
			}
			for i := range 300 {
				if !yield(fmt.Sprint(p.Query, i), nil) {
					return
				}
			}
		}
	})
	h := &streamhttp.Handler{Server: srv, Protocol: lsp.Protocol()}
	ts := httptest.NewServer(h)
	defer ts.Close()
	defer h.Close()
	c := client.New(client.HTTP(ts.URL, nil, client.HTTPNoGetStream()), client.UseProtocol(lsp.Protocol()))
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	n := 0
	for v, err := range client.CallSeq[string](ctx, c, "workspace/symbol", map[string]string{"query": "q"}) {
		if want := fmt.Sprint("q", n); err != nil || v != want {
			t.Fatalf("item %d: %q, %v; want %q", n, v, err, want)
		}
		n++
	}
	if n != 300 {
		t.Fatalf("%d items, want 300", n)
	}
}
