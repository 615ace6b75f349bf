package fasthttprpc_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/valyala/fasthttp"

	"github.com/jsonrpc-go/jsonrpc/fasthttprpc"
	"github.com/jsonrpc-go/jsonrpc/internal/demo"
	"github.com/jsonrpc-go/jsonrpc/internal/leaktest"
	"github.com/jsonrpc-go/jsonrpc/internal/testutil"
)

func TestLogger(t *testing.T) {
	leaktest.CheckIgnoring(t, fasthttpBackground...)
	logger, log := testutil.NewLog()
	h := &fasthttprpc.Handler{Server: demo.NewServer(), MaxBody: 100, Logger: logger}
	// Streamed bodies, so that MaxBody applies, and a server limit of its
	// own for ErrorHandler, with bodies read in full.
	streamed := serve(t, h.ServeFastHTTP, func(s *fasthttp.Server) { s.StreamRequestBody = true })
	limited := serve(t, h.ServeFastHTTP, func(s *fasthttp.Server) {
		s.MaxRequestBodySize = 100
		s.ErrorHandler = h.ErrorHandler
	})

	post := func(url, contentType, coding, body string) *http.Request {
		r, err := http.NewRequest(http.MethodPost, url+"/rpc", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		r.Header.Set("Content-Type", contentType)
		if coding != "" {
			r.Header.Set("Content-Encoding", coding)
		}
		return r
	}
	get, err := http.NewRequest(http.MethodGet, streamed+"/rpc", nil)
	if err != nil {
		t.Fatal(err)
	}
	large := `{"jsonrpc":"2.0","method":"echo","params":["` + strings.Repeat("x", 200) + `"],"id":1}`
	cases := []struct {
		req    *http.Request
		status int
		why    string
	}{
		{get, http.StatusMethodNotAllowed, "method not allowed"},
		{post(streamed, "text/plain", "", "{}"), http.StatusUnsupportedMediaType, "Content-Type"},
		{post(streamed, "application/json", "br", "{}"), http.StatusUnsupportedMediaType, "Content-Encoding"},
		{post(streamed, "application/json", "", large), http.StatusRequestEntityTooLarge, "larger than 100 bytes"},
		{post(streamed, "application/json", "gzip", string(testutil.Gzip(t, large))), http.StatusRequestEntityTooLarge, "larger than 100 bytes"},
		{post(streamed, "application/json", "gzip", "{}"), http.StatusBadRequest, "reading the request body"},
		{post(limited, "application/json", "", large), http.StatusRequestEntityTooLarge, "the server's limit"},
	}
	// A connection per request: a refused streamed body is left unread,
	// and a kept-alive connection would hold the server's Shutdown until
	// its ReadTimeout.
	hc := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	for _, c := range cases {
		resp, err := hc.Do(c.req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != c.status {
			t.Fatalf("%s %s: status %d, want %d", c.req.Method, c.why, resp.StatusCode, c.status)
		}
	}
	recs := log.Find(t, "request refused")
	if len(recs) != len(cases) {
		t.Fatalf("%d records, want %d; the log:\n%s", len(recs), len(cases), log)
	}
	for i, c := range cases {
		testutil.Want(t, recs[i], "WARN", map[string]any{
			"remote": testutil.Contains("127.0.0.1:"),
			"path":   "/rpc",
			"status": c.status,
			"error":  testutil.Contains(c.why),
		})
	}
	// A request answered logs nothing.
	before := log.String()
	const call = `{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`
	for _, url := range []string{streamed, limited} {
		if a := do(t, "POST", url+"/rpc", "application/json", call); a.status != 200 || a.body != `{"jsonrpc":"2.0","result":3,"id":1}` {
			t.Errorf("call: %d %s", a.status, a.body)
		}
	}
	if after := log.String(); after != before {
		t.Errorf("an answered request logged %s", after[len(before):])
	}
}
