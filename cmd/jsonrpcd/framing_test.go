package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/jsonrpc-go/jsonrpc/client"
	"github.com/jsonrpc-go/jsonrpc/framing"
	"github.com/jsonrpc-go/jsonrpc/internal/demo"
)

// header frames msg as LSP does.
func header(msg string) string { return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(msg), msg) }

// TestFramingStdio serves -stdio with each framing of -framing.
func TestFramingStdio(t *testing.T) {
	add := `{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`
	sub := `{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":2}`
	for _, tt := range []struct {
		framing, in, want string
	}{
		{"line", add + "\n" + sub + "\n", `{"jsonrpc":"2.0","result":3,"id":1}` + "\n" + `{"jsonrpc":"2.0","result":19,"id":2}` + "\n"},
		{"header", header(add) + header(sub), header(`{"jsonrpc":"2.0","result":3,"id":1}`) + header(`{"jsonrpc":"2.0","result":19,"id":2}`)},
		{"raw", add + sub, `{"jsonrpc":"2.0","result":3,"id":1}` + "\n" + `{"jsonrpc":"2.0","result":19,"id":2}` + "\n"},
	} {
		var out, errOut bytes.Buffer
		if code := run(context.Background(), []string{"-stdio", "-framing", tt.framing}, strings.NewReader(tt.in), &out, &errOut); code != 0 {
			t.Errorf("-framing %s: status %d: %s", tt.framing, code, errOut.String())
		}
		if out.String() != tt.want {
			t.Errorf("-framing %s: got %q, want %q", tt.framing, out.String(), tt.want)
		}
	}
	if code := run(context.Background(), []string{"-stdio", "-framing", "lsp"}, strings.NewReader(""), io.Discard, io.Discard); code != 2 {
		t.Errorf("-framing lsp: status %d, want 2", code)
	}
}

// TestFramingTCP serves TCP with -framing header and calls it as an LSP
// client frames its messages.
func TestFramingTCP(t *testing.T) {
	s := startServing(t, demo.NewServer(), "-framing", "header")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ch, err := client.Dial(ctx, "tcp", s.tcpAddr, framing.Header)
	if err != nil {
		t.Fatal(err)
	}
	c := client.New(ch)
	defer c.Close()
	sum, err := client.Call[float64](ctx, c, "add", []any{1, 2})
	if err != nil || sum != 3 {
		t.Errorf("add over TCP with Content-Length framing: %v, %v", sum, err)
	}
}
