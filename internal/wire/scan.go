// Package wire reads and writes the bytes of JSON-RPC 2.0 messages.
//
// It is the only code on the request path that touches raw bytes. Its helpers
// are stateless and allocate nothing on success: the scanner validates a
// document in one pass and reports the spans of the members a server needs;
// the value helpers parse and format primitives; the append helpers write
// responses into a caller's buffer.
package wire

import (
	"bytes"
	"encoding/binary"
	"iter"
	"math/bits"
	"unicode/utf8"
)

// DefaultMaxDepth is the nesting depth allowed when a Scanner's MaxDepth is zero.
const DefaultMaxDepth = 128

// Error kinds reported by the scanner. Each maps to one documented JSON-RPC
// answer in the server.
const (
	ErrSyntax   = "invalid JSON"
	ErrUTF8     = "invalid UTF-8 in string"
	ErrDepth    = "nesting too deep"
	ErrTrailing = "invalid JSON after the top-level value"
	ErrEmpty    = "empty input"
)

// SyntaxError describes input that is not a single valid JSON value.
type SyntaxError struct {
	Offset int    // byte offset at which the problem was found
	Msg    string // one of the Err* constants
}

func (e *SyntaxError) Error() string { return e.Msg + " at offset " + itoa(e.Offset) }

func itoa(n int) string { return string(AppendInt(nil, int64(n))) }

// Kind is the kind of a JSON value, told by its first byte.
type Kind uint8

// The kinds of JSON values.
const (
	Invalid Kind = iota
	Null
	False
	True
	Number
	String
	Array
	Object
)

// KindOf returns the kind of the value that starts v. v must be a valid JSON
// value without leading space.
func KindOf(v []byte) Kind {
	if len(v) == 0 {
		return Invalid
	}
	switch v[0] {
	case 'n':
		return Null
	case 'f':
		return False
	case 't':
		return True
	case '"':
		return String
	case '[':
		return Array
	case '{':
		return Object
	}
	return Number
}

// Request holds the spans of a request object's members, each a slice of the
// scanned input. A nil span means the member was absent.
type Request struct {
	Version []byte // value of "jsonrpc"
	Method  []byte // value of "method", a JSON value (a string when valid)
	Params  []byte // value of "params"
	ID      []byte // value of "id"
	// Result and Error are the values of "result" and "error": members of
	// a response, which a request does not have. They play no part in
	// Dup.
	Result, Error []byte
	// Dup is true when a member appeared twice.
	Dup bool
	// Checked is true when the scanner has checked the envelope already:
	// Version is "2.0", Method is a string token without escapes (its name
	// is Method[1:len(Method)-1], nothing to undo) and Dup is false. The
	// fast path sets it, which reads only objects that are exactly
	// {"jsonrpc":"2.0","method":M[,"params":P][,"id":I]}: those members in
	// that order, no white space outside P and I. It says nothing of the
	// kinds of Params and ID. When false, the object may still be a valid
	// request: the version and the method's kind remain to be checked and
	// the method name to be unescaped.
	Checked bool
	// Args holds the elements of a params array when the fast path read them.
	Args Args
	// Value is the scanned value without surrounding space.
	Value []byte
}

// MaxArgs is the number of params array elements the scanner records.
const MaxArgs = 2

// Args are the elements of a params array found while scanning, so that
// binding need not walk the array again.
type Args struct {
	Elems [MaxArgs][]byte // the first elements
	N     int             // number of elements in the array
	Known bool            // Elems and N were recorded
}

// Scanner validates JSON documents. The zero value uses DefaultMaxDepth.
type Scanner struct {
	MaxDepth int
}

// Depth is the nesting limit the scanner applies: MaxDepth, or
// DefaultMaxDepth when it is not positive.
func (s Scanner) Depth() int { return s.maxDepth() }

func (s Scanner) maxDepth() int {
	if s.MaxDepth <= 0 {
		return DefaultMaxDepth
	}
	return s.MaxDepth
}

// IsSpace reports whether c is JSON white space.
func IsSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// SkipSpace returns the index of the first non-space byte of b at or after i.
func SkipSpace(b []byte, i int) int {
	for i < len(b) && IsSpace(b[i]) {
		i++
	}
	return i
}

