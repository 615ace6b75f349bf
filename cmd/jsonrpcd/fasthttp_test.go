package main

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/jsonrpc-go/jsonrpc/internal/demo"
)

// -fasthttp serves the same protocol as -http, with fasthttprpc, and shuts
// down with the other listeners.
func TestFastHTTP(t *testing.T) {
	s := startServing(t, demo.NewServer(), "-fasthttp", "127.0.0.1:0")
	if s.fastHTTPAddr == "" {
		t.Fatal("no fasthttp address said")
	}
	resp, err := http.Post("http://"+s.fastHTTPAddr+"/", "application/json", strings.NewReader(`{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if want := `{"jsonrpc":"2.0","result":3,"id":1}`; resp.StatusCode != 200 || string(body) != want {
		t.Errorf("fasthttp: %d %s, want 200 %s", resp.StatusCode, body, want)
	}
	// A body over -max-message is refused with 413, as over -http.
	big := `{"jsonrpc":"2.0","method":"echo","params":["` + strings.Repeat("x", 2000) + `"],"id":1}`
	s2 := startServing(t, demo.NewServer(), "-fasthttp", "127.0.0.1:0", "-max-message", "1000")
	resp, err = http.Post("http://"+s2.fastHTTPAddr+"/", "application/json", strings.NewReader(big))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("a body over -max-message: %d, want 413", resp.StatusCode)
	}
	if status, _ := s.stop(t); status != 0 {
		t.Errorf("status %d after shutdown: %s", status, s.errOut)
	}
}
