package httprpc_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/httprpc"
	"github.com/jsonrpc-go/jsonrpc/internal/demo"
	"github.com/jsonrpc-go/jsonrpc/internal/testutil"
)

func TestHTTPLogger(t *testing.T) {
	logger, log := testutil.NewLog()
	ts := httptest.NewServer(&httprpc.Handler{Server: demo.NewServer(), MaxBody: 100, Logger: logger})
	defer ts.Close()
	c := httpClientOf(ts)

	get, err := http.NewRequest(http.MethodGet, ts.URL+"/rpc", nil)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		req    *http.Request
		status int
		why    string
	}{
		{get, http.StatusMethodNotAllowed, "method not allowed"},
		{httpNewPost(t, ts.URL+"/rpc", "text/plain", "{}"), http.StatusUnsupportedMediaType, "Content-Type"},
		{httpNewPost(t, ts.URL+"/rpc", "application/json", httpPaddedRequest(t, 200)), http.StatusRequestEntityTooLarge, "larger than 100 bytes"},
	}
	for _, cs := range cases {
		if a := httpDo(t, c, cs.req); a.status != cs.status {
			t.Fatalf("%s %s: status %d, want %d", cs.req.Method, cs.why, a.status, cs.status)
		}
	}
	recs := log.Find(t, "request refused")
	if len(recs) != len(cases) {
		t.Fatalf("%d records, want %d; the log:\n%s", len(recs), len(cases), log)
	}
	for i, cs := range cases {
		testutil.Want(t, recs[i], "WARN", map[string]any{
			"remote": testutil.Contains("127.0.0.1:"),
			"path":   "/rpc",
			"status": cs.status,
			"error":  testutil.Contains(cs.why),
		})
	}
	// A request answered logs nothing.
	before := log.String()
	httpCheckRPC(t, "call", httpPostJSON(t, c, ts.URL+"/rpc", `{"jsonrpc":"2.0","method":"Test2","params":[1],"id":1}`), `{"jsonrpc":"2.0","result":1,"id":1}`)
	if after := log.String(); after != before {
		t.Errorf("an answered request logged %s", after[len(before):])
	}
}

// TestHTTPPanicStack: the stack of a method's panic is logged, and the
// client's answer holds none of it.
func TestHTTPPanicStack(t *testing.T) {
	logger, log := testutil.NewLog()
	srv := jsonrpc.NewServer(jsonrpc.UseLogger(logger))
	srv.MustRegister("crash", func() int { panic("secret at /etc/shadow") })
	ts := httptest.NewServer(&httprpc.Handler{Server: srv})
	defer ts.Close()
	a := httpPostJSON(t, httpClientOf(ts), ts.URL, `{"jsonrpc":"2.0","method":"crash","id":1}`)
	httpCheckRPC(t, "crash", a, `{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error"},"id":1}`)
	for _, secret := range []string{"secret", "goroutine", "/etc/shadow"} {
		if strings.Contains(a.body, secret) {
			t.Errorf("the answer %s holds %q", a.body, secret)
		}
	}
	testutil.Want(t, log.Wait(t, "method panicked"), "ERROR", map[string]any{"method": "crash", "stack": testutil.Contains("goroutine")})
}
