package wire

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// BenchmarkNextMember walks the members of a typical params object, each
// value skipped as valid.
func BenchmarkNextMember(b *testing.B) {
	obj := []byte(`{"name":"Ada Lovelace","email":"ada.lovelace@engines.example.org","age":36,"admin":false,` +
		`"tags":["mathematics","analytical-engine","poetry","notes","computing-history"],` +
		`"address":{"street":"12 St James's Square","city":"London","country":"United Kingdom","postcode":"SW1Y 4JH"},` +
		`"created":"1843-07-10T09:30:00Z","bio":"Augusta Ada King, Countess of Lovelace, was an English mathematician and writer, chiefly known for her work on the Analytical Engine \"notes\"."}`)
	b.SetBytes(int64(len(obj)))
	for b.Loop() {
		n := 0
		for _, _, _, pos, ok := NextMember(obj, 0); ok; _, _, _, pos, ok = NextMember(obj, pos) {
			n++
		}
		if n != 8 {
			b.Fatal(n)
		}
	}
}

// BenchmarkScanRequestStrings validates a request whose params are mostly
// strings, as the scanner does every request.
func BenchmarkScanRequestStrings(b *testing.B) {
	req := []byte(`{"jsonrpc":"2.0","method":"createUser","params":{"name":"Ada Lovelace","email":"ada.lovelace@engines.example.org","age":36,"admin":false,` +
		`"tags":["mathematics","analytical-engine","poetry","notes","computing-history"],` +
		`"address":{"street":"12 St James's Square","city":"London","country":"United Kingdom","postcode":"SW1Y 4JH"},` +
		`"created":"1843-07-10T09:30:00Z"},"id":7}`)
	b.SetBytes(int64(len(req)))
	var sc Scanner
	for b.Loop() {
		var r Request
		if _, err := sc.ScanRequest(req, &r); err != nil {
			b.Fatal(err)
		}
	}
}

// TestSkipString checks skipString against the validating scanString on
// strings of every length up to 80 bytes, with a quote, a backslash or
// both at every position, so that each lands at every offset of the words
// skipString reads eight bytes at a time and past its switch to
// bytes.IndexByte.
func TestSkipString(t *testing.T) {
	for n := range 80 {
		body := make([]byte, n)
		for i := range body {
			body[i] = 'a' + byte(i%26)
		}
		variants := [][]byte{body}
		for at := range n {
			for _, esc := range []string{`\"`, `\\`, `\n`, `\u00e9`} {
				if at+len(esc) <= n {
					v := append([]byte(nil), body...)
					copy(v[at:], esc)
					variants = append(variants, v)
				}
			}
		}
		for _, v := range variants {
			doc := append(append([]byte(`"`), v...), `",1]`...)
			want, wantEsc, err := scanString(doc, 0)
			if err != nil {
				t.Fatalf("%q: %v", doc, err)
			}
			if end, esc := skipString(doc, 0); end != want || esc != wantEsc {
				t.Fatalf("skipString(%q) = %d, %v; scanString: %d, %v", doc, end, esc, want, wantEsc)
			}
		}
	}
}

// TestHasBackslash checks hasBackslash at every position of strings up to
// 40 bytes, in and out of the words it reads eight bytes at a time.
func TestHasBackslash(t *testing.T) {
	for n := range 40 {
		b := make([]byte, n)
		for i := range b {
			b[i] = 0x5b + byte(i%3) // '[', '\\' minus one, and ']' around it
			if b[i] == '\\' {
				b[i] = 0xdc // the backslash with its high bit set
			}
		}
		if hasBackslash(b) {
			t.Fatalf("hasBackslash(%q) = true", b)
		}
		for at := range n {
			c := append([]byte(nil), b...)
			c[at] = '\\'
			if !hasBackslash(c) {
				t.Fatalf("hasBackslash(%q) = false", c)
			}
		}
	}
}

// BenchmarkAppendQuote quotes the strings of a search result: titles,
// addresses and snippets of 14 to 30 bytes, plain ASCII as most are.
func BenchmarkAppendQuote(b *testing.B) {
	strs := []string{"JSON-RPC in practice, part 12", "https://example.com/a/12", "Any transport.", "ada.lovelace@engines.example.org"}
	n := 0
	for _, s := range strs {
		n += len(s)
	}
	b.SetBytes(int64(n))
	buf := make([]byte, 0, 256)
	for b.Loop() {
		buf = buf[:0]
		for _, s := range strs {
			buf = AppendQuote(buf, s)
		}
	}
}

// TestAppendQuoteEveryOffset quotes strings of up to 40 bytes with a byte
// that needs care (a quote, a backslash, a control character, a multi-byte
// or invalid UTF-8 sequence, U+2028) at every offset, in and out of the
// words AppendQuote reads eight bytes at a time, and compares each with
// encoding/json's quoting without HTML escapes (U+FFFD written escaped, as
// Go 1.26's encoding/json writes it).
func TestAppendQuoteEveryOffset(t *testing.T) {
	for n := range 40 {
		for _, special := range []string{`"`, `\`, "\n", "\x00", "\x1f", "\x7f", "é", "😀", "\xff", "\xe2\x80\xa8", "<"} {
			for at := 0; at+len(special) <= n; at++ {
				s := strings.Repeat("a", at) + special + strings.Repeat("z", n-at-len(special))
				var want bytes.Buffer
				e := json.NewEncoder(&want)
				e.SetEscapeHTML(false)
				e.Encode(s)
				w := strings.ReplaceAll(strings.TrimSuffix(want.String(), "\n"), "\ufffd", `\ufffd`)
				if got := string(AppendQuote(nil, s)); got != w {
					t.Fatalf("AppendQuote(%q) = %s, encoding/json: %s", s, got, w)
				}
				if got := string(AppendQuote(nil, []byte(s))); got != w {
					t.Fatalf("AppendQuote([]byte(%q)) = %s, encoding/json: %s", s, got, w)
				}
			}
		}
	}
}
