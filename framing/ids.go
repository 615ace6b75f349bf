package framing

import (
	"bytes"
	"encoding/json"

	"github.com/jsonrpc-go/jsonrpc/internal/wire"
)

// maxIDScan is the size limit of an id that idScan keeps; a longer one is
// not found.
const maxIDScan = 1 << 10

// idScan finds the id of a request in a message it is fed piece by piece,
// in order, without keeping the message: the value of the "id" member of a
// top-level object. It is how a message over the size limit, which is never
// buffered whole, is answered with its id. It does not validate the
// message; the id it finds is checked as the server checks ids (a JSON
// string or number), and an id given twice, or in a batch, is not found.
type idScan struct {
	state   uint8
	inStr   bool // in a string (a key, or inside a value)
	esc     bool // after a backslash in a string
	depth   int  // open brackets of the member value being skipped
	isID    bool // the member value being read is the id's
	found   int  // ids found: 0, 1, or 2 for more
	key     []byte
	keyEsc  bool   // the key has escapes
	keyLong bool   // the key is too long to be "id"
	id      []byte // the id so far, or the id found
	long    bool   // the id is over maxIDScan
}

// idScan states.
const (
	idStart  uint8 = iota // before the top-level value
	idKey0                // in the object, before a key or its end
	idKey                 // in a key
	idColon               // after a key
	idValue0              // before a member value
	idValue               // in a member value
	idNext                // after a member value
	idDone                // nothing more to find
)

func (s *idScan) reset() {
	*s = idScan{key: s.key[:0], id: s.id[:0]}
}

// feed scans the next piece of the message.
func (s *idScan) feed(b []byte) {
	for i := 0; i < len(b) && s.state != idDone; i++ {
		c := b[i]
		switch s.state {
		case idStart:
			switch {
			case wire.IsSpace(c):
			case c == '{':
				s.state = idKey0
			default:
				s.state = idDone // not an object: no id to find
			}
		case idKey0:
			switch {
			case wire.IsSpace(c):
			case c == '"':
				s.state, s.key, s.keyEsc, s.keyLong = idKey, s.key[:0], false, false
			default:
				s.state = idDone // the end, or not JSON
			}
		case idKey:
			if s.keyLong && !s.esc {
				if i = toQuote(b, i); i == len(b) {
					return
				}
				c = b[i]
			}
			switch {
			case s.esc:
				s.esc = false
			case c == '\\':
				s.esc, s.keyEsc = true, true
			case c == '"':
				s.state = idColon
				continue
			}
			if len(s.key) < 16 { // "id" is at most 12 bytes escaped
				s.key = append(s.key, c)
			} else {
				s.keyLong = true
			}
		case idColon:
			switch {
			case wire.IsSpace(c):
			case c == ':':
				s.state, s.isID = idValue0, s.keyIsID()
			default:
				s.state = idDone
			}
		case idValue0:
			if wire.IsSpace(c) {
				continue
			}
			s.state, s.depth, s.inStr, s.esc = idValue, 0, false, false
			if s.isID {
				s.found++
				s.id, s.long = s.id[:0], false
			}
			switch c {
			case '"':
				s.inStr = true
			case '{', '[':
				s.depth = 1
			case '}', ']', ',', ':':
				s.state = idDone
				continue
			}
			s.keep(c)
		case idValue:
			if s.inStr && !s.esc && !s.isID {
				// The bulk of a large message: skip to the string's next
				// quote or backslash.
				if i = toQuote(b, i); i == len(b) {
					return
				}
				c = b[i]
			}
			end := false
			switch {
			case s.esc:
				s.esc = false
			case s.inStr:
				switch c {
				case '\\':
					s.esc = true
				case '"':
					s.inStr = false
					end = s.depth == 0
				}
			case s.depth > 0:
				switch c {
				case '"':
					s.inStr = true
				case '{', '[':
					s.depth++
				case '}', ']':
					s.depth--
					end = s.depth == 0
				}
			case wire.IsSpace(c) || c == ',' || c == '}' || c == ']' || c == ':' || c == '"' || c == '{' || c == '[':
				// The end of a scalar: c belongs to what follows.
				s.state = idNext
				i--
				continue
			}
			s.keep(c)
			if end {
				s.state = idNext
			}
		case idNext:
			switch {
			case wire.IsSpace(c):
			case c == ',':
				s.state = idKey0
			default:
				s.state = idDone // the end of the object, or not JSON
			}
		}
	}
}

// toQuote returns the index of the first quote or backslash in b from i,
// or len(b).
func toQuote(b []byte, i int) int {
	rest := b[i:]
	n := bytes.IndexByte(rest, '"')
	if n < 0 {
		n = len(rest)
	}
	if k := bytes.IndexByte(rest[:n], '\\'); k >= 0 {
		n = k
	}
	return i + n
}

// keep appends c to the id while its value is read.
func (s *idScan) keep(c byte) {
	if !s.isID || s.long {
		return
	}
	if len(s.id) == maxIDScan {
		s.long = true
		return
	}
	s.id = append(s.id, c)
}

func (s *idScan) keyIsID() bool {
	if s.keyLong {
		return false
	}
	if !s.keyEsc {
		return string(s.key) == "id"
	}
	// An escaped key: the server's scanner validates and reads it.
	doc := make([]byte, 0, len(s.key)+5)
	doc = append(append(append(doc, `{"`...), s.key...), `":0}`...)
	var r wire.Request
	_, err := (wire.Scanner{}).ScanRequest(doc, &r)
	return err == nil && r.ID != nil
}

// ID returns a copy of the id found, or nil when none was: the request
// had no id member, more than one, an id that is not a valid JSON string
// or number, or one over maxIDScan bytes, or the bytes read did not reach
// its end.
func (s *idScan) ID() json.RawMessage {
	if s.found != 1 || s.long || (s.state == idValue && s.isID) {
		return nil
	}
	return validID(s.id)
}

// validID returns a copy of id when it is a JSON string or number as the
// server accepts it, and nil otherwise.
func validID(id []byte) json.RawMessage {
	doc := make([]byte, 0, len(id)+7)
	doc = append(append(append(doc, `{"id":`...), id...), '}')
	var r wire.Request
	if kind, err := (wire.Scanner{}).ScanRequest(doc, &r); err != nil || kind != wire.Object || r.Dup {
		return nil
	}
	switch wire.KindOf(r.ID) {
	case wire.String, wire.Number:
		return json.RawMessage(r.ID)
	}
	return nil
}
