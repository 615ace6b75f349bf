package streamhttp_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"iter"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/internal/leaktest"
	"github.com/jsonrpc-go/jsonrpc/peer"
	"github.com/jsonrpc-go/jsonrpc/protocol/lsp"
	"github.com/jsonrpc-go/jsonrpc/protocol/mcp"
	"github.com/jsonrpc-go/jsonrpc/protocol/progress"
	"github.com/jsonrpc-go/jsonrpc/streamhttp"
	"github.com/jsonrpc-go/jsonrpc/transport"
)

// wait bounds what a test waits for; it is a failure bound, never a pace.
const wait = 30 * time.Second

const both = "application/json, text/event-stream"

// newServer is a server with the methods the tests call.
func newServer(t *testing.T) (*jsonrpc.Server, *testState) {
	st := &testState{release: make(chan struct{}), started: make(chan struct{}, 16), cancelled: make(chan time.Time, 16)}
	srv := jsonrpc.NewServer()
	srv.MustRegister("add", func(a, b float64) float64 { return a + b })
	srv.MustRegister("note", func(string) { st.notes.Add(1) })
	srv.MustRegister("count", func(ctx context.Context, p struct {
		N    int            `json:"n"`
		Meta map[string]any `json:"_meta"`
	}) (int, error) {
		prog := progress.Of(ctx)
		for i := 1; i <= p.N; i++ {
			if err := prog.Report(ctx, mcp.Progress{Progress: float64(i), Total: float64(p.N)}); err != nil {
				return 0, err
			}
		}
		return p.N, nil
	}, jsonrpc.Blocking())
	srv.MustRegister("tell", func(ctx context.Context, text string) (string, error) {
		if err := peer.FromContext(ctx).Notify(ctx, "notifications/message", map[string]string{"data": text}); err != nil {
			return "", err
		}
		return "told", nil
	}, jsonrpc.Blocking(), jsonrpc.ParamNames("text"))
	srv.MustRegister("hold", func(ctx context.Context) (string, error) {
		st.started <- struct{}{}
		select {
		case <-st.release:
			return "released", nil
		case <-ctx.Done():
			st.cancelled <- time.Now()
			return "", ctx.Err()
		}
	}, jsonrpc.Blocking())
	return srv, st
}

type testState struct {
	release   chan struct{}
	started   chan struct{}
	cancelled chan time.Time
	notes     atomic.Int64
}

// post sends body to url with the headers and returns the response.
func post(t *testing.T, url, accept, body string, header ...string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func readAll(t *testing.T, resp *http.Response) string {
	t.Helper()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// events reads an event stream's data lines, and its comments.
func events(t *testing.T, resp *http.Response) (data, comments []string) {
	t.Helper()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "data: "):
			data = append(data, strings.TrimPrefix(line, "data: "))
		case strings.HasPrefix(line, ":"):
			comments = append(comments, line)
		case line == "" || line == "event: message":
		default:
			t.Errorf("unexpected line %q", line)
		}
	}
	return data, comments
}

func serve(t *testing.T, h *streamhttp.Handler) string {
	t.Helper()
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return ts.URL
}

// TestAnswers: a call answered before it sends anything is one JSON
// document; a notification and a response get 202 and no body; a batch
// one JSON array; a document that is not JSON 400 with the parse error.
func TestAnswers(t *testing.T) {
	leaktest.Check(t)
	srv, st := newServer(t)
	url := serve(t, &streamhttp.Handler{Server: srv})
	for _, accept := range []string{both, "application/json", "*/*", ""} {
		resp := post(t, url, accept, `{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`)
		if got, want := readAll(t, resp), `{"jsonrpc":"2.0","result":3,"id":1}`; resp.StatusCode != 200 || got != want || resp.Header.Get("Content-Type") != "application/json" {
			t.Errorf("Accept %q: %d %s %q, want 200 application/json %s", accept, resp.StatusCode, resp.Header.Get("Content-Type"), got, want)
		}
	}
	for _, body := range []string{
		`{"jsonrpc":"2.0","method":"note","params":["x"]}`,
		`{"jsonrpc":"2.0","result":1,"id":"s1"}`,
		`{"jsonrpc":"2.0","method":"nothing"}`,
	} {
		resp := post(t, url, both, body)
		if got := readAll(t, resp); resp.StatusCode != http.StatusAccepted || got != "" {
			t.Errorf("%s: %d %q, want 202 and no body", body, resp.StatusCode, got)
		}
	}
	if st.notes.Load() != 1 {
		t.Errorf("the notification ran %d times, want 1", st.notes.Load())
	}
	resp := post(t, url, both, `[{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1},{"jsonrpc":"2.0","method":"add","params":[3,4],"id":2}]`)
	if got, want := readAll(t, resp), `[{"jsonrpc":"2.0","result":3,"id":1},{"jsonrpc":"2.0","result":7,"id":2}]`; resp.StatusCode != 200 || got != want {
		t.Errorf("batch: %d %s, want 200 %s", resp.StatusCode, got, want)
	}
	resp = post(t, url, both, `{"jsonrpc":"2.0","method":"add",`)
	if got := readAll(t, resp); resp.StatusCode != http.StatusBadRequest || !strings.Contains(got, `"code":-32700`) {
		t.Errorf("not JSON: %d %s, want 400 and -32700", resp.StatusCode, got)
	}
	resp = post(t, url, both, `{"jsonrpc":"2.0","method":"nothing","id":"x"}`)
	if got := readAll(t, resp); resp.StatusCode != 200 || !strings.Contains(got, `"code":-32601`) {
		t.Errorf("unknown method: %d %s, want 200 and -32601", resp.StatusCode, got)
	}
}

