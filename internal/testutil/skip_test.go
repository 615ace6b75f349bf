package testutil

import (
	"runtime"
	"testing"
)

// TestSkipOn checks that each helper skips exactly on its ports and runs the
// test everywhere else.
func TestSkipOn(t *testing.T) {
	for _, tt := range []struct {
		name  string
		skip  func(testing.TB, string)
		ports []string
	}{
		{"SkipOnJS", SkipOnJS, []string{"js"}},
		{"SkipOnWasm", SkipOnWasm, []string{"js", "wasip1"}},
	} {
		want := false
		for _, p := range tt.ports {
			want = want || runtime.GOOS == p
		}
		ran := false
		t.Run(tt.name, func(t *testing.T) {
			tt.skip(t, "the reason")
			ran = true
		})
		if ran == want {
			t.Errorf("%s on %s: the test ran: %v, want %v", tt.name, runtime.GOOS, ran, !want)
		}
	}
}