// ScanRequest validates doc, which must hold one JSON value with optional
// surrounding space, in a single pass. When the value is an object it fills r
// with the spans of the request members and returns Object. Otherwise it
// returns the value's kind and leaves r empty.
func (s Scanner) ScanRequest(doc []byte, r *Request) (Kind, error) {
	countScan()
	i := SkipSpace(doc, 0)
	if i == len(doc) {
		return Invalid, &SyntaxError{Offset: i, Msg: ErrEmpty}
	}
	var (
		end int
		err error
	)
	kind := KindOf(doc[i:])
	switch kind {
	case Object:
		end = s.scanCanonical(doc, i, r, s.maxDepth())
		if end < 0 {
			end, err = s.scanObject(doc, i, r, s.maxDepth())
		}
	case Array:
		end, err = s.skipArray(doc, i, s.maxDepth())
	default:
		end, err = s.skip(doc, i, s.maxDepth())
	}
	if err != nil {
		return Invalid, err
	}
	if j := SkipSpace(doc, end); j != len(doc) {
		return Invalid, &SyntaxError{Offset: j, Msg: ErrTrailing}
	}
	if kind != Object {
		*r = Request{}
	}
	r.Value = doc[i:end]
	return kind, nil
}

// Validate checks that doc holds exactly one JSON value surrounded by optional
// white space, and returns the span of that value. It is the general scanner
// alone, without ScanRequest's fast path (the tests' reference for what the
// scanner accepts), and what checks a raw JSON result before it is sent.
func (s Scanner) Validate(doc []byte) ([]byte, error) {
	i := SkipSpace(doc, 0)
	if i == len(doc) {
		return nil, &SyntaxError{Offset: i, Msg: ErrEmpty}
	}
	end, err := s.skip(doc, i, s.maxDepth())
	if err != nil {
		return nil, err
	}
	if j := SkipSpace(doc, end); j != len(doc) {
		return nil, &SyntaxError{Offset: j, Msg: ErrTrailing}
	}
	return doc[i:end], nil
}

// ScanBatch validates doc, which must hold one JSON array with optional
// surrounding space, in a single pass. It returns the array's span and its
// number of elements, and fills out[k] for each of the first len(out)
// elements: its Value is the element's span and, when the element is an
// object, the other fields are its request members.
func (s Scanner) ScanBatch(doc []byte, out []Request) (arr []byte, n int, err error) {
	countScan()
	i := SkipSpace(doc, 0)
	if i == len(doc) || doc[i] != '[' {
		return nil, 0, syntaxAt(doc, i)
	}
	start := i
	depth := s.maxDepth()
	if depth <= 0 {
		return nil, 0, &SyntaxError{Offset: i, Msg: ErrDepth}
	}
	i = SkipSpace(doc, i+1)
	if i < len(doc) && doc[i] == ']' {
		i++
	} else {
		for {
			es := i
			if i < len(doc) && doc[i] == '{' {
				// Past len(out) the members are found again later; the
				// canonical scan is still the fastest way to validate.
				var spare Request
				r := &spare
				if n < len(out) {
					r = &out[n]
				}
				end := s.scanCanonical(doc, i, r, depth-1)
				if end < 0 {
					end, err = s.scanObject(doc, i, r, depth-1)
				}
				i = end
			} else {
				i, err = s.skip(doc, i, depth-1)
				if n < len(out) {
					out[n] = Request{}
				}
			}
			if err != nil {
				return nil, 0, err
			}
			if n < len(out) {
				out[n].Value = doc[es:i]
			}
			n++
			i = SkipSpace(doc, i)
			if i >= len(doc) {
				return nil, 0, syntaxAt(doc, i)
			}
			if doc[i] == ']' {
				i++
				break
			}
			if doc[i] != ',' {
				return nil, 0, syntaxAt(doc, i)
			}
			i = SkipSpace(doc, i+1)
		}
	}
	if j := SkipSpace(doc, i); j != len(doc) {
		return nil, 0, &SyntaxError{Offset: j, Msg: ErrTrailing}
	}
	return doc[start:i], n, nil
}

