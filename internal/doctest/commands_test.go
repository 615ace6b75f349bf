package doctest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// commandRuns says where each command of the documents' sh blocks runs, so
// that a command added to a document runs somewhere before the test passes.
// The blocks of "$ " sessions of docs/HOSTING.md are not listed: the test
// of cmd/jsonrpcd TestHostingCommands runs each of them as written (those
// of cmd/openrpc-gen aside, which its own tests run), and fails on a block
// it cannot run.
var commandRuns = map[string]string{
	// README.md, Install: on a fresh clone, with the first quick start.
	"git clone https://github.com/jsonrpc-go/jsonrpc.git":           ".ci/readme-clone",
	"mkdir hello && cd hello":                                       ".ci/readme-clone",
	"go mod init example.com/hello":                                 ".ci/readme-clone",
	"go mod edit -replace github.com/jsonrpc-go/jsonrpc=../jsonrpc": ".ci/readme-clone",
	"go mod tidy": ".ci/readme-clone; TestQuickStarts",
	"go run .":    ".ci/readme-clone (built, then run)",
	// README.md, On a fresh clone.
	"go run ./cmd/jsonrpcd":                 `.ci/run, "commands of the README and the guides"`,
	"go test -race ./...":                   ".ci/run, in every module (it reads the command from the README)",
	"go test ./internal/doctest . ./client": ".ci/run's module loop runs these packages, with -race",
	// README.md, Performance.
	"go run ./bench/rpcbench":    ".ci/run, timed: under a minute",
	"cd bench/peers && go run .": ".ci/run, briefly (-d 100ms -runs 1)",
	// docs/PERFORMANCE.md.
	"go run ./bench/rpcbench real -d 1s -runs 5":           ".ci/run, briefly (-d 100ms -runs 1)",
	"cd bench/peers && go run . -workload real -d 1s":      ".ci/run, briefly (-d 100ms -runs 1)",
	"cd bench/peers && go run . -workload process -runs 5": ".ci/run, briefly (-d 200ms -runs 1)",
	"go run ./bench/rpcbench wasm -d 2s -runs 5":           ".ci/run, briefly (-d 200ms -runs 1)",
	"go run ./docs/explorer/wasm/serve":                    ".ci/run: its page, app.wasm and /rpc",
	"go run ./bench/rpcbench dotnet -d 3s -runs 3":         ".ci/run, briefly (-d 100ms -runs 1): its tables' lines",
}

// docCommands returns the commands of the sh blocks of a document: each
// line of a block of commands, its comment dropped, or each "$ " line of a
// session (with the lines its backslashes join), its output left out.
func docCommands(doc string, text []byte) (cmds []string, sessions bool, err error) {
	bs, err := blocks(doc, text)
	if err != nil {
		return nil, false, err
	}
	for _, b := range bs {
		if b.info != "sh" {
			continue
		}
		lines := strings.Split(strings.TrimSuffix(b.code, "\n"), "\n")
		if strings.HasPrefix(lines[0], "$ ") {
			sessions = true
			continue
		}
		for _, l := range lines {
			if i := strings.Index(l, "#"); i >= 0 {
				l = l[:i]
			}
			if l = strings.Join(strings.Fields(l), " "); l != "" {
				cmds = append(cmds, l)
			}
		}
	}
	return cmds, sessions, nil
}

// TestCommandsRun: every command of the documents is one commandRuns
// lists, and every one it lists is still in a document.
func TestCommandsRun(t *testing.T) {
	dir := root(t)
	seen := map[string]bool{}
	for _, doc := range snippetDocs(t, dir) {
		text, err := os.ReadFile(filepath.Join(dir, doc))
		if err != nil {
			t.Fatal(err)
		}
		cmds, sessions, err := docCommands(doc, text)
		if err != nil {
			t.Fatal(err)
		}
		if sessions && doc != "docs/HOSTING.md" && doc != "docs/PROTOCOLS.md" {
			// docs/HOSTING.md's sessions run in cmd/jsonrpcd's
			// TestHostingCommands, docs/PROTOCOLS.md's (the ACP quick
			// start) in .ci/run, as written.
			t.Errorf("%s: a block of \"$ \" commands, which only docs/HOSTING.md's test and .ci/run's run of docs/PROTOCOLS.md's ACP quick start run", doc)
		}
		for _, c := range cmds {
			seen[c] = true
			if _, ok := commandRuns[c]; !ok {
				t.Errorf("%s: the command %q runs nowhere: run it in a test or in .ci/run, and list it in commandRuns", doc, c)
			}
		}
	}
	for c := range commandRuns {
		if !seen[c] {
			t.Errorf("commandRuns lists %q, which no document shows any more", c)
		}
	}
}
