package main

import (
	"bufio"
	"io"
	"strings"
	"testing"
	"time"
)

// TestHugeLine: a 33 MiB line, over the server's 4 MiB message limit, is
// answered with MCP's limit code, -31005 (mcp.CodeLimitExceeded), and
// its id, and the server keeps serving the same client, instead of ending
// with status 1.
func TestHugeLine(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	status := make(chan int, 1)
	go func() { status <- run(inR, outW, io.Discard); outW.Close() }()
	go func() {
		inW.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"` + strings.Repeat("x", 33<<20) + `"}}` + "\n"))
		inW.Write([]byte(`{"jsonrpc":"2.0","id":2,"method":"ping"}` + "\n"))
		inW.Close()
	}()
	lines := make(chan string, 4)
	go func() {
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	for _, want := range []string{
		`{"jsonrpc":"2.0","error":{"code":-31005,"message":"Limit exceeded","data":"message exceeds the limit of 4194304 bytes"},"id":1}`,
		`{"jsonrpc":"2.0","result":{},"id":2}`,
	} {
		select {
		case got := <-lines:
			if got != want {
				t.Errorf("got  %.200s\nwant %s", got, want)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("no answer; want %s", want)
		}
	}
	select {
	case code := <-status:
		if code != 0 {
			t.Errorf("status %d after the input ended, want 0", code)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("run did not return after the input ended")
	}
}