// NextRequest iterates the elements of the valid array v like NextElement.
// For an element that is an object it also fills r with the spans of its
// request members and reports isObject.
func NextRequest(v []byte, pos int, r *Request) (elem []byte, isObject bool, next int, ok bool) {
	if pos, ok = nextPos(v, pos, ']'); !ok {
		return nil, false, pos, false
	}
	if v[pos] != '{' {
		end := skipValid(v, pos)
		return v[pos:end], false, end, true
	}
	end := Scanner{MaxDepth: 1 << 30}.scanCanonical(v, pos, r, 1<<30)
	if end < 0 {
		end = scanValidObject(v, pos, r)
	}
	return v[pos:end], true, end, true
}

// scanValidObject fills r from the valid object at v[i] and returns the index
// after it.
func scanValidObject(v []byte, i int, r *Request) int {
	*r = Request{}
	var seen uint8
	i = SkipSpace(v, i+1)
	if v[i] == '}' {
		return i + 1
	}
	for {
		kend, esc := skipString(v, i)
		key := v[i+1 : kend-1]
		if esc {
			key = unescapeKey(key)
		}
		i = SkipSpace(v, SkipSpace(v, kend)+1)
		vstart := i
		i = skipValid(v, i)
		seen = r.set(seen, key, v[vstart:i])
		i = SkipSpace(v, i)
		if v[i] == '}' {
			return i + 1
		}
		i = SkipSpace(v, i+1)
	}
}

// set records a member's value and returns the updated set of seen members.
func (r *Request) set(seen uint8, key, v []byte) uint8 {
	var bit uint8
	switch string(key) {
	case "jsonrpc":
		bit, r.Version = seenVersion, v
	case "method":
		bit, r.Method = seenMethod, v
	case "params":
		bit, r.Params = seenParams, v
	case "id":
		bit, r.ID = seenID, v
	case "result":
		r.Result = v
	case "error":
		r.Error = v
	}
	if seen&bit != 0 {
		r.Dup = true
	}
	return seen | bit
}

// member bits for duplicate detection.
const (
	seenVersion = 1 << iota
	seenMethod
	seenParams
	seenID
)

// scanObject validates the object at b[i] and returns the index after it.
// When r is not nil it records the request members in r.
func (s Scanner) scanObject(b []byte, i int, r *Request, depth int) (int, error) {
	if r != nil {
		*r = Request{}
	}
	if depth <= 0 {
		return 0, &SyntaxError{Offset: i, Msg: ErrDepth}
	}
	i++ // '{'
	i = SkipSpace(b, i)
	if i < len(b) && b[i] == '}' {
		return i + 1, nil
	}
	var seen uint8
	for {
		if i >= len(b) || b[i] != '"' {
			return 0, syntaxAt(b, i)
		}
		kstart := i
		kend, esc, err := scanString(b, i)
		if err != nil {
			return 0, err
		}
		key := b[kstart+1 : kend-1]
		if esc && r != nil {
			key = unescapeKey(key)
		}
		i = SkipSpace(b, kend)
		if i >= len(b) || b[i] != ':' {
			return 0, syntaxAt(b, i)
		}
		i = SkipSpace(b, i+1)
		vstart := i
		i, err = s.skip(b, i, depth-1)
		if err != nil {
			return 0, err
		}
		if r != nil {
			seen = r.set(seen, key, b[vstart:i])
		}
		i = SkipSpace(b, i)
		if i >= len(b) {
			return 0, syntaxAt(b, i)
		}
		switch b[i] {
		case ',':
			i = SkipSpace(b, i+1)
		case '}':
			return i + 1, nil
		default:
			return 0, syntaxAt(b, i)
		}
	}
}

const canonicalHead = `{"jsonrpc":"2.0","method":`

