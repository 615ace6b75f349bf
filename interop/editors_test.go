package interop

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// needCommand returns the path of the command name, or skips the test
// (fails it under JSONRPC_INTEROP=required) when it is not installed or
// check, run with it, fails.
func needCommand(t *testing.T, name string, check ...string) string {
	t.Helper()
	missing := func(why string) {
		if os.Getenv("JSONRPC_INTEROP") == "required" {
			t.Fatal(why + " (JSONRPC_INTEROP=required)")
		}
		t.Skip(why + "; set JSONRPC_INTEROP=required to make this a failure")
	}
	path, err := exec.LookPath(name)
	if err != nil {
		missing("no " + name + " command: " + err.Error())
	}
	if len(check) > 0 {
		if out, err := exec.Command(path, check...).CombinedOutput(); err != nil {
			missing(name + " " + strings.Join(check, " ") + ": " + err.Error() + ": " + string(out))
		}
	}
	return path
}

// runEditor runs an editor's script against examples/langserver on a
// document of its own, and returns what it printed.
func runEditor(t *testing.T, name string, args func(server, doc string) []string) string {
	t.Helper()
	bin := buildExample(t, "langserver")
	doc := filepath.Join(t.TempDir(), "doc.txt")
	if err := os.WriteFile(doc, []byte("hello world\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args(bin, doc)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	t.Logf("%s:\n%s", filepath.Base(name), out)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	return string(out)
}

// TestEglot drives examples/langserver with Emacs's own LSP client,
// Eglot (Debian's elpa-eglot on Emacs 28), in batch mode: it connects
// (initialize, initialized), asks for a hover, and shuts the server down
// as Eglot does, shutdown and exit with "params": null, after which the
// server exits on its own with status 0. (Before null params were taken
// as none, shutdown failed with -32600 and the server never exited: Eglot
// then kills it.)
func TestEglot(t *testing.T) {
	emacs := needCommand(t, "emacs", "--batch", "--eval", "(require 'eglot)")
	script, err := filepath.Abs(filepath.Join("editors", "eglot.el"))
	if err != nil {
		t.Fatal(err)
	}
	out := runEditor(t, emacs, func(server, doc string) []string {
		return []string{"--batch", "-l", script, server, doc}
	})
	if want := "connected\nhover: hello\nshutdown: ok\nexit: exit 0\n"; out != want {
		t.Errorf("Eglot printed\n%s\nwant\n%s", out, want)
	}
}

// TestNeovim drives examples/langserver with Neovim's built-in LSP client
// (Debian's neovim): initialize, a hover, a long command cancelled with
// $/cancelRequest and a hover after it, and the client's stop (shutdown,
// exit), after which the server exits with status 0.
func TestNeovim(t *testing.T) {
	nvim := needCommand(t, "nvim", "--headless", "-u", "NONE", "-c", "lua if not vim.lsp.start_client then os.exit(1) end", "-c", "qall!")
	script, err := filepath.Abs(filepath.Join("editors", "nvim.lua"))
	if err != nil {
		t.Fatal(err)
	}
	out := runEditor(t, nvim, func(server, doc string) []string {
		return []string{"--headless", "-u", "NONE", "-i", "NONE", "-c", "luafile " + script, server, doc}
	})
	if want := "initialized\nhover: hello\ncancelled, then hover: world\nexit: 0 signal 0\n"; out != want {
		t.Errorf("Neovim printed\n%s\nwant\n%s", out, want)
	}
}
