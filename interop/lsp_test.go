package interop

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// needNode returns the node command and the directory of the scripts,
// sub (lsp, mcpts), with their packages installed (npm ci in sub/), pkgs
// among them. When either is missing the test skips, saying why, or fails
// under JSONRPC_INTEROP=required.
func needNode(t *testing.T, sub string, pkgs ...string) (node, dir string) {
	t.Helper()
	missing := func(why string) {
		if os.Getenv("JSONRPC_INTEROP") == "required" {
			t.Fatal(why + " (JSONRPC_INTEROP=required)")
		}
		t.Skip(why + "; set JSONRPC_INTEROP=required to make this a failure")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		missing("no node command: " + err.Error())
	}
	dir, err = filepath.Abs(sub)
	if err != nil {
		t.Fatal(err)
	}
	for _, pkg := range pkgs {
		if _, err := os.Stat(filepath.Join(dir, "node_modules", pkg, "package.json")); err != nil {
			missing(pkg + " is not installed: run npm ci in interop/" + sub)
		}
	}
	return node, dir
}

// TestVSCodeJSONRPC runs lsp/client.js, which drives examples/langserver
// with Node's vscode-jsonrpc as an editor does, and checks what each step
// printed.
func TestVSCodeJSONRPC(t *testing.T) {
	node, dir := needNode(t, "lsp", "vscode-jsonrpc")
	bin := buildExample(t, "langserver")

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join(dir, "client.js"), bin)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	t.Logf("node client.js:\n%s%s", out, stderr.Bytes())
	if err != nil {
		t.Fatalf("node client.js: %v", err)
	}

	steps := map[string][]json.RawMessage{}
	var order []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		var s struct{ Step string }
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			t.Fatalf("a line that is not JSON: %s", sc.Bytes())
		}
		steps[s.Step] = append(steps[s.Step], append(json.RawMessage(nil), sc.Bytes()...))
		order = append(order, s.Step)
	}
	want := []string{"initialize", "hover", "hover", "symbols", "progress", "cancel", "shutdown", "exit"}
	if !slices.Equal(order, want) {
		t.Fatalf("steps %v, want %v", order, want)
	}

	var init struct {
		Result struct {
			Capabilities struct {
				HoverProvider          bool
				ExecuteCommandProvider struct{ Commands []string }
			}
			ServerInfo struct{ Name string }
		}
	}
	json.Unmarshal(steps["initialize"][0], &init)
	if !init.Result.Capabilities.HoverProvider || !slices.Equal(init.Result.Capabilities.ExecuteCommandProvider.Commands, []string{"wait"}) || init.Result.ServerInfo.Name != "langserver" {
		t.Errorf("initialize: %s", steps["initialize"][0])
	}

	for i, w := range []struct {
		word       string
		start, end int
	}{{"größe", 4, 9}, {"日本語", 18, 21}} {
		var h struct {
			Result struct {
				Contents struct{ Value string }
				Range    struct{ Start, End struct{ Character int } }
			}
		}
		json.Unmarshal(steps["hover"][i], &h)
		if h.Result.Contents.Value != w.word || h.Result.Range.Start.Character != w.start || h.Result.Range.End.Character != w.end {
			t.Errorf("hover: %s, want %q at %d-%d", steps["hover"][i], w.word, w.start, w.end)
		}
	}

	if got, want := string(steps["symbols"][0]), `{"step":"symbols","result":[],"partial":["let@0","größe@4"]}`; got != want {
		t.Errorf("workspace/symbol with partial results: %s, want %s", got, want)
	}

	var p struct {
		Result struct{ Waited float64 }
		Kinds  []string
	}
	json.Unmarshal(steps["progress"][0], &p)
	if p.Result.Waited != 300 || len(p.Kinds) < 4 || p.Kinds[0] != "begin" || p.Kinds[len(p.Kinds)-1] != "end" ||
		strings.Count(strings.Join(p.Kinds, " "), "report") < 2 {
		t.Errorf("progress: %s, want begin, at least 2 reports, end", steps["progress"][0])
	}

	var c struct {
		Code int
		MS   float64
	}
	json.Unmarshal(steps["cancel"][0], &c)
	if c.Code != -32800 || c.MS > 2000 {
		t.Errorf("cancel: %s, want the error -32800 well before the 5 s wait's end", steps["cancel"][0])
	}

	if string(steps["shutdown"][0]) != `{"step":"shutdown","result":null}` {
		t.Errorf("shutdown: %s, want null", steps["shutdown"][0])
	}
	if string(steps["exit"][0]) != `{"step":"exit","code":0,"signal":null}` {
		t.Errorf("exit: %s, want status 0", steps["exit"][0])
	}
}
