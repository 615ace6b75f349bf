package main

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestTwoway(t *testing.T) {
	path := filepath.Join(t.TempDir(), "twoway.json")
	args := []string{"twoway", "-d", "50ms", "-runs", "1", "-callers", "4", "-subs", "3", "-json", path}
	code, out, errOut := runCmd(t, args...)
	if code != 0 {
		t.Fatalf("rpcbench %q: status %d, stderr:\n%s", args, code, errOut)
	}
	rep, _ := readReport(t, path)
	var got []string
	for _, r := range rep.Rows {
		got = append(got, r.Name)
		if r.MedianRPS <= 0 || r.LatencySamples == 0 || r.Note == "" {
			t.Errorf("row %s: %.0f/s, %d latency samples, note %q", r.Name, r.MedianRPS, r.LatencySamples, r.Note)
		}
	}
	if want := []string{"call", "callback", "cancel", "push-1", "push-3"}; !slices.Equal(got, want) {
		t.Fatalf("rows %v, want %v", got, want)
	}
	if !strings.Contains(out, "callback/call: ") {
		t.Errorf("no ratio in the output:\n%s", out)
	}
}
