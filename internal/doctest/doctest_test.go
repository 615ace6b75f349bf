// Package doctest checks the documents of the repository as a reader uses
// them: every Go snippet of README.md and docs/*.md compiles
// (TestSnippets), and the README's quick starts, written out as a user
// writes them, build, run and answer (TestQuickStart*).
package doctest

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/jsonrpc-go/jsonrpc/internal/testutil"
)

// repoRoot is the repository's root, seen from this package's directory.
const repoRoot = "../.."

// goTool returns the go command of the running toolchain, or skips t when
// there is none (a test binary copied to a machine without Go) or when the
// port cannot start processes.
func goTool(t *testing.T) string {
	t.Helper()
	testutil.SkipOnWasm(t, "runs the go command, and a WebAssembly program cannot start a process")
	tool := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(tool); err == nil {
		return tool
	}
	tool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command:", err)
	}
	return tool
}

// root returns the repository's root as an absolute path.
func root(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "go.work")); err != nil {
		t.Fatalf("%s is not the repository's root: %v", dir, err)
	}
	return dir
}

// goCmd is the go command with args, run in dir, with env added to the
// test's environment.
func goCmd(t *testing.T, dir string, env []string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(goTool(t), args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	return cmd
}

// run runs cmd and fails t with its output when it fails.
func run(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(cmd.Args, " "), err, out)
	}
}
