package main

import (
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/jsonrpc-go/jsonrpc/framing"
)

// TestHugeBody: a 40 MiB body, over the server's 4 MiB message limit, is
// answered with -32005 and its id, and the server keeps serving the same
// editor, instead of ending with status 1.
func TestHugeBody(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	status := make(chan int, 1)
	go func() { status <- run(inR, outW, testWriter{t}); outW.Close() }()
	go func() {
		body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"x":"` + strings.Repeat("x", 40<<20) + `"}}`
		fmt.Fprintf(inW, "Content-Length: %d\r\n\r\n%s", len(body), body)
		next := `{"jsonrpc":"2.0","id":2,"method":"initialize","params":{}}`
		fmt.Fprintf(inW, "Content-Length: %d\r\n\r\n%s", len(next), next)
	}()
	answers := make(chan string, 4)
	go func() {
		rd := framing.Header.NewReader(outR, 1<<20)
		for {
			msg, err := rd.Read()
			if err != nil {
				close(answers)
				return
			}
			answers <- string(msg)
		}
	}()
	for _, want := range []string{
		`{"jsonrpc":"2.0","error":{"code":-32005,"message":"Limit exceeded","data":"message exceeds the limit of 4194304 bytes"},"id":1}`,
		`"id":2}`,
	} {
		select {
		case got := <-answers:
			if !strings.HasSuffix(got, want) {
				t.Errorf("got  %.200s\nwant %s", got, want)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("no answer; want %s", want)
		}
	}
	inW.Close() // the editor goes away: the server ends
	select {
	case <-status:
	case <-time.After(30 * time.Second):
		t.Fatal("run did not return after exit")
	}
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) { w.t.Logf("%s", p); return len(p), nil }