// TestEventStream: a call that reports progress, or notifies, before it
// answers gets an event stream: each message an event, in order, the
// answer last, after which the stream ends; headers that keep proxies from
// holding the events. A client that takes only JSON gets the answer alone.
func TestEventStream(t *testing.T) {
	leaktest.Check(t)
	srv, _ := newServer(t)
	url := serve(t, &streamhttp.Handler{Server: srv})
	resp := post(t, url, both, `{"jsonrpc":"2.0","method":"count","params":{"n":3,"_meta":{"progressToken":"p1"}},"id":7}`)
	if ct := resp.Header.Get("Content-Type"); resp.StatusCode != 200 || ct != "text/event-stream" || resp.Header.Get("X-Accel-Buffering") != "no" || resp.Header.Get("Cache-Control") != "no-cache" {
		t.Fatalf("%d %s %v, want 200 text/event-stream, X-Accel-Buffering: no, Cache-Control: no-cache", resp.StatusCode, ct, resp.Header)
	}
	data, _ := events(t, resp)
	want := []string{
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1,"progressToken":"p1","total":3}}`,
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":2,"progressToken":"p1","total":3}}`,
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":3,"progressToken":"p1","total":3}}`,
		`{"jsonrpc":"2.0","result":3,"id":7}`,
	}
	if strings.Join(data, "\n") != strings.Join(want, "\n") {
		t.Errorf("events:\n%s\nwant\n%s", strings.Join(data, "\n"), strings.Join(want, "\n"))
	}

	resp = post(t, url, "text/event-stream", `{"jsonrpc":"2.0","method":"tell","params":{"text":"hi"},"id":"a"}`)
	data, _ = events(t, resp)
	want = []string{`{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"hi"}}`, `{"jsonrpc":"2.0","result":"told","id":"a"}`}
	if strings.Join(data, "\n") != strings.Join(want, "\n") {
		t.Errorf("notify:\n%s\nwant\n%s", strings.Join(data, "\n"), strings.Join(want, "\n"))
	}

	// Only events accepted: even an answer alone is an event.
	resp = post(t, url, "text/event-stream", `{"jsonrpc":"2.0","method":"add","params":[1,1],"id":2}`)
	if data, _ := events(t, resp); len(data) != 1 || data[0] != `{"jsonrpc":"2.0","result":2,"id":2}` {
		t.Errorf("events only: %q", data)
	}

	resp = post(t, url, "application/json", `{"jsonrpc":"2.0","method":"count","params":{"n":3,"_meta":{"progressToken":"p2"}},"id":8}`)
	if got, want := readAll(t, resp), `{"jsonrpc":"2.0","result":3,"id":8}`; resp.Header.Get("Content-Type") != "application/json" || got != want {
		t.Errorf("JSON only: %s %s, want %s", resp.Header.Get("Content-Type"), got, want)
	}
}

