package jsonrpc_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/jsonrpc-go/jsonrpc/internal/testutil"
)

// The build tag jsonrpc_noadapters leaves the generated adapters out: the
// smallest program is at least 1.5 MB smaller and still answers.
func TestNoAdaptersTag(t *testing.T) {
	testutil.SkipOnWasm(t, "runs the go command, and a WebAssembly program cannot start a process")
	if testing.Short() {
		t.Skip("builds examples/minimal twice")
	}
	t.Parallel()
	goTool, err := exec.LookPath("go")
	if err != nil {
		goTool = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	dir := t.TempDir()
	size := func(name string, tags ...string) int64 {
		out := filepath.Join(dir, name)
		args := append([]string{"build", "-ldflags=-s -w", "-o", out}, tags...)
		if b, err := exec.Command(goTool, append(args, "./examples/minimal")...).CombinedOutput(); err != nil {
			t.Fatalf("go build %s: %v\n%s", name, err, b)
		}
		fi, err := os.Stat(out)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	with, without := size("with"), size("without", "-tags=jsonrpc_noadapters")
	t.Logf("examples/minimal, stripped: %d bytes with the adapters, %d without", with, without)
	if with-without < 1500<<10 {
		t.Errorf("the tag saves %d bytes, want at least 1.5 MB", with-without)
	}
	cmd := exec.Command(filepath.Join(dir, "without"))
	cmd.Stdin = strings.NewReader(`{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}` + "\n")
	out, err := cmd.Output()
	if want := `{"jsonrpc":"2.0","result":3,"id":1}` + "\n"; err != nil || string(out) != want {
		t.Errorf("examples/minimal built with the tag answered %q, %v; want %q", out, err, want)
	}
}
