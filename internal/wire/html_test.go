package wire

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestUnescapeHTML: encoding/json's output, unescaped, is what AppendQuote
// writes for the same string, and decodes to the same string, for strings
// with HTML characters, escaped backslashes before "u003c", control
// characters and U+2028.
func TestUnescapeHTML(t *testing.T) {
	for _, s := range []string{
		"", "plain", "<b>&amp;</b>", `\u003c`, `\\u003c`, "\\<", "a\x00<\x1f>&\u2028\u2029\"\\/",
		strings.Repeat("<&>", 100), "日本語<x>", `"\u0026"`,
	} {
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		got := string(UnescapeHTML(b))
		if want := string(AppendQuote(nil, s)); got != want {
			t.Errorf("%q:\n got %s\nwant %s", s, got, want)
		}
		var back string
		if err := json.Unmarshal([]byte(got), &back); err != nil || back != s {
			t.Errorf("%q: %s decodes to %q, %v", s, got, back, err)
		}
	}
}

func FuzzUnescapeHTML(f *testing.F) {
	for _, s := range []string{"<b>&", `\u003c`, `\\u003c`, "x\x01<"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			return
		}
		v := map[string]any{"k<": s, "a": []string{s, "&"}}
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		u := UnescapeHTML(b)
		var back map[string]any
		if err := json.Unmarshal(u, &back); err != nil {
			t.Fatalf("%s: %v", u, err)
		}
		if back["k<"] != s {
			t.Fatalf("%s decodes to %q, want %q", u, back["k<"], s)
		}
		for _, c := range []string{`\u003c`, `\u003e`, `\u0026`} {
			if strings.Contains(strings.ReplaceAll(string(u), `\\`, ""), c) {
				t.Fatalf("%s still holds %s", u, c)
			}
		}
	})
}