// TestClosedStreamCancels: a client that closes the stream of its call
// cancels the method's context.
func TestClosedStreamCancels(t *testing.T) {
	leaktest.Check(t)
	srv, st := newServer(t)
	url := serve(t, &streamhttp.Handler{Server: srv})
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","method":"hold","id":1}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", both)
	errc := make(chan error, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		errc <- err
	}()
	select {
	case <-st.started:
	case <-time.After(wait):
		t.Fatal("the method did not start")
	}
	closed := time.Now()
	cancel()
	select {
	case at := <-st.cancelled:
		t.Logf("the method's context ended %v after the client closed its request", at.Sub(closed))
	case <-time.After(wait):
		t.Fatal("the method's context was not cancelled")
	}
	<-errc
}

// TestKeepAlive: a call that runs longer than KeepAlive without sending
// anything gets an event stream that carries comments until its answer.
func TestKeepAlive(t *testing.T) {
	leaktest.Check(t)
	srv, st := newServer(t)
	url := serve(t, &streamhttp.Handler{Server: srv, KeepAlive: time.Millisecond})
	resp := post(t, url, both, `{"jsonrpc":"2.0","method":"hold","id":1}`)
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type %s, want text/event-stream", ct)
	}
	br := bufio.NewReader(resp.Body)
	line, err := br.ReadString('\n')
	if err != nil || line != ": keep-alive\n" {
		t.Fatalf("first line %q, %v; want a keep-alive comment", line, err)
	}
	close(st.release)
	rest, _ := io.ReadAll(br)
	if !strings.Contains(string(rest), `data: {"jsonrpc":"2.0","result":"released","id":1}`) {
		t.Errorf("the stream ended without the answer: %q", rest)
	}
}

// TestRefusals: what the transport asks of every request.
func TestRefusals(t *testing.T) {
	leaktest.Check(t)
	srv, _ := newServer(t)
	url := serve(t, &streamhttp.Handler{Server: srv, AllowedOrigins: []string{"https://app.example.com"}, Limits: transport.Limits{MaxMessage: 1024}})
	call := `{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`
	for _, tc := range []struct {
		name, method, accept, ctype, body string
		header                            []string
		status                            int
	}{
		{"GET", http.MethodGet, both, "", "", nil, http.StatusMethodNotAllowed},
		{"DELETE", http.MethodDelete, both, "", "", nil, http.StatusMethodNotAllowed},
		{"other origin", http.MethodPost, both, "application/json", call, []string{"Origin", "https://evil.example.com"}, http.StatusForbidden},
		{"null origin", http.MethodPost, both, "application/json", call, []string{"Origin", "null"}, http.StatusForbidden},
		{"allowed origin", http.MethodPost, both, "application/json", call, []string{"Origin", "https://app.example.com"}, http.StatusOK},
		{"loopback origin", http.MethodPost, both, "application/json", call, []string{"Origin", "http://localhost:3000"}, http.StatusOK},
		{"text/plain", http.MethodPost, both, "text/plain", call, nil, http.StatusUnsupportedMediaType},
		{"accept html", http.MethodPost, "text/html", "application/json", call, nil, http.StatusNotAcceptable},
		{"accept json q=0", http.MethodPost, "application/json;q=0", "application/json", call, nil, http.StatusNotAcceptable},
		{"too large", http.MethodPost, both, "application/json", `{"jsonrpc":"2.0","method":"add","params":["` + strings.Repeat("x", 2000) + `"],"id":1}`, nil, http.StatusRequestEntityTooLarge},
		{"compress", http.MethodPost, both, "application/json", call, []string{"Content-Encoding", "compress"}, http.StatusUnsupportedMediaType},
	} {
		req, _ := http.NewRequest(tc.method, url, strings.NewReader(tc.body))
		req.Header.Set("Accept", tc.accept)
		if tc.ctype != "" {
			req.Header.Set("Content-Type", tc.ctype)
		}
		for i := 0; i+1 < len(tc.header); i += 2 {
			req.Header.Set(tc.header[i], tc.header[i+1])
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.status {
			t.Errorf("%s: %d, want %d", tc.name, resp.StatusCode, tc.status)
		}
		if tc.status == http.StatusMethodNotAllowed && resp.Header.Get("Allow") != http.MethodPost {
			t.Errorf("%s: Allow %q, want POST", tc.name, resp.Header.Get("Allow"))
		}
	}

	// A gzip body is inflated, within MaxMessage.
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write([]byte(call))
	zw.Close()
	resp := post(t, url, both, z.String(), "Content-Encoding", "gzip")
	if got := readAll(t, resp); got != `{"jsonrpc":"2.0","result":3,"id":1}` {
		t.Errorf("gzip: %d %s", resp.StatusCode, got)
	}
}

// TestDNSRebinding: on a loopback listener a request whose Host is not a
// loopback name (a page of another site that resolved its own name to
// 127.0.0.1) is refused with 403, unless the name is one of AllowedHosts.
func TestDNSRebinding(t *testing.T) {
	leaktest.Check(t)
	srv, _ := newServer(t)
	url := serve(t, &streamhttp.Handler{Server: srv, AllowedHosts: []string{"mcp.internal"}})
	call := `{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`
	for host, status := range map[string]int{
		"evil.example.com":      http.StatusForbidden,
		"evil.example.com:8080": http.StatusForbidden,
		"localhost":             http.StatusOK,
		"localhost:1234":        http.StatusOK,
		"127.0.0.1":             http.StatusOK,
		"[::1]:80":              http.StatusOK,
		"mcp.internal":          http.StatusOK,
	} {
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(call))
		req.Host = host
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", both)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != status {
			t.Errorf("Host %s: %d, want %d", host, resp.StatusCode, status)
		}
	}
}

