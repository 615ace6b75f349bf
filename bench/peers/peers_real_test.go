package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jsonrpc-go/jsonrpc/bench/internal/realistic"
)

// TestRealMain runs -workload real briefly: every peer answers every method
// as this library does (setupReal checks the first window of each row), and
// the table and the JSON have a row for each.
func TestRealMain(t *testing.T) {
	file := filepath.Join(t.TempDir(), "real.json")
	var out, errb bytes.Buffer
	if code := run([]string{"-workload", "real", "-d", "20ms", "-runs", "1", "-json", file}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var rep Report
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if want := len(realPeers) * len(realistic.Methods); rep.Mode != "peers-real" || len(rep.Rows) != want {
		t.Fatalf("mode %q, %d rows, want peers-real and %d", rep.Mode, len(rep.Rows), want)
	}
	for _, r := range rep.Rows {
		want := "JSON-RPC 2.0"
		if r.Peer == realFloor {
			want = "none (floor)"
		}
		if r.MedianRPS <= 0 || r.RatioToRef <= 0 || r.Protocol != want {
			t.Errorf("row %+v", r)
		}
	}
	// The floor answers every method as the servers do (setupReal checked
	// its first windows) and bounds the ratios over each row.
	if !strings.Contains(out.String(), "the floor over it") {
		t.Errorf("table lacks the floor's column:\n%s", out.String())
	}
	for _, p := range realPeers {
		for _, m := range realistic.Methods {
			if !strings.Contains(out.String(), m.Name+"  ") || !strings.Contains(out.String(), p.name) {
				t.Errorf("table lacks %s %s:\n%s", m.Name, p.name, out.String())
			}
		}
	}
	if code := run([]string{"-workload", "nope"}, &out, &errb); code != 2 {
		t.Errorf("-workload nope: exit %d, want 2", code)
	}
}
