package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/jsonrpc-go/jsonrpc/internal/testutil"
)

// TestDiscoverFlag: rpc.discover is served by default, and not with
// -discover=false.
func TestDiscoverFlag(t *testing.T) {
	const call = `{"jsonrpc":"2.0","method":"rpc.discover","id":1}` + "\n"
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"-stdio"}, `"result":{"openrpc":`},
		{[]string{"-stdio", "-discover=false"}, `"code":-32601`},
	} {
		var out, errOut bytes.Buffer
		if code := run(context.Background(), tt.args, strings.NewReader(call), &out, &errOut); code != 0 {
			t.Fatalf("%v: status %d: %s", tt.args, code, errOut.String())
		}
		if !strings.Contains(out.String(), tt.want) {
			t.Errorf("%v: %.200s, want %s", tt.args, out.String(), tt.want)
		}
	}
}

func TestStdio(t *testing.T) {
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`,
		``,
		`{"jsonrpc":"2.0","method":"notify_hello","params":[7]}`,
		`[{"jsonrpc":"2.0","method":"subtract","params":{"minuend":42,"subtrahend":23},"id":"a"},{"jsonrpc":"2.0","method":"sum","params":[1,2,4],"id":2}]`,
		"{\"jsonrpc\":\"2.0\",\"method\":\"StringMe\",\"params\":[\"crlf\"],\"id\":3}\r",
		`{"jsonrpc":"2.0","method"`,
		`{"jsonrpc":"2.0","method":"echo","params":["` + strings.Repeat("x", 300) + `"],"id":4}`,
		`{"jsonrpc":"2.0","method":"Test2","params":[0.5],"id":5}`, // no final newline
	}, "\n")
	want := strings.Join([]string{
		`{"jsonrpc":"2.0","result":3,"id":1}`,
		`[{"jsonrpc":"2.0","result":19,"id":"a"},{"jsonrpc":"2.0","result":7,"id":2}]`,
		`{"jsonrpc":"2.0","result":"crlf","id":3}`,
		`{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"},"id":null}`,
		`{"jsonrpc":"2.0","error":{"code":-32005,"message":"Limit exceeded","data":"message exceeds the limit of 256 bytes"},"id":4}`,
		`{"jsonrpc":"2.0","result":0.5,"id":5}`,
	}, "\n") + "\n"
	var out, errOut bytes.Buffer
	if code := run(context.Background(), []string{"-stdio", "-max-message", "256"}, strings.NewReader(in), &out, &errOut); code != 0 {
		t.Fatalf("status %d: %s", code, errOut.String())
	}
	if out.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", out.String(), want)
	}
}

func TestDiscover(t *testing.T) {
	var out, errOut bytes.Buffer
	in := `{"jsonrpc":"2.0","method":"rpc.discover","id":1}` + "\n"
	if code := run(context.Background(), []string{"-stdio"}, strings.NewReader(in), &out, &errOut); code != 0 {
		t.Fatalf("status %d: %s", code, errOut.String())
	}
	var resp struct {
		Result struct {
			OpenRPC string `json:"openrpc"`
			Info    struct{ Title string }
			Methods []struct {
				Name           string
				ParamStructure string
			}
		}
		ID int
	}
	if err := json.Unmarshal(out.Bytes(), &resp); err != nil {
		t.Fatalf("%v: %s", err, out.String())
	}
	r := resp.Result
	if r.OpenRPC != "1.3.2" || r.Info.Title != "jsonrpcd demo services" || resp.ID != 1 || len(r.Methods) != 19 {
		t.Errorf("rpc.discover: %s", out.String())
	}
	for _, m := range r.Methods {
		if m.Name == "subtract" && m.ParamStructure != "either" {
			t.Errorf("subtract: %+v", m)
		}
	}
}

func TestFlags(t *testing.T) {
	for _, args := range [][]string{{"extra"}, {"-nope"}, {"-http", "", "-tcp", ""}, {"-max-conns", "0"}, {"-idle-timeout", "-1s"}, {"-protocol", "jsonrpc"}, {"-max-sessions", "0"}} {
		if code := run(context.Background(), args, strings.NewReader(""), io.Discard, io.Discard); code != 2 {
			t.Errorf("%q: status %d, want 2", args, code)
		}
	}
	if code := run(context.Background(), []string{"-h"}, strings.NewReader(""), io.Discard, io.Discard); code != 0 {
		t.Errorf("-h: status %d", code)
	}
}

