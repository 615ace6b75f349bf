package wire

import "sync/atomic"

// Scanned is one message classified once, with the spans of its members:
// the value behind jsonrpc.Request, which a host hands the server it has
// classified a message for, so that nothing scans it again. Its fields are
// reached through its methods, which only this module can call.
type Scanned struct {
	msg  []byte
	kind MsgKind
	req  Request
}

// Classify classifies msg with sc (Scanner.Classify) into s.
func (s *Scanned) Classify(sc Scanner, msg []byte) (MsgKind, error) {
	kind, err := sc.Classify(msg, &s.req)
	s.msg, s.kind = msg, kind
	return kind, err
}

// Set records that msg, whose members Req holds, is of kind.
func (s *Scanned) Set(msg []byte, kind MsgKind) { s.msg, s.kind = msg, kind }

// Of reports whether s is the classification of msg: the same bytes in
// memory, clipped alike (the spans are found again by their distance from
// the message's end).
func (s *Scanned) Of(msg []byte) bool {
	m := s.msg
	return len(m) == len(msg) && cap(m) == cap(msg) && (len(m) == 0 || &m[0] == &msg[0])
}

// Msg returns the message, as read.
func (s *Scanned) Msg() []byte { return s.msg }

// Kind returns what the message is.
func (s *Scanned) Kind() MsgKind { return s.kind }

// Req returns the message's members.
func (s *Scanned) Req() *Request { return &s.req }

// scans counts the scans of messages while a test asks (CountScans).
var scans atomic.Pointer[atomic.Int64]

// CountScans has each later ScanRequest and ScanBatch (and so each
// Classify) add one to n, or stops counting when n is nil: how a test
// proves that a host scans a message once.
func CountScans(n *atomic.Int64) { scans.Store(n) }

// countScan counts one scan, when a test asks.
func countScan() {
	if n := scans.Load(); n != nil {
		n.Add(1)
	}
}
