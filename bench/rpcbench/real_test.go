package main

import (
	"path/filepath"
	"regexp"
	"testing"
)

func TestReal(t *testing.T) {
	path := filepath.Join(t.TempDir(), "real.json")
	args := []string{"real", "-d", "20ms", "-runs", "1", "-json", path}
	code, out, errOut := runCmd(t, args...)
	if code != 0 {
		t.Fatalf("rpcbench %q: status %d, stderr:\n%s", args, code, errOut)
	}
	rep, _ := readReport(t, path)
	if len(rep.Rows) != 24 {
		t.Errorf("%d rows, want 24 (4 methods, Register, Typed and floor, 2 codecs)", len(rep.Rows))
	}
	for _, r := range rep.Rows {
		if r.MedianRPS <= 0 {
			t.Errorf("row %s: %.0f calls/s", r.Name, r.MedianRPS)
		}
	}
	for _, m := range []string{"createUser", "search", "getBlock", "echoRaw"} {
		for _, c := range []string{"json", "fast"} {
			if !regexp.MustCompile(`(?m)^ *` + m + ` +` + c + ` `).MatchString(out) {
				t.Errorf("no %s row for %s in the output:\n%s", c, m, out)
			}
		}
	}
}
