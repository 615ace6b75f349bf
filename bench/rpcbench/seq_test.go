package main

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestSeq(t *testing.T) {
	path := filepath.Join(t.TempDir(), "seq.json")
	args := []string{"seq", "-d", "50ms", "-runs", "1", "-json", path}
	code, out, errOut := runCmd(t, args...)
	if code != 0 {
		t.Fatalf("rpcbench %q: status %d, stderr:\n%s", args, code, errOut)
	}
	rep, _ := readReport(t, path)
	var got []string
	for _, r := range rep.Rows {
		got = append(got, r.Name)
		if r.MedianRPS <= 0 || r.AllocsPerCall <= 0 || r.Note == "" {
			t.Errorf("row %s: %.0f/s, %.2f allocs, note %q", r.Name, r.MedianRPS, r.AllocsPerCall, r.Note)
		}
	}
	if want := []string{"seq-64", "seq-64-ahead", "seq-1", "notify"}; !slices.Equal(got, want) {
		t.Fatalf("rows %v, want %v", got, want)
	}
	if !strings.Contains(out, "seq-64/notify: ") {
		t.Errorf("no ratio in the output:\n%s", out)
	}
}