// TestMaxConns: past MaxConns requests running at once, a request is
// answered with 503 and Retry-After; the ones running are not affected.
func TestMaxConns(t *testing.T) {
	leaktest.Check(t)
	srv, st := newServer(t)
	url := serve(t, &streamhttp.Handler{Server: srv, Limits: transport.Limits{MaxConns: 1}, KeepAlive: -1})
	first := make(chan string, 1)
	go func() {
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","method":"hold","id":1}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", both)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			first <- err.Error()
			return
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		first <- string(b)
	}()
	<-st.started
	resp := post(t, url, both, `{"jsonrpc":"2.0","method":"add","params":[1,2],"id":2}`)
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
		t.Errorf("past MaxConns: %d, Retry-After %q; want 503 with Retry-After", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	close(st.release)
	if got := <-first; got != `{"jsonrpc":"2.0","result":"released","id":1}` {
		t.Errorf("the running request: %s", got)
	}
}

// TestShutdown: Shutdown waits for the request running, which is
// answered, refuses the ones that come after it with 503, and, once its
// context ends, cancels what still runs.
func TestShutdown(t *testing.T) {
	leaktest.Check(t)
	srv, st := newServer(t)
	h := &streamhttp.Handler{Server: srv, KeepAlive: -1}
	url := serve(t, h)
	answers := make(chan string, 2)
	holdOne := func() {
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","method":"hold","id":1}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			answers <- err.Error()
			return
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		answers <- string(b)
	}
	go holdOne()
	<-st.started
	done := make(chan error, 1)
	go func() { done <- h.Shutdown(context.Background()) }()
	for {
		resp := post(t, url, both, `{"jsonrpc":"2.0","method":"add","params":[1,2],"id":2}`)
		io.Copy(io.Discard, resp.Body)
		if resp.StatusCode == http.StatusServiceUnavailable {
			break
		}
		select {
		case err := <-done:
			t.Fatalf("Shutdown returned %v with a request running", err)
		default:
		}
	}
	close(st.release)
	if got := <-answers; got != `{"jsonrpc":"2.0","result":"released","id":1}` {
		t.Errorf("the running request: %s", got)
	}
	if err := <-done; err != nil {
		t.Errorf("Shutdown: %v", err)
	}

	// A Shutdown that runs out of time cancels the method.
	srv, st = newServer(t)
	h = &streamhttp.Handler{Server: srv, KeepAlive: -1}
	url = serve(t, h)
	go holdOne()
	<-st.started
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := h.Shutdown(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Shutdown: %v, want context.Canceled", err)
	}
	select {
	case <-st.cancelled:
	case <-time.After(wait):
		t.Fatal("the method was not cancelled")
	}
	<-answers
}

// TestDataOnOneLine: a message whose JSON holds line breaks (white space
// between tokens, as a json.RawMessage result may) is one event whose data
// parses as the message.
func TestDataOnOneLine(t *testing.T) {
	leaktest.Check(t)
	srv := jsonrpc.NewServer()
	srv.MustRegister("raw", func(ctx context.Context) (string, error) {
		if err := peer.FromContext(ctx).Notify(ctx, "spaced", rawParams("{\n\"a\":\r\n1}")); err != nil {
			return "", err
		}
		return "ok", nil
	}, jsonrpc.Blocking())
	url := serve(t, &streamhttp.Handler{Server: srv})
	resp := post(t, url, both, `{"jsonrpc":"2.0","method":"raw","id":1}`)
	data, _ := events(t, resp)
	if len(data) != 2 || !strings.HasPrefix(data[0], `{"jsonrpc":"2.0","method":"spaced","params":{`) {
		t.Errorf("events %q", data)
	}
}

