package interop

import (
	"testing"

	"github.com/jsonrpc-go/jsonrpc/internal/testutil"
)

// buildExample builds the example command name (examples/name of the
// library) into a temporary directory and returns the binary's path.
func buildExample(t *testing.T, name string) string {
	t.Helper()
	return testutil.Build(t, "github.com/jsonrpc-go/jsonrpc/examples/"+name, name)
}

// buildJsonrpcd builds cmd/jsonrpcd, a module of its own that the
// workspace (go.work) holds, into a temporary directory and returns the
// binary's path.
func buildJsonrpcd(t *testing.T) string {
	t.Helper()
	return testutil.Build(t, "github.com/jsonrpc-go/jsonrpc/cmd/jsonrpcd", "jsonrpcd")
}
