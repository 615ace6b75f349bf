package httprpc_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/httprpc"
	"github.com/jsonrpc-go/jsonrpc/transport"
)

// get returns the status and body of a GET of url.
func get(t *testing.T, c *http.Client, url string) (int, string) {
	t.Helper()
	resp, err := c.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestHealthDuringShutdown (issue 39): the probes of a Handler's Health
// answer 200 while it serves; once the Health drains, the first step of
// the shutdown, readiness answers 503 while liveness stays 200, new calls
// are still answered (the listener is open until the program closes it),
// and the call in flight completes with its result through
// http.Server.Shutdown. ProbeHandler answers the same on a mux's paths.
func TestHealthDuringShutdown(t *testing.T) {
	srv := jsonrpc.NewServer()
	started, release := make(chan struct{}), make(chan struct{})
	srv.MustRegister("hold", func() string { close(started); <-release; return "done" }, jsonrpc.Blocking())
	srv.MustRegister("add", func(a, b int) int { return a + b })
	health := &transport.Health{}
	mux := http.NewServeMux()
	mux.Handle("/", &httprpc.Handler{Server: srv, Health: health})
	mux.Handle("/probe/readyz", http.StripPrefix("/probe", httprpc.ProbeHandler(health)))
	ts := httptest.NewServer(mux)
	defer ts.Close()
	c := ts.Client()
	post := func(body string) (string, error) {
		resp, err := c.Post(ts.URL, "application/json", strings.NewReader(body))
		if err != nil {
			return "", err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		return string(b), err
	}

	for _, path := range []string{"/healthz", "/readyz", "/probe/readyz"} {
		if status, body := get(t, c, ts.URL+path); status != 200 || body != "ok\n" {
			t.Errorf("serving: GET %s = %d %q, want 200 ok", path, status, body)
		}
	}
	resp, err := c.Head(ts.URL + "/readyz")
	if err != nil || resp.StatusCode != 200 || resp.Header.Get("Cache-Control") != "no-store" {
		t.Errorf("HEAD /readyz: %v %v", resp, err)
	}

	held := make(chan string, 1)
	go func() {
		got, err := post(`{"jsonrpc":"2.0","method":"hold","id":1}`)
		if err != nil {
			got = err.Error()
		}
		held <- got
	}()
	<-started

	health.Drain() // shutdown begins: readiness first
	for _, tc := range []struct {
		path   string
		status int
		body   string
	}{{"/healthz", 200, "ok\n"}, {"/readyz", 503, "draining\n"}, {"/probe/readyz", 503, "draining\n"}} {
		if status, body := get(t, c, ts.URL+tc.path); status != tc.status || body != tc.body {
			t.Errorf("draining: GET %s = %d %q, want %d %q", tc.path, status, body, tc.status, tc.body)
		}
	}
	if got, err := post(`{"jsonrpc":"2.0","method":"add","params":[1,2],"id":2}`); err != nil || got != `{"jsonrpc":"2.0","result":3,"id":2}` {
		t.Errorf("a call while draining: %s, %v", got, err)
	}

	shut := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		shut <- ts.Config.Shutdown(ctx)
	}()
	// Once Shutdown has closed the listener, the call is released.
	addr := ts.Listener.Addr().String()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(time.Millisecond) {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			break
		}
		conn.Close()
		if time.Now().After(deadline) {
			t.Fatal("Shutdown did not close the listener")
		}
	}
	close(release)
	if got, want := <-held, `{"jsonrpc":"2.0","result":"done","id":1}`; got != want {
		t.Errorf("the call in flight: %s, want %s", got, want)
	}
	if err := <-shut; err != nil {
		t.Errorf("Shutdown: %v", err)
	}
}
