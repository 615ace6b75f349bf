package wire

import "bytes"

// UnescapeHTML rewrites in place the escapes \u003c, \u003e and \u0026,
// which encoding/json writes for <, > and & in strings, as the characters
// themselves, and returns b shortened, so that what the server encodes
// with encoding/json reads as what it encodes itself (AppendQuote escapes
// no HTML character). Every backslash of JSON text begins an escape, so an
// escaped backslash followed by "u003c" is left as it is.
func UnescapeHTML(b []byte) []byte {
	if !bytes.Contains(b, []byte(`\u00`)) {
		return b
	}
	i := bytes.IndexByte(b, '\\')
	w := i
	for i < len(b) {
		// b[i] is a backslash.
		if i+5 < len(b) && b[i+1] == 'u' && b[i+2] == '0' && b[i+3] == '0' {
			var c byte
			switch string(b[i+4 : i+6]) {
			case "3c":
				c = '<'
			case "3e":
				c = '>'
			case "26":
				c = '&'
			}
			if c != 0 {
				b[w] = c
				w++
				i += 6
				goto next
			}
		}
		// Another escape: the backslash and the byte after it.
		b[w], b[w+1] = b[i], b[i+1]
		w += 2
		i += 2
	next:
		j := bytes.IndexByte(b[i:], '\\')
		if j < 0 {
			j = len(b) - i
		}
		w += copy(b[w:], b[i:i+j])
		i += j
	}
	return b[:w]
}
