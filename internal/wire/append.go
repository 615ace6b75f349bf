package wire

import (
	"bytes"
	"encoding/json"
	"math"
	"math/bits"
	"strconv"
	"unicode/utf8"
)

// Response pieces. A success response is written as
// ResultPrefix + value + IDMember + id + "}".
const (
	ResultPrefix = `{"jsonrpc":"2.0","result":`
	ErrorPrefix  = `{"jsonrpc":"2.0","error":{"code":`
	IDMember     = `,"id":`
)

// AppendInt appends the decimal form of n.
func AppendInt(dst []byte, n int64) []byte { return strconv.AppendInt(dst, n, 10) }

// AppendUint appends the decimal form of n.
func AppendUint(dst []byte, n uint64) []byte { return strconv.AppendUint(dst, n, 10) }

// AppendBool appends true or false.
func AppendBool(dst []byte, b bool) []byte {
	if b {
		return append(dst, "true"...)
	}
	return append(dst, "false"...)
}

// AppendFloat appends f as a JSON number, formatted as encoding/json does.
// It reports false for NaN and infinities, which JSON cannot represent.
func AppendFloat(dst []byte, f float64, bits int) ([]byte, bool) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return dst, false
	}
	// Integers whose shortest form is all their digits take a short path.
	if f == math.Trunc(f) && (bits == 64 && math.Abs(f) < 1e15 || math.Abs(f) < 1<<24) {
		if f == 0 && math.Signbit(f) {
			return append(dst, "-0"...), true
		}
		return strconv.AppendInt(dst, int64(f), 10), true
	}
	abs := math.Abs(f)
	if bits == 64 && abs >= 1e-6 && abs < 1e15 {
		if out, ok := appendShortDecimal(dst, f); ok {
			return out, true
		}
	}
	format := byte('f')
	if abs != 0 {
		if bits == 64 && (abs < 1e-6 || abs >= 1e21) || bits == 32 && (float32(abs) < 1e-6 || float32(abs) >= 1e21) {
			format = 'e'
		}
	}
	n := len(dst)
	dst = strconv.AppendFloat(dst, f, format, -1, bits)
	if format == 'e' {
		// Clean up e-09 to e-9.
		m := len(dst) - n
		if m >= 4 && dst[len(dst)-4] == 'e' && dst[len(dst)-3] == '-' && dst[len(dst)-2] == '0' {
			dst[len(dst)-2] = dst[len(dst)-1]
			dst = dst[:len(dst)-1]
		}
	}
	return dst, true
}

// appendShortDecimal appends f, which is not an integer, when it has a
// decimal form with at most 6 fraction digits and 15 digits in all that
// parses back to f. It tries the fewest fraction digits first, so the form
// is the shortest one (as strconv's 'f' with precision -1 gives).
func appendShortDecimal(dst []byte, f float64) ([]byte, bool) {
	neg := f < 0
	if neg {
		f = -f
	}
	for k := 1; k <= 6; k++ {
		p := float64pow10[k]
		m := f * p
		if m >= 1e15 {
			return dst, false
		}
		if m != math.Trunc(m) || m/p != f {
			continue
		}
		n := uint64(m)
		if neg {
			dst = append(dst, '-')
		}
		ip := n / uint64(p)
		dst = strconv.AppendUint(dst, ip, 10)
		dst = append(dst, '.')
		fp := n - ip*uint64(p)
		var buf [6]byte
		for j := k - 1; j >= 0; j-- {
			buf[j] = byte('0' + fp%10)
			fp /= 10
		}
		// A rounding miss at fewer digits shows as trailing zeros.
		for k > 1 && buf[k-1] == '0' {
			k--
		}
		return append(dst, buf[:k]...), true
	}
	return dst, false
}

// needsEscape marks ASCII bytes that cannot be written raw inside a string.
var needsEscape = func() (t [utf8.RuneSelf]bool) {
	for c := 0; c < 0x20; c++ {
		t[c] = true
	}
	t['"'] = true
	t['\\'] = true
	return t
}()

const hexDigits = "0123456789abcdef"

