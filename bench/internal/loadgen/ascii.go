package loadgen

// Copies of two helpers of the library's internal/wire, which this module
// cannot import.

// equalFoldASCII reports whether b equals s, ignoring the case of ASCII
// letters, as HTTP header names compare.
func equalFoldASCII(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := range len(b) {
		x, y := b[i], s[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// parseUint parses v, a run of decimal digits and nothing else, as an
// unsigned integer of the given bit size (at most 63).
func parseUint(v []byte, bits int) (uint64, bool) {
	if len(v) == 0 || len(v) > 19 {
		return 0, false
	}
	var u uint64
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, false
		}
		u = u*10 + uint64(c-'0')
	}
	if u >= 1<<bits {
		return 0, false
	}
	return u, true
}
