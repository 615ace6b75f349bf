package wire

import (
	"encoding/binary"
	"math"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// The value helpers take one valid JSON value (a span returned by the
// scanner) and report ok == false when it is of the wrong kind or out of
// range for the Go type asked for.

// ParseBool parses a JSON true or false.
func ParseBool(v []byte) (b, ok bool) {
	switch string(v) {
	case "true":
		return true, true
	case "false":
		return false, true
	}
	return false, false
}

// ParseInt parses a JSON number without fraction or exponent into an integer
// of the given bit size.
func ParseInt(v []byte, bits int) (int64, bool) {
	neg := len(v) > 0 && v[0] == '-'
	u, ok := parseDigits(v[b2i(neg):])
	if !ok {
		return 0, false
	}
	limit := uint64(1) << (bits - 1)
	if neg {
		if u > limit {
			return 0, false
		}
		return -int64(u), true
	}
	if u >= limit {
		return 0, false
	}
	return int64(u), true
}

// ParseUint parses a non-negative JSON integer of the given bit size.
func ParseUint(v []byte, bits int) (uint64, bool) {
	u, ok := parseDigits(v)
	if !ok || (bits < 64 && u >= 1<<bits) {
		return 0, false
	}
	return u, true
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// parseDigits parses a run of decimal digits that is the whole of v.
func parseDigits(v []byte) (uint64, bool) {
	if len(v) == 0 || len(v) > 20 {
		return 0, false
	}
	var u uint64
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, false
		}
		d := uint64(c - '0')
		if u > (math.MaxUint64-d)/10 {
			return 0, false
		}
		u = u*10 + d
	}
	return u, true
}

// ParseFloat parses a JSON number into a float of the given bit size. Values
// that overflow the type are rejected.
func ParseFloat(v []byte, bits int) (float64, bool) {
	if len(v) == 0 || !(v[0] == '-' || isDigit(v[0])) {
		return 0, false
	}
	if bits == 64 {
		if f, ok := parseFloatExact(v); ok {
			return f, true
		}
	}
	f, err := strconv.ParseFloat(unsafe.String(unsafe.SliceData(v), len(v)), bits)
	if err != nil {
		return 0, false
	}
	return f, true
}

// float64pow10 holds the powers of ten that float64 represents exactly.
var float64pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// parseFloatExact parses numbers without exponent whose digits fit in 15
// decimal places. Their mantissa and the power of ten are exact in float64,
// so one correctly rounded division gives the correctly rounded result.
func parseFloatExact(v []byte) (float64, bool) {
	i := 0
	neg := v[0] == '-'
	if neg {
		i++
	}
	var mant uint64
	digits, frac := 0, 0
	for ; i < len(v) && isDigit(v[i]); i++ {
		mant = mant*10 + uint64(v[i]-'0')
		digits++
	}
	if i < len(v) && v[i] == '.' {
		for i++; i < len(v) && isDigit(v[i]); i++ {
			mant = mant*10 + uint64(v[i]-'0')
			digits++
			frac++
		}
	}
	if i != len(v) || digits > 15 {
		return 0, false
	}
	f := float64(mant) / float64pow10[frac]
	if neg {
		f = -f
	}
	return f, true
}

// Unquote returns the contents of the JSON string v. When v holds no escapes
// the result aliases v when borrow is true and is a copy otherwise; escaped
// strings are always decoded into new memory. Invalid surrogate escapes
// decode to U+FFFD, as encoding/json does.
func Unquote(v []byte, borrow bool) (string, bool) {
	if len(v) < 2 || v[0] != '"' {
		return "", false
	}
	in := v[1 : len(v)-1]
	if !hasBackslash(in) {
		if borrow {
			return unsafe.String(unsafe.SliceData(in), len(in)), true
		}
		return string(in), true
	}
	out := AppendUnquoted(make([]byte, 0, len(in)), in)
	return unsafe.String(unsafe.SliceData(out), len(out)), true
}

// hasBackslash reports whether b holds a backslash: eight bytes at a time,
// as most strings are short.
func hasBackslash(b []byte) bool {
	for ; len(b) >= 8; b = b[8:] {
		if byteIs(binary.LittleEndian.Uint64(b), '\\') != 0 {
			return true
		}
	}
	for _, c := range b {
		if c == '\\' {
			return true
		}
	}
	return false
}

// AppendUnquoted appends the decoded contents of a valid JSON string body
// (without its quotes) to dst.
func AppendUnquoted(dst, in []byte) []byte {
	for i := 0; i < len(in); i++ {
		c := in[i]
		if c != '\\' {
			dst = append(dst, c)
			continue
		}
		i++
		if in[i] != 'u' {
			dst = append(dst, unescapeByte(in[i]))
			continue
		}
		r := hex4(in[i+1:])
		i += 4
		if utf16.IsSurrogate(r) {
			r2 := rune(-1)
			if i+6 < len(in) && in[i+1] == '\\' && in[i+2] == 'u' {
				r2 = hex4(in[i+3:])
			}
			if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
				r = d
				i += 6
			} else {
				r = utf8.RuneError
			}
		}
		dst = utf8.AppendRune(dst, r)
	}
	return dst
}

// EqualFoldASCII reports whether b equals s, ignoring the case of ASCII
// letters, as protocol names (HTTP and LSP header names) compare.
func EqualFoldASCII(b []byte, s string) bool {
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
