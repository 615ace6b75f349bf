package main

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestHealthDrain (issue 39): jsonrpcd answers GET /healthz and /readyz on
// its HTTP address; on the signal, /readyz answers 503 at once while the
// listeners stay open for -drain (new calls still answered) and the call
// in flight goes on; when the drain ends (a second signal), the listeners
// close and the call in flight completes with its result.
func TestHealthDrain(t *testing.T) {
	srv := newShutdownServer(1)
	endDrain := make(chan struct{})
	s := startServingWith(t, srv.Server, func(cfg *config) { cfg.drainEnd = endDrain }, "-drain", "1h")
	hc := &http.Client{Timeout: wait}
	get := func(path string) (int, string) {
		t.Helper()
		resp, err := hc.Get("http://" + s.httpAddr + path)
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	post := func(method, key string) (string, error) {
		resp, err := hc.Post("http://"+s.httpAddr+"/", "application/json", strings.NewReader(call(method, key, key)))
		if err != nil {
			return "", err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		return string(b), err
	}
	for _, path := range []string{"/healthz", "/readyz"} {
		if status, body := get(path); status != 200 || body != "ok\n" {
			t.Fatalf("serving: GET %s = %d %q, want 200 ok", path, status, body)
		}
	}
	held := make(chan string, 1)
	go func() {
		got, err := post("hold", "h")
		if err != nil {
			got = err.Error()
		}
		held <- got
	}()
	<-srv.holding

	s.cancel() // SIGTERM
	for deadline := time.Now().Add(wait); ; time.Sleep(time.Millisecond) {
		if status, _ := get("/readyz"); status == 503 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("/readyz does not answer 503 after the signal")
		}
	}
	if status, _ := get("/healthz"); status != 200 {
		t.Errorf("draining: /healthz %d, want 200", status)
	}
	if got, err := post("rec", "new"); err != nil || got != `{"jsonrpc":"2.0","result":"new","id":"new"}` {
		t.Errorf("a call while draining: %s, %v", got, err)
	}
	select {
	case <-s.shuttingDown:
		t.Fatal("the shutdown began before the drain ended")
	default:
	}

	close(endDrain) // the second signal
	select {
	case <-s.shuttingDown:
	case <-time.After(wait):
		t.Fatal("the shutdown did not begin when the drain ended")
	}
	close(srv.release)
	if got, want := <-held, `{"jsonrpc":"2.0","result":"h","id":"h"}`; got != want {
		t.Errorf("the call in flight: %s, want %s", got, want)
	}
	select {
	case status := <-s.done:
		s.done <- status
		if status != 0 {
			t.Errorf("status %d, want 0: %s", status, s.errOut)
		}
	case <-time.After(wait):
		t.Fatal("serveNetwork does not return")
	}
}

// -health=false leaves /healthz and /readyz to JSON-RPC, which answers a
// GET 405.
func TestHealthOff(t *testing.T) {
	s := startServing(t, newShutdownServer(0).Server, "-health=false")
	resp, err := http.Get(fmt.Sprintf("http://%s/readyz", s.httpAddr))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET /readyz with -health=false: %d, want 405", resp.StatusCode)
	}
}
