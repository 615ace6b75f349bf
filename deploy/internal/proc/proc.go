// Package proc builds, places, starts and stops the processes the tests
// of the deploy recipes start: cmd/jsonrpcd, built once per test binary,
// free loopback addresses for them, and each process with its output.
package proc

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

var jsonrpcd struct {
	once sync.Once
	path string
	err  error
}

// Jsonrpcd builds cmd/jsonrpcd once, by package path, so that it is found
// in the workspace wherever its module is, and returns the binary's path.
func Jsonrpcd(t testing.TB) string {
	t.Helper()
	jsonrpcd.once.Do(func() {
		dir, err := os.MkdirTemp("", "jsonrpcd")
		if err != nil {
			jsonrpcd.err = err
			return
		}
		jsonrpcd.path = filepath.Join(dir, "jsonrpcd")
		out, err := exec.Command("go", "build", "-o", jsonrpcd.path, "github.com/jsonrpc-go/jsonrpc/cmd/jsonrpcd").CombinedOutput()
		if err != nil {
			jsonrpcd.err = fmt.Errorf("go build cmd/jsonrpcd: %v\n%s", err, out)
		}
	})
	if jsonrpcd.err != nil {
		t.Fatal(jsonrpcd.err)
	}
	return jsonrpcd.path
}

// Main runs the tests of m and removes what Jsonrpcd built; a package's
// TestMain calls it.
func Main(m *testing.M) {
	code := m.Run()
	if jsonrpcd.path != "" {
		os.RemoveAll(filepath.Dir(jsonrpcd.path))
	}
	os.Exit(code)
}

// FreeAddr returns a loopback address with a port that was free a moment
// ago.
func FreeAddr(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}
