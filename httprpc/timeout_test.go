package httprpc_test

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jsonrpc-go/jsonrpc/httprpc"
	"github.com/jsonrpc-go/jsonrpc/internal/demo"
)

// A body that stops coming is answered with 408 after ReadTimeout, on a
// server whose http.Server has no timeouts at all (httptest's), and the
// connection is closed.
func TestHTTPReadTimeout(t *testing.T) {
	t.Parallel()
	ts := httptest.NewServer(&httprpc.Handler{Server: demo.NewServer(), ReadTimeout: 200 * time.Millisecond})
	defer ts.Close()
	c, err := net.DialTimeout("tcp", ts.Listener.Addr().String(), httpWait)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(httpWait))
	// 110 bytes of a body of 4 MiB, and then nothing.
	io.WriteString(c, "POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 4194304\r\n\r\n"+
		`{"jsonrpc":"2.0","method":"echo","params":["`+strings.Repeat("x", 64))
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("no answer to a stalled body: %v", err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestTimeout {
		t.Errorf("status %d, want 408", resp.StatusCode)
	}
	if !resp.Close {
		t.Error("the answer does not close the connection")
	}
	if rest, err := io.ReadAll(br); err != nil || len(rest) > 0 {
		t.Errorf("after the 408: %q, %v; want the connection closed", rest, err)
	}
}

// Over HTTP/2 the deadline is the stream's.
func TestHTTP2ReadTimeout(t *testing.T) {
	t.Parallel()
	var sp http.Protocols
	sp.SetHTTP1(true)
	sp.SetUnencryptedHTTP2(true)
	hs := &http.Server{Handler: &httprpc.Handler{Server: demo.NewServer(), ReadTimeout: 200 * time.Millisecond}, Protocols: &sp}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go hs.Serve(ln)
	defer hs.Close()
	var cp http.Protocols
	cp.SetUnencryptedHTTP2(true)
	tr := &http.Transport{Protocols: &cp, TLSClientConfig: &tls.Config{}}
	defer tr.CloseIdleConnections()
	req := httpNewPost(t, "http://"+ln.Addr().String(), "application/json", "")
	req.Body = &stallingBody{data: []byte(`{"jsonrpc":"2.0","method":"echo","params":["`), closed: make(chan struct{})}
	req.ContentLength = 4 << 20
	a := httpDo(t, &http.Client{Transport: tr, Timeout: httpWait}, req)
	if a.proto != 2 || a.status != http.StatusRequestTimeout {
		t.Errorf("HTTP/%d %d, want HTTP/2 408", a.proto, a.status)
	}
}

// stallingBody is a request body that serves data and then blocks until
// the client's transport closes it.
type stallingBody struct {
	data      []byte
	closed    chan struct{}
	closeOnce sync.Once
}

func (b *stallingBody) Read(p []byte) (int, error) {
	if len(b.data) > 0 {
		n := copy(p, b.data)
		b.data = b.data[n:]
		return n, nil
	}
	<-b.closed
	return 0, errors.New("stalled body closed")
}

func (b *stallingBody) Close() error {
	b.closeOnce.Do(func() { close(b.closed) })
	return nil
}

// deadlineRW records the read deadlines set on it.
type deadlineRW struct {
	httptest.ResponseRecorder
	deadlines []time.Time
}

func (w *deadlineRW) SetReadDeadline(t time.Time) error {
	w.deadlines = append(w.deadlines, t)
	return nil
}

// wrappedRW is middleware's writer: it reaches the deadline through Unwrap.
type wrappedRW struct{ http.ResponseWriter }

func (w wrappedRW) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// The deadline the handler sets, and clears after the body, by its
// ReadTimeout and the http.Server's.
func TestHTTPReadDeadline(t *testing.T) {
	t.Parallel()
	srv := demo.NewServer()
	const body = `{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`
	for _, tc := range []struct {
		name          string
		readTimeout   time.Duration // the handler's
		serverTimeout time.Duration // the http.Server's; 0 for none
		length        int64
		wrap          bool
		want          time.Duration // the deadline set, from now; 0 for none
	}{
		{"default", 0, 0, int64(len(body)), false, httprpc.DefaultReadTimeout},
		{"set", 5 * time.Second, 0, int64(len(body)), false, 5 * time.Second},
		{"chunked", 5 * time.Second, 0, -1, false, 5 * time.Second},
		{"through Unwrap", 5 * time.Second, 0, int64(len(body)), true, 5 * time.Second},
		{"negative", -1, 0, int64(len(body)), false, 0},
		{"no body", 0, 0, 0, false, 0},
		{"server's shorter", 0, 10 * time.Second, int64(len(body)), false, 0},
		{"server's as long", 5 * time.Second, 5 * time.Second, int64(len(body)), false, 0},
		{"server's longer", 5 * time.Second, time.Minute, int64(len(body)), false, 5 * time.Second},
	} {
		h := &httprpc.Handler{Server: srv, ReadTimeout: tc.readTimeout}
		r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
		if tc.length == 0 {
			r = httptest.NewRequest(http.MethodPost, "/", http.NoBody)
		}
		r.Header.Set("Content-Type", "application/json")
		r.ContentLength = tc.length
		if tc.serverTimeout > 0 {
			r = r.WithContext(context.WithValue(r.Context(), http.ServerContextKey, &http.Server{ReadTimeout: tc.serverTimeout}))
		}
		w := &deadlineRW{ResponseRecorder: *httptest.NewRecorder()}
		var rw http.ResponseWriter = w
		if tc.wrap {
			rw = wrappedRW{w}
		}
		before := time.Now()
		h.ServeHTTP(rw, r)
		after := time.Now()
		if tc.length != 0 && w.Code != http.StatusOK {
			t.Errorf("%s: status %d", tc.name, w.Code)
		}
		if tc.want == 0 {
			if len(w.deadlines) != 0 {
				t.Errorf("%s: deadlines %v, want none", tc.name, w.deadlines)
			}
			continue
		}
		if len(w.deadlines) != 2 || !w.deadlines[1].IsZero() {
			t.Errorf("%s: deadlines %v, want one and then the zero time", tc.name, w.deadlines)
			continue
		}
		if d := w.deadlines[0]; d.Before(before.Add(tc.want)) || d.After(after.Add(tc.want)) {
			t.Errorf("%s: deadline %v after the request, want %v", tc.name, d.Sub(before), tc.want)
		}
	}
}

// A writer whose SetReadDeadline fails is served without a deadline.
type failingDeadlineRW struct{ *httptest.ResponseRecorder }

func (failingDeadlineRW) SetReadDeadline(time.Time) error { return errors.New("not supported") }

func TestHTTPReadDeadlineUnsupported(t *testing.T) {
	t.Parallel()
	r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(`{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`))
	r.Header.Set("Content-Type", "application/json")
	w := failingDeadlineRW{httptest.NewRecorder()}
	handler(demo.NewServer()).ServeHTTP(w, r)
	if w.Code != http.StatusOK || w.Body.String() != `{"jsonrpc":"2.0","result":3,"id":1}` {
		t.Errorf("%d %s", w.Code, w.Body)
	}
}