// scanCanonical scans, validating, the request object at b[i] when it has
// the shape most clients send: {"jsonrpc":"2.0","method":M[,"params":P][,"id":I]}
// with no space. It returns the index after the object, or -1 when the
// object has another shape or is invalid, for scanObject to scan it.
func (s Scanner) scanCanonical(b []byte, i int, r *Request, depth int) int {
	if depth <= 0 || len(b)-i < len(canonicalHead) || string(b[i:i+len(canonicalHead)]) != canonicalHead {
		return -1
	}
	*r = Request{Version: b[i+11 : i+16]}
	i += len(canonicalHead)
	if i >= len(b) || b[i] != '"' {
		return -1
	}
	end, esc, err := scanString(b, i)
	if err != nil || esc {
		return -1
	}
	r.Method = b[i:end]
	i = end
	if len(b)-i > 10 && string(b[i:i+10]) == `,"params":` {
		i += 10
		start := i
		if b[i] == '[' {
			i = s.scanArgs(b, i, depth-1, &r.Args)
		} else {
			i, err = s.skip(b, i, depth-1)
		}
		if i < 0 || err != nil {
			return -1
		}
		r.Params = b[start:i]
	}
	if len(b)-i > 6 && string(b[i:i+6]) == `,"id":` {
		i += 6
		start := i
		if i, err = s.skip(b, i, depth-1); err != nil {
			return -1
		}
		r.ID = b[start:i]
	}
	if i >= len(b) || b[i] != '}' {
		return -1
	}
	r.Checked = true
	return i + 1
}

// scanArgs validates the array at b[i], recording its elements in a, and
// returns the index after it, or -1 when it is invalid.
func (s Scanner) scanArgs(b []byte, i, depth int, a *Args) int {
	if depth <= 0 {
		return -1
	}
	i = SkipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		a.Known = true
		return i + 1
	}
	for n := 0; ; n++ {
		start := i
		var err error
		if i, err = s.skip(b, i, depth-1); err != nil {
			return -1
		}
		if n < MaxArgs {
			a.Elems[n] = b[start:i]
		}
		i = SkipSpace(b, i)
		if i >= len(b) {
			return -1
		}
		switch b[i] {
		case ',':
			i = SkipSpace(b, i+1)
		case ']':
			a.N, a.Known = n+1, true
			return i + 1
		default:
			return -1
		}
	}
}

// unescapeKey decodes an escaped member name. Only the six message member
// names matter, so a name that does not decode to pure ASCII is returned as is
// (it cannot match one of them).
func unescapeKey(k []byte) []byte {
	var buf [16]byte
	out := buf[:0]
	for i := 0; i < len(k); i++ {
		c := k[i]
		if c != '\\' {
			out = append(out, c)
			continue
		}
		i++
		switch k[i] {
		case 'u':
			r := hex4(k[i+1 : i+5])
			i += 4
			if r >= utf8.RuneSelf {
				return k
			}
			out = append(out, byte(r))
		default:
			out = append(out, unescapeByte(k[i]))
		}
		if len(out) > len(buf) {
			return k
		}
	}
	return out
}

func syntaxAt(b []byte, i int) error {
	if i > len(b) {
		i = len(b)
	}
	return &SyntaxError{Offset: i, Msg: ErrSyntax}
}

// skip validates the value starting at b[i] and returns the index after it.
func (s Scanner) skip(b []byte, i, depth int) (int, error) {
	if i >= len(b) {
		return 0, syntaxAt(b, i)
	}
	switch c := b[i]; c {
	case '"':
		end, _, err := scanString(b, i)
		return end, err
	case '{':
		return s.scanObject(b, i, nil, depth)
	case '[':
		return s.skipArray(b, i, depth)
	case 't':
		return literal(b, i, "true")
	case 'f':
		return literal(b, i, "false")
	case 'n':
		return literal(b, i, "null")
	default:
		if c == '-' || (c >= '0' && c <= '9') {
			return scanNumber(b, i)
		}
		return 0, syntaxAt(b, i)
	}
}

// skipArray validates the array starting at b[i] and returns the index after
// it.
func (s Scanner) skipArray(b []byte, i, depth int) (int, error) {
	if depth <= 0 {
		return 0, &SyntaxError{Offset: i, Msg: ErrDepth}
	}
	i = SkipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return i + 1, nil
	}
	for n := 0; ; n++ {
		var err error
		i, err = s.skip(b, i, depth-1)
		if err != nil {
			return 0, err
		}
		i = SkipSpace(b, i)
		if i >= len(b) {
			return 0, syntaxAt(b, i)
		}
		YieldEvery(n)
		switch b[i] {
		case ',':
			i = SkipSpace(b, i+1)
		case ']':
			return i + 1, nil
		default:
			return 0, syntaxAt(b, i)
		}
	}
}