// TestNetwork serves HTTP, WebSocket and TCP on ephemeral loopback ports,
// calls each, and shuts down through the context as a signal would.
func TestNetwork(t *testing.T) {
	testutil.SkipOnJS(t, "calls over WebSocket too, and coder/websocket on js dials with the host's WebSocket, which cannot reach the program's in-memory network")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"-http", "127.0.0.1:0", "-tcp", "127.0.0.1:0"}, strings.NewReader(""), pw, io.Discard)
		pw.Close()
	}()
	lines := bufio.NewScanner(pr)
	addr := map[string]string{}
	for len(addr) < 4 && lines.Scan() {
		f := strings.Fields(lines.Text())
		switch {
		case strings.HasPrefix(lines.Text(), "jsonrpcd: HTTP on "):
			addr["http"] = f[len(f)-1]
		case strings.HasPrefix(lines.Text(), "jsonrpcd: WebSocket on "):
			addr["ws"] = f[len(f)-1]
		case strings.HasPrefix(lines.Text(), "jsonrpcd: Streamable HTTP on "):
			addr["streamable"] = f[len(f)-1]
		case strings.HasPrefix(lines.Text(), "jsonrpcd: TCP"):
			addr["tcp"] = f[len(f)-1]
		}
	}
	go io.Copy(io.Discard, pr)
	want := `{"jsonrpc":"2.0","result":3,"id":1}`
	req := `{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`

	resp, err := http.Post(addr["http"], "application/json", strings.NewReader(req))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != want {
		t.Errorf("HTTP: %s", body)
	}

	sreq, _ := http.NewRequest(http.MethodPost, addr["streamable"], strings.NewReader(req))
	sreq.Header.Set("Content-Type", "application/json")
	sreq.Header.Set("Accept", "application/json, text/event-stream")
	resp, err = http.DefaultClient.Do(sreq)
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != want || resp.Header.Get("Content-Type") != "application/json" {
		t.Errorf("Streamable HTTP: %s %s", resp.Header.Get("Content-Type"), body)
	}

	wctx, wcancel := context.WithTimeout(ctx, 5*time.Second)
	defer wcancel()
	wc, _, err := websocket.Dial(wctx, addr["ws"], nil)
	if err != nil {
		t.Fatal(err)
	}
	wc.Write(wctx, websocket.MessageText, []byte(req))
	if _, msg, err := wc.Read(wctx); err != nil || string(msg) != want {
		t.Errorf("WebSocket: %s, %v", msg, err)
	}
	wc.Close(websocket.StatusNormalClosure, "")

	c, err := net.DialTimeout("tcp", addr["tcp"], 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	c.SetDeadline(time.Now().Add(5 * time.Second))
	io.WriteString(c, req+"\n")
	if line, err := bufio.NewReader(c).ReadString('\n'); err != nil || line != want+"\n" {
		t.Errorf("TCP: %q, %v", line, err)
	}
	c.Close()

	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("status %d after shutdown", code)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("no shutdown")
	}
}

// TestStdioCommand runs the command docs/HOSTING.md shows: go run ./cmd/jsonrpcd -stdio.
func TestStdioCommand(t *testing.T) {
	testutil.SkipOnWasm(t, "builds and starts the command, and a WebAssembly program cannot start a process")
	if testing.Short() {
		t.Skip("builds the command")
	}
	bin := filepath.Join(t.TempDir(), "jsonrpcd")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		t.Fatalf("go build: %v", err)
	}
	cmd := exec.Command(bin, "-stdio")
	cmd.Stdin = strings.NewReader(`{"jsonrpc": "2.0", "method": "subtract", "params": [42, 23], "id": 1}` + "\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	var resp struct {
		Result float64
		ID     int
	}
	if err := json.Unmarshal(out, &resp); err != nil || resp.Result != 19 || resp.ID != 1 {
		t.Fatalf("got %q (%v)", out, err)
	}
}
