package interop

import (
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// quickStart returns the Go program of the README's section "MCP quick
// start", as it is written there.
func quickStart(t *testing.T) string {
	t.Helper()
	readme, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "\n### An MCP server with two tools\n")
	if ok {
		_, section, ok = strings.Cut(section, "\n```go\n")
	}
	if ok {
		section, _, ok = strings.Cut(section, "\n```\n")
	}
	if !ok {
		t.Fatal("README.md has no section \"An MCP server with two tools\" with a Go program")
	}
	return section + "\n"
}

// TestMCPQuickStart builds the README's MCP quick start as it is written,
// checks that it is under 30 lines, runs it (on a free port instead of
// its own) and drives it with the MCP TypeScript SDK's client
// (@modelcontextprotocol/client) at 2026-07-28 and with the handshake of
// 2025-11-25: the two tools listed with their schemas, each called.
func TestMCPQuickStart(t *testing.T) {
	src := quickStart(t)
	if n := strings.Count(src, "\n"); n >= 30 {
		t.Errorf("the quick start is %d lines, want under 30", n)
	}
	const addr = "127.0.0.1:8932"
	if !strings.Contains(src, `"`+addr+`"`) {
		t.Fatalf("the quick start does not listen on %s", addr)
	}
	node, dir := needNode(t, "mcpts", "@modelcontextprotocol/client")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	free := ln.Addr().String()
	ln.Close()

	tmp := t.TempDir()
	if err := os.WriteFile(filepath.Join(tmp, "main.go"), []byte(strings.Replace(src, addr, free, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(tmp, "quickstart")
	if out, err := exec.Command("go", "build", "-o", bin, filepath.Join(tmp, "main.go")).CombinedOutput(); err != nil {
		t.Fatalf("go build of the quick start: %v\n%s", err, out)
	}
	cmd := exec.Command(bin)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if c, err := net.Dial("tcp", free); err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the quick start did not listen within 30 s")
		}
	}

	for _, mode := range []string{"2026-07-28", "legacy"} {
		t.Run(mode, func(t *testing.T) {
			steps, _ := runSteps(t, node, filepath.Join(dir, "quickstart.mjs"), "http://"+free+"/mcp", mode)
			var conn struct {
				Version string
				Server  struct{ Name string }
			}
			step(t, steps, "connect", &conn)
			want := map[string]string{"2026-07-28": "2026-07-28", "legacy": "2025-11-25"}[mode]
			if conn.Version != want || conn.Server.Name != "quickstart" {
				t.Errorf("connect: %s, want version %s", steps["connect"], want)
			}
			var tools struct {
				Tools []struct {
					Name, Description         string
					InputSchema, OutputSchema json.RawMessage
				}
			}
			step(t, steps, "tools", &tools)
			const in = `{"type":"object","properties":{"text":{"type":"string","description":"The text to work on."}},"required":["text"]}`
			if len(tools.Tools) != 2 || tools.Tools[0].Name != "upper" || tools.Tools[1].Name != "count" ||
				!sameJSON(string(tools.Tools[0].InputSchema), in) || !sameJSON(string(tools.Tools[1].InputSchema), in) ||
				tools.Tools[0].OutputSchema != nil || !sameJSON(string(tools.Tools[1].OutputSchema), `{"type":"object","additionalProperties":{"type":"integer"}}`) {
				t.Errorf("tools: %s", steps["tools"])
			}
			var upper struct {
				Text    string
				IsError bool
			}
			if step(t, steps, "upper", &upper); upper.Text != "HELLO, WORLD" || upper.IsError {
				t.Errorf("upper: %s", steps["upper"])
			}
			var count struct {
				Structured json.RawMessage
				IsError    bool
			}
			if step(t, steps, "count", &count); string(count.Structured) != `{"words":3}` || count.IsError {
				t.Errorf("count: %s", steps["count"])
			}
		})
	}
}

// sameJSON reports whether a and b are the same JSON value.
func sameJSON(a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	xb, _ := json.Marshal(x)
	yb, _ := json.Marshal(y)
	return string(xb) == string(yb)
}
