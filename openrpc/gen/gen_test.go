package gen_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/jsonrpc-go/jsonrpc/openrpc/gen"
)

// fixtures are the packages generated from the documents of testdata, with
// the configs of their go:generate lines.
var fixtures = []struct {
	dir, doc string
	cfg      gen.Config
}{
	{"internal/demorpc", "testdata/demo.json", gen.Config{Package: "demorpc", Source: "demo.json"}},
	{"internal/ethrpc", "testdata/execution-apis/refs-openrpc.json", gen.Config{
		Package: "ethrpc",
		Source:  "refs-openrpc.json",
		Types: map[string]string{
			"uint":    hexutil + ".Big",
			"uint256": hexutil + ".Big",
			"uint64":  hexutil + ".Uint64",
		},
	}},
}

const hexutil = "github.com/jsonrpc-go/jsonrpc/openrpc/gen/internal/hexutil"

// TestFixturesAreCurrent regenerates the packages of internal/ and
// compares them byte for byte with what is checked in.
func TestFixturesAreCurrent(t *testing.T) {
	for _, f := range fixtures {
		t.Run(f.dir, func(t *testing.T) {
			doc, err := os.ReadFile(f.doc)
			if err != nil {
				t.Fatal(err)
			}
			files, err := gen.Generate(doc, f.cfg)
			if err != nil {
				t.Fatal(err)
			}
			for _, file := range files {
				have, err := os.ReadFile(filepath.Join(f.dir, file.Name))
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(have, file.Data) {
					t.Errorf("%s/%s is not what the generator writes now: run go generate ./openrpc/gen/...", f.dir, file.Name)
				}
			}
			again, err := gen.Generate(doc, f.cfg)
			if err != nil {
				t.Fatal(err)
			}
			for i := range files {
				if !bytes.Equal(files[i].Data, again[i].Data) {
					t.Errorf("two runs wrote two versions of %s", files[i].Name)
				}
			}
		})
	}
}