func literal(b []byte, i int, lit string) (int, error) {
	if len(b)-i >= len(lit) && string(b[i:i+len(lit)]) == lit {
		return i + len(lit), nil
	}
	return 0, syntaxAt(b, i)
}

// scanNumber validates the JSON number at b[i].
func scanNumber(b []byte, i int) (int, error) {
	start := i
	if b[i] == '-' {
		i++
	}
	if i >= len(b) {
		return 0, syntaxAt(b, start)
	}
	switch {
	case b[i] == '0':
		i++
	case b[i] >= '1' && b[i] <= '9':
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	default:
		return 0, syntaxAt(b, i)
	}
	if i < len(b) && b[i] == '.' {
		i++
		d := i
		for i < len(b) && isDigit(b[i]) {
			i++
		}
		if i == d {
			return 0, syntaxAt(b, i)
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		d := i
		for i < len(b) && isDigit(b[i]) {
			i++
		}
		if i == d {
			return 0, syntaxAt(b, i)
		}
	}
	return i, nil
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// strSafe marks bytes that may appear in a JSON string without further checks.
var strSafe = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// scanString validates the string starting at b[i] (a quote) and returns the
// index after the closing quote and whether it holds escapes.
func scanString(b []byte, i int) (end int, escaped bool, err error) {
	i++
	for {
		for i < len(b) && strSafe[b[i]] {
			i++
		}
		if i >= len(b) {
			return 0, false, syntaxAt(b, i)
		}
		switch c := b[i]; {
		case c == '"':
			return i + 1, escaped, nil
		case c == '\\':
			escaped = true
			if i+1 >= len(b) {
				return 0, false, syntaxAt(b, i)
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if len(b)-i < 6 || hex4(b[i+2:i+6]) < 0 {
					return 0, false, syntaxAt(b, i)
				}
				i += 6
			default:
				return 0, false, syntaxAt(b, i)
			}
		case c < 0x20:
			return 0, false, syntaxAt(b, i)
		default:
			r, size := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && size <= 1 {
				return 0, false, &SyntaxError{Offset: i, Msg: ErrUTF8}
			}
			i += size
		}
	}
}

// hex4 decodes four hex digits, or returns -1.
func hex4(h []byte) rune {
	var r rune
	for _, c := range h[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r<<4 | rune(c)
	}
	return r
}

func unescapeByte(c byte) byte {
	switch c {
	case 'b':
		return '\b'
	case 'f':
		return '\f'
	case 'n':
		return '\n'
	case 'r':
		return '\r'
	case 't':
		return '\t'
	}
	return c // '"', '\\', '/'
}

// skipValid returns the index after the value starting at v[i], which must
// be valid JSON: it only finds the value's end.
func skipValid(v []byte, i int) int {
	switch v[i] {
	case '"':
		end, _ := skipString(v, i)
		return end
	case '{', '[':
		depth := 0
		for {
			switch v[i] {
			case '"':
				i, _ = skipString(v, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
	}
	for i < len(v) {
		switch v[i] {
		case ',', ']', '}', ' ', '\t', '\n', '\r':
			return i
		}
		i++
	}
	return i
}

// skipString returns the index after the valid string starting at v[i] and
// whether the string holds escapes.
func skipString(v []byte, i int) (end int, escaped bool) {
	i++
	for {
		// The first quote or backslash: eight bytes at a time over the
		// short strings most members are, then bytes.IndexByte, whose
		// setup costs more than a short string's scan.
		for n := 0; len(v)-i >= 8; n++ {
			if n == 4 {
				q := bytes.IndexByte(v[i:], '"')
				if b := bytes.IndexByte(v[i:i+q], '\\'); b >= 0 {
					i += b
				} else {
					i += q
				}
				break
			}
			x := binary.LittleEndian.Uint64(v[i:])
			if m := quoteOrBackslash(x); m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				break
			}
			i += 8
		}
		for v[i] != '"' && v[i] != '\\' {
			i++
		}
		if v[i] == '"' {
			return i + 1, escaped
		}
		escaped = true
		i += 2
	}
}

// The words of the loops that read eight bytes at a time: a byte of ones,
// and a byte of high bits, in each of a word's eight bytes.
const wordOnes, wordHighs = 0x0101010101010101, 0x8080808080808080

// byteIs returns a word whose byte k has its high bit set when byte k of x
// is the first equal to c (later bytes may be set too); zero when x holds
// no c.
func byteIs(x uint64, c byte) uint64 {
	y := x ^ (wordOnes * uint64(c))
	return (y - wordOnes) &^ y & wordHighs
}

// stringStop returns a word whose byte k has its high bit set when byte k
// of x is the first that ends a run of plain ASCII string bytes: a quote,
// a backslash, a control character or a byte of a multi-byte UTF-8
// sequence (later bytes may be set too); zero when there is none.
func stringStop(x uint64) uint64 {
	return quoteOrBackslash(x) | ((x-wordOnes*0x20)&^x|x)&wordHighs
}

// quoteOrBackslash returns a word whose byte k has its high bit set when
// byte k of x is the first quote or backslash of x (later bytes may be set
// too); zero when x holds neither.
func quoteOrBackslash(x uint64) uint64 { return byteIs(x, '"') | byteIs(x, '\\') }

// nextPos moves an iteration of a valid array or object v (closed by end)
// to its next element: from its start at pos 0, or past the separator after
// the previous element. It reports false at the end.
func nextPos(v []byte, pos int, end byte) (int, bool) {
	if pos == 0 {
		pos = SkipSpace(v, 1)
	} else {
		pos = SkipSpace(v, pos)
		if v[pos] == ',' {
			pos = SkipSpace(v, pos+1)
		}
	}
	return pos, pos < len(v) && v[pos] != end
}

// NextElement iterates the valid array v without a callback: start with
// pos = 0; each call returns the next element and the position to pass next,
// or ok == false at the end.
func NextElement(v []byte, pos int) (elem []byte, next int, ok bool) {
	if pos, ok = nextPos(v, pos, ']'); !ok {
		return nil, pos, false
	}
	end := skipValid(v, pos)
	return v[pos:end], end, true
}

// Elements returns an iterator over the elements of the valid array v.
func Elements(v []byte) iter.Seq[[]byte] {
	return func(yield func([]byte) bool) {
		for elem, pos, ok := NextElement(v, 0); ok; elem, pos, ok = NextElement(v, pos) {
			if !yield(elem) {
				return
			}
		}
	}
}

// NextName iterates the valid object v like NextMember, but stops at each
// member's name, so that a value it does not need is never scanned: it
// returns the name token (quotes and escapes kept, for NameIs) and the
// position of its value; pass SkipValue(v, value) as the next pos.
func NextName(v []byte, pos int) (name []byte, value int, ok bool) {
	if pos, ok = nextPos(v, pos, '}'); !ok {
		return nil, pos, false
	}
	kend, _ := skipString(v, pos)
	i := SkipSpace(v, kend)
	return v[pos:kend], SkipSpace(v, i+1), true // past ':'
}

// SkipValue returns the position just past the valid JSON value that
// begins at pos of v.
func SkipValue(v []byte, pos int) int { return skipValid(v, pos) }

// NextMember iterates the valid object v like NextElement, returning each
// member's raw name (the string token without its quotes, escapes kept), its
// value, and whether the name holds escapes.
func NextMember(v []byte, pos int) (name, value []byte, escaped bool, next int, ok bool) {
	if pos, ok = nextPos(v, pos, '}'); !ok {
		return nil, nil, false, pos, false
	}
	kend, esc := skipString(v, pos)
	name = v[pos+1 : kend-1]
	i := SkipSpace(v, kend)
	i = SkipSpace(v, i+1) // ':'
	end := skipValid(v, i)
	return name, v[i:end], esc, end, true
}
