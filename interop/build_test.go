package interop

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// buildExample builds the example command name (examples/name of the
// library) into a temporary directory and returns the binary's path.
func buildExample(t *testing.T, name string) string {
	t.Helper()
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goTool); err != nil {
		if goTool, err = exec.LookPath("go"); err != nil {
			t.Fatal("no go command to build with:", err)
		}
	}
	bin := filepath.Join(t.TempDir(), name)
	out, err := exec.Command(goTool, "build", "-o", bin, "github.com/jsonrpc-go/jsonrpc/examples/"+name).CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}
