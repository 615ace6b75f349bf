package peer

import "github.com/jsonrpc-go/jsonrpc/internal/wire"

// A kind is what an incoming message is, as far as the Conn must know
// before it hands the message on.
type kind uint8

const (
	kindOther        kind = iota // not recognised: the server answers it
	kindRequest                  // an object with a method and an id
	kindNotification             // an object with a method and no id
	kindResponse                 // an object with a result or an error and no method
	kindBatch                    // an array whose first element is not a response
	kindResponses                // an array whose first element is a response
)

// shape is what classify finds in a message's top-level object: the spans
// of its method (a JSON string, quotes included), id and params, as sent.
type shape struct {
	kind   kind
	method []byte
	id     []byte
	params []byte
}

// classify finds the kind of msg, and for an object the spans of its
// members, without validating it: input it cannot read is kindOther, for
// the server to answer as it answers any bad input.
func classify(msg []byte) shape {
	i := wire.SkipSpace(msg, 0)
	if i == len(msg) {
		return shape{}
	}
	switch msg[i] {
	case '{':
		return classifyObject(msg[i:])
	case '[':
		j := wire.SkipSpace(msg, i+1)
		if j < len(msg) && msg[j] == '{' {
			end := skipValue(msg, j)
			if end > j && classifyObject(msg[j:end]).kind == kindResponse {
				return shape{kind: kindResponses}
			}
		}
		return shape{kind: kindBatch}
	}
	return shape{}
}

func classifyObject(v []byte) shape {
	var s shape
	var result bool
	i := wire.SkipSpace(v, 1)
	if i < len(v) && v[i] == '}' {
		return shape{}
	}
	for i < len(v) {
		if v[i] != '"' {
			return shape{}
		}
		kend := skipString(v, i)
		if kend < 0 {
			return shape{}
		}
		name := v[i+1 : kend-1]
		i = wire.SkipSpace(v, kend)
		if i >= len(v) || v[i] != ':' {
			return shape{}
		}
		i = wire.SkipSpace(v, i+1)
		end := skipValue(v, i)
		if end <= i {
			return shape{}
		}
		val := v[i:end]
		switch string(name) {
		case "method":
			s.method = val
		case "id":
			s.id = val
		case "params":
			s.params = val
		case "result", "error":
			result = true
		}
		i = wire.SkipSpace(v, end)
		if i >= len(v) {
			return shape{}
		}
		if v[i] == '}' {
			break
		}
		if v[i] != ',' {
			return shape{}
		}
		i = wire.SkipSpace(v, i+1)
	}
	switch {
	case s.method != nil && s.id != nil && !result:
		s.kind = kindRequest
	case s.method != nil && !result:
		s.kind = kindNotification
	case s.method == nil && result:
		s.kind = kindResponse
	}
	return s
}

// skipString returns the index after the string that starts at v[i], or -1
// when it does not end.
func skipString(v []byte, i int) int {
	for j := i + 1; j < len(v); j++ {
		switch v[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return -1
}

// skipValue returns the index after the value that starts at v[i], without
// checking it beyond the nesting of its brackets and strings, or -1.
func skipValue(v []byte, i int) int {
	if i >= len(v) {
		return -1
	}
	switch v[i] {
	case '"':
		return skipString(v, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(v); j++ {
			switch v[j] {
			case '"':
				end := skipString(v, j)
				if end < 0 {
					return -1
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	}
	j := i
	for j < len(v) {
		switch c := v[j]; {
		case c == ',' || c == '}' || c == ']' || wire.IsSpace(c):
			return j
		}
		j++
	}
	return j
}
