package testutil

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// Build builds the command pkg (an import path, or "." for the package
// under test) into a temporary directory of t as name and returns the
// binary's path, with the go command of the running toolchain. It skips t
// under WebAssembly, which cannot start processes.
func Build(t testing.TB, pkg, name string) string {
	t.Helper()
	SkipOnWasm(t, "builds and starts a command as a process, which WebAssembly cannot")
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goTool); err != nil {
		if goTool, err = exec.LookPath("go"); err != nil {
			t.Fatal("no go command to build with:", err)
		}
	}
	bin := filepath.Join(t.TempDir(), name)
	out, err := exec.Command(goTool, "build", "-o", bin, pkg).CombinedOutput()
	if err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, out)
	}
	return bin
}
