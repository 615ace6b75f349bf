package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/jsonrpc-go/jsonrpc/demo"
)

func TestServeLines(t *testing.T) {
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
	want := []string{
		`{"jsonrpc":"2.0","result":3,"id":1}`,
		`[{"jsonrpc":"2.0","result":19,"id":"a"},{"jsonrpc":"2.0","result":7,"id":2}]`,
		`{"jsonrpc":"2.0","result":"crlf","id":3}`,
		`{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"},"id":null}`,
		`{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error","data":"line exceeds 256 bytes"},"id":null}`,
		`{"jsonrpc":"2.0","result":0.5,"id":5}`,
	}
	for name, r := range map[string]io.Reader{
		"whole":     strings.NewReader(in),
		"one-byte":  iotest.OneByteReader(strings.NewReader(in)),
		"half-read": iotest.HalfReader(strings.NewReader(in)),
	} {
		var out bytes.Buffer
		if err := serveLines(demo.NewServer(), r, &out, 256); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := strings.TrimSuffix(out.String(), "\n"); got != strings.Join(want, "\n") {
			t.Errorf("%s: got:\n%s\nwant:\n%s", name, got, strings.Join(want, "\n"))
		}
	}
}

// TestStdioCommand runs the command the README shows: go run ./cmd/jsonrpcd -stdio.
func TestStdioCommand(t *testing.T) {
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
	if err := exec.Command(bin).Run(); err == nil {
		t.Error("no flags: want a usage error")
	}
}
