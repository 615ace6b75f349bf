//go:build !js

package ws_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/client"
	"github.com/jsonrpc-go/jsonrpc/transport"
	"github.com/jsonrpc-go/jsonrpc/ws"
)

// TestHealthDuringShutdown (issue 39): a Handler's Health answers its
// probes at the root beside the upgrades; Shutdown drains it first, so
// that readiness answers 503 while the call in flight on a connection
// completes with its result, and liveness stays 200.
func TestHealthDuringShutdown(t *testing.T) {
	srv := jsonrpc.NewServer()
	started, release := make(chan struct{}), make(chan struct{})
	srv.MustRegister("hold", func() string { close(started); <-release; return "done" }, jsonrpc.Blocking())
	h := &ws.Handler{Server: srv, Health: &transport.Health{}}
	ts := httptest.NewServer(h)
	defer ts.Close()
	probe := func(path string) int {
		t.Helper()
		resp, err := http.Get(ts.URL + path)
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	if l, r := probe("/healthz"), probe("/readyz"); l != 200 || r != 200 {
		t.Fatalf("serving: /healthz %d, /readyz %d, want 200 and 200", l, r)
	}
	ch, err := ws.Dial(t.Context(), "ws"+strings.TrimPrefix(ts.URL, "http"), nil)
	if err != nil {
		t.Fatal(err)
	}
	c := client.New(ch)
	defer c.Close()
	held := make(chan error, 1)
	go func() {
		got, err := client.Call[string](context.Background(), c, "hold", nil)
		if err == nil && got != "done" {
			err = io.ErrUnexpectedEOF
		}
		held <- err
	}()
	<-started

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	shut := make(chan error, 1)
	go func() { shut <- h.Shutdown(ctx) }()
	for probe("/readyz") != 503 {
		if ctx.Err() != nil {
			t.Fatal("readiness did not fail after Shutdown began")
		}
		time.Sleep(time.Millisecond)
	}
	if l := probe("/healthz"); l != 200 {
		t.Errorf("shutting down: /healthz %d, want 200", l)
	}
	close(release)
	if err := <-held; err != nil {
		t.Errorf("the call in flight: %v", err)
	}
	if err := <-shut; err != nil {
		t.Errorf("Shutdown: %v", err)
	}
}