// AppendQuote appends s as a JSON string. Invalid UTF-8 is replaced by
// U+FFFD, and U+2028 and U+2029 are escaped, as encoding/json does.
func AppendQuote[S ~string | ~[]byte](dst []byte, s S) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		// Eight bytes at a time to the first that is not plain ASCII.
		if i+8 <= len(s) {
			x := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
				uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
			m := stringStop(x)
			if m == 0 {
				i += 8
				continue
			}
			i += bits.TrailingZeros64(m) >> 3
		}
		c := s[i]
		if c < utf8.RuneSelf {
			if !needsEscape[c] {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := decodeRune(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = AppendLong(dst, s[start:])
	return append(dst, '"')
}

// decodeRune decodes the UTF-8 sequence at the start of s like
// utf8.DecodeRune, for both strings and byte slices without converting.
func decodeRune[S ~string | ~[]byte](s S) (rune, int) {
	n := len(s)
	if n == 0 {
		return utf8.RuneError, 0
	}
	c0 := s[0]
	switch {
	case c0 < 0x80:
		return rune(c0), 1
	case c0 < 0xC2:
		return utf8.RuneError, 1
	case c0 < 0xE0:
		if n < 2 || s[1]&0xC0 != 0x80 {
			return utf8.RuneError, 1
		}
		return rune(c0&0x1F)<<6 | rune(s[1]&0x3F), 2
	case c0 < 0xF0:
		if n < 3 || s[1]&0xC0 != 0x80 || s[2]&0xC0 != 0x80 {
			return utf8.RuneError, 1
		}
		r := rune(c0&0x0F)<<12 | rune(s[1]&0x3F)<<6 | rune(s[2]&0x3F)
		if r < 0x800 || (r >= 0xD800 && r <= 0xDFFF) {
			return utf8.RuneError, 1
		}
		return r, 3
	case c0 < 0xF5:
		if n < 4 || s[1]&0xC0 != 0x80 || s[2]&0xC0 != 0x80 || s[3]&0xC0 != 0x80 {
			return utf8.RuneError, 1
		}
		r := rune(c0&0x07)<<18 | rune(s[1]&0x3F)<<12 | rune(s[2]&0x3F)<<6 | rune(s[3]&0x3F)
		if r < 0x10000 || r > utf8.MaxRune {
			return utf8.RuneError, 1
		}
		return r, 4
	}
	return utf8.RuneError, 1
}

// AppendError appends a complete error response. message is written quoted;
// data, when not nil, must be a valid JSON value; id must be a valid JSON
// value or nil for null.
func AppendError(dst []byte, code int64, message string, data, id []byte) []byte {
	dst = append(dst, ErrorPrefix...)
	dst = AppendInt(dst, code)
	dst = append(dst, `,"message":`...)
	dst = AppendQuote(dst, message)
	if data != nil {
		dst = append(dst, `,"data":`...)
		dst = append(dst, data...)
	}
	dst = append(dst, '}')
	return AppendIDEnd(dst, id)
}

// AppendErrorData is AppendError for data from anywhere: valid JSON data is
// written compacted, and anything else (invalid JSON, invalid UTF-8) as a
// JSON string of its bytes, so that the response is always valid JSON. Empty
// data is left out.
func AppendErrorData(dst []byte, code int64, message string, data, id []byte) []byte {
	if len(data) == 0 {
		return AppendError(dst, code, message, nil, id)
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, data); err == nil && utf8.Valid(data) {
		data = buf.Bytes()
	} else {
		data = AppendQuote(nil, data)
	}
	return AppendError(dst, code, message, data, id)
}

// AppendIDEnd appends the id member and closes the response object. A nil id
// is written as null.
func AppendIDEnd(dst, id []byte) []byte {
	dst = append(dst, IDMember...)
	if id == nil {
		dst = append(dst, "null"...)
	} else {
		dst = append(dst, id...)
	}
	return append(dst, '}')
}

// AppendCompact appends the valid JSON value v to dst without the white
// space outside its strings, as json.Compact writes it but without
// escaping HTML characters.
func AppendCompact(dst, v []byte) []byte {
	start := 0
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case c == '"':
			for i++; i < len(v) && v[i] != '"'; i++ {
				if v[i] == '\\' {
					i++
				}
			}
		case IsSpace(c):
			dst = append(dst, v[start:i]...)
			start = i + 1
		}
	}
	return append(dst, v[start:]...)
}