// rawParams is params that encode with line breaks in them.
type rawParams string

func (p rawParams) MarshalJSON() ([]byte, error) { return []byte(p), nil }

// TestJSONOverTCP: the handler serves a plain client over a real
// connection, many calls on one keep-alive connection.
func TestJSONOverTCP(t *testing.T) {
	leaktest.Check(t)
	srv, _ := newServer(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: &streamhttp.Handler{Server: srv}}
	go hs.Serve(ln)
	defer hs.Close()
	for i := range 100 {
		resp := post(t, "http://"+ln.Addr().String()+"/", both, `{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`)
		if got := readAll(t, resp); got != `{"jsonrpc":"2.0","result":3,"id":1}` {
			t.Fatalf("call %d: %s", i, got)
		}
	}
}

// TestIsResponse: the handler tells the answer that ends a request's
// stream from the notifications and calls before it by the decoded names
// of its members, however they are escaped, spaced or ordered.
func TestIsResponse(t *testing.T) {
	for msg, want := range map[string]bool{
		`{"jsonrpc":"2.0","result":{"big":[1,2,3]},"id":1}`:                         true,
		`{"jsonrpc":"2.0","error":{"code":-32601,"message":"x"},"id":1}`:            true,
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{}}`:           false,
		`{"jsonrpc":"2.0","method":"sampling/createMessage","id":"s1"}`:             false,
		`{"jsonrpc":"2.0","re\u0073ult":1,"id":1}`:                                  true,
		`{ "id" : 1 , "jsonrpc" : "2.0" , "\u0065rror" : {"code":1,"message":""} }`: true,
		`{"jsonrpc":"2.0","m\u0065thod":"x"}`:                                       false,
		`{"jsonrpc":"2.0","id":1,"params":{"result":1},"method":"x"}`:               false,
		`[{"jsonrpc":"2.0","result":1,"id":1}]`:                                     true,
		`[{"jsonrpc":"2.0","method":"x"}]`:                                          false,
	} {
		if got := streamhttp.IsResponse([]byte(msg)); got != want {
			t.Errorf("isResponse(%s) = %v, want %v", msg, got, want)
		}
	}
}

// TestSeqResult: a sequence result over Streamable HTTP. A request whose
// params carry the Protocol's partial result token gets its items on the
// request's event stream, a progress notification a batch, then the
// empty answer; one without gets them as one JSON array.
func TestSeqResult(t *testing.T) {
	srv := jsonrpc.NewServer(jsonrpc.AllowUnknownFields())
	srv.MustRegister("count", func(ctx context.Context, p struct {
		N int `json:"n"`
	}) iter.Seq[int] {
		return func(yield func(int) bool) {
			for i := range p.N {
				if !yield(i) {
					return
				}
			}
		}
	})
	ts := httptest.NewServer(&streamhttp.Handler{Server: srv, Protocol: lsp.Protocol(), Limits: transport.Limits{MaxSeqItems: 2}})
	defer ts.Close()
	post := func(body string) (string, string) {
		req, _ := http.NewRequest(http.MethodPost, ts.URL, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", both)
		resp, err := ts.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		out, _ := io.ReadAll(resp.Body)
		return resp.Header.Get("Content-Type"), string(out)
	}
	ct, body := post(`{"jsonrpc":"2.0","method":"count","params":{"n":5},"id":1}`)
	if ct != "application/json" || body != `{"jsonrpc":"2.0","result":[0,1,2,3,4],"id":1}` {
		t.Errorf("without a token: %s %s", ct, body)
	}
	ct, body = post(`{"jsonrpc":"2.0","method":"count","params":{"n":5,"partialResultToken":"p"},"id":2}`)
	want := "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"$/progress\",\"params\":{\"token\":\"p\",\"value\":[0,1]}}\n\n" +
		"event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"$/progress\",\"params\":{\"token\":\"p\",\"value\":[2,3]}}\n\n" +
		"event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"$/progress\",\"params\":{\"token\":\"p\",\"value\":[4]}}\n\n" +
		"event: message\ndata: {\"jsonrpc\":\"2.0\",\"result\":[],\"id\":2}\n\n"
	if ct != "text/event-stream" || body != want {
		t.Errorf("with a token: %s\n%s\nwant\n%s", ct, body, want)
	}
}
