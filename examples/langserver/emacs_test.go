package main

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/jsonrpc-go/jsonrpc/framing"
)

// TestNullParamsShutdown plays the end of an Emacs (Eglot) session over
// stdio, byte for byte as its JSON-RPC client writes it: shutdown and exit
// with "params": null. The server answers shutdown, takes exit, and ends
// with status 0, instead of refusing both as invalid requests and being
// killed by the editor. The exchange is logged (go test -v).
func TestNullParamsShutdown(t *testing.T) {
	bin := build(t)
	cmd := exec.Command(bin)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() { cmd.Process.Kill() })

	wr := framing.Header.NewWriter(stdin)
	rd := framing.Header.NewReader(stdout, 1<<20)
	answers := make(chan string, 8)
	go func() {
		defer close(answers)
		for {
			msg, err := rd.Read()
			if err != nil {
				return
			}
			answers <- string(msg)
		}
	}()
	send := func(msg string) {
		t.Helper()
		t.Logf("--> %s", msg)
		if err := wr.Write([]byte(msg)); err != nil {
			t.Fatal(err)
		}
		if err := wr.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	recv := func(want string) {
		t.Helper()
		select {
		case got, ok := <-answers:
			if !ok {
				t.Fatalf("the server ended its output; want %s", want)
			}
			t.Logf("<-- %s", got)
			if !strings.Contains(got, want) {
				t.Errorf("got %s, want it to hold %s", got, want)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("no answer; want %s", want)
		}
	}

	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"rootPath":null,"rootUri":null,"initializationOptions":null,"capabilities":{},"workspaceFolders":[]}}`)
	recv(`"id":1`)
	send(`{"jsonrpc":"2.0","method":"initialized","params":{}}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"shutdown","params":null}`)
	recv(`{"jsonrpc":"2.0","result":null,"id":2}`)
	send(`{"jsonrpc":"2.0","method":"exit","params":null}`)
	select {
	case err := <-exited:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Errorf("the server exited with %v, want status 0", err)
		} else if err != nil {
			t.Error(err)
		}
		t.Logf("exit status 0")
	case <-time.After(30 * time.Second):
		t.Fatal("the server did not exit after exit")
	}
}
