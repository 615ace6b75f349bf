package wire

// MsgKind is what a JSON-RPC message is, as a connection that carries
// calls both ways must know before it hands the message on.
type MsgKind uint8

// The kinds of messages.
const (
	// MsgOther is anything else: not JSON, a JSON value that is neither an
	// object nor an array, or an object that is neither a request nor a
	// response. A server answers it as it answers any bad input.
	MsgOther MsgKind = iota
	// MsgRequest is an object with a method and an id, and no result or
	// error.
	MsgRequest
	// MsgNotification is an object with a method and no id, result or
	// error.
	MsgNotification
	// MsgResponse is an object with a result or an error and no method.
	MsgResponse
	// MsgBatch is an array whose first element is not a response (an
	// empty array included).
	MsgBatch
	// MsgResponses is an array whose first element is a response.
	MsgResponses
)

func (k MsgKind) String() string {
	switch k {
	case MsgRequest:
		return "request"
	case MsgNotification:
		return "notification"
	case MsgResponse:
		return "response"
	case MsgBatch:
		return "batch"
	case MsgResponses:
		return "responses"
	}
	return "other"
}

// Classify validates msg, one JSON value with optional surrounding space,
// in one pass, and says what message it is. Member names are compared
// decoded, so that "re\u0073ult" is "result". For an object r receives
// its members' spans (ScanRequest's); for an array, the first element's.
// A document that is not valid JSON is MsgOther with the scanner's error.
// An object that gives a member twice is classified by the last value of
// each, as encoding/json decodes it, and r.Dup is set.
func (s Scanner) Classify(msg []byte, r *Request) (MsgKind, error) {
	i := SkipSpace(msg, 0)
	if i < len(msg) && msg[i] == '[' {
		var first [1]Request
		kind, _, _, err := s.ClassifyBatch(msg, first[:])
		*r = first[0]
		return kind, err
	}
	kind, err := s.ScanRequest(msg, r)
	if err != nil || kind != Object {
		return MsgOther, err
	}
	return objectKind(r), nil
}

// ClassifyBatch is Classify for a batch, msg (an array): it records the
// members of up to len(reqs) of its elements in reqs (at least one), and
// returns, beside the kind (MsgBatch or MsgResponses, as its first element
// says; MsgOther when it is not valid), what ScanBatch returns, so that a
// server answers the batch without scanning it again.
func (s Scanner) ClassifyBatch(msg []byte, reqs []Request) (kind MsgKind, arr []byte, n int, err error) {
	arr, n, err = s.ScanBatch(msg, reqs)
	switch {
	case err != nil:
		reqs[0] = Request{}
		return MsgOther, arr, n, err
	case n > 0 && objectKind(&reqs[0]) == MsgResponse:
		return MsgResponses, arr, n, nil
	case n == 0:
		reqs[0] = Request{}
	}
	return MsgBatch, arr, n, nil
}

// objectKind is the kind of the object whose members r holds; an element
// of a batch that is not an object has no members at all.
func objectKind(r *Request) MsgKind {
	answer := r.Result != nil || r.Error != nil
	switch {
	case r.Method != nil && !answer && r.ID != nil:
		return MsgRequest
	case r.Method != nil && !answer:
		return MsgNotification
	case r.Method == nil && answer:
		return MsgResponse
	}
	return MsgOther
}

// NameIs reports whether the valid JSON string v (quotes included) holds
// name once decoded: "$\/cancelRequest" and "\u0024/cancelRequest" are
// "$/cancelRequest".
func NameIs(v []byte, name string) bool {
	if len(v) < 2 || v[0] != '"' {
		return false
	}
	return bodyIs(v[1:len(v)-1], name)
}

// bodyIs reports whether in, the body of a valid JSON string without its
// quotes, decodes to name.
func bodyIs(in []byte, name string) bool {
	if !hasBackslash(in) {
		return string(in) == name
	}
	if len(in) < len(name) {
		return false // an escape is never shorter than what it decodes to
	}
	var buf [64]byte
	var out []byte
	if len(in) <= len(buf) {
		out = AppendUnquoted(buf[:0], in)
	} else {
		out = AppendUnquoted(make([]byte, 0, len(in)), in)
	}
	return string(out) == name
}

// Member returns the value of the member of the valid JSON object v whose
// decoded name is name, or nil when there is none (or v is not an
// object). When the name is given twice it returns the last, as
// encoding/json decodes it.
func Member(v []byte, name string) []byte {
	i := SkipSpace(v, 0)
	if i == len(v) || v[i] != '{' {
		return nil
	}
	v = v[i:]
	var found []byte
	for key, val, esc, pos, ok := NextMember(v, 0); ok; key, val, esc, pos, ok = NextMember(v, pos) {
		if esc && bodyIs(key, name) || !esc && string(key) == name {
			found = val
		}
	}
	return found
}
