package wire

import "testing"

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
