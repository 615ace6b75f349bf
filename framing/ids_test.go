package framing

import (
	"strings"
	"testing"
)

func TestIDScan(t *testing.T) {
	huge := strings.Repeat(`x\"{[`, 1000)
	for _, tc := range []struct {
		msg, want string
	}{
		{`{"jsonrpc":"2.0","method":"m","params":[1,2],"id":7}`, `7`},
		{`{"id":"a\"b","method":"m"}`, `"a\"b"`},
		{` { "id" : -1.5e3 , "params" : {"id":1} } `, `-1.5e3`},
		{`{"params":{"id":1,"x":["]"]},"id":2}`, `2`},
		{`{"params":"` + huge + `","id":"after"}`, `"after"`},
		{`{"\u0069d":3}`, `3`},
		{`{"i\u0064":"e"}`, `"e"`},
		{`{"idx":1,"xid":2}`, ``},
		{`{"` + strings.Repeat(`k\"`, 100) + `":1,"id":5}`, `5`},
		{`{"id":1,"id":2}`, ``},                                 // given twice
		{`{"id":null}`, ``},                                     // null: nothing to match
		{`{"id":true}`, ``},                                     // not an id
		{`{"id":{"a":1}}`, ``},                                  // not an id
		{`{"id":01}`, ``},                                       // not a JSON number
		{`{"id":"\x"}`, ``},                                     // not a JSON string
		{`[{"id":1}]`, ``},                                      // a batch
		{`{"method":"m"}`, ``},                                  // a notification
		{`{"id":"` + strings.Repeat("y", maxIDScan) + `"}`, ``}, // too long to keep
		{`"id"`, ``},
		{`{"a":1 "id":2}`, ``},  // not JSON before the id
		{`{"id":2 "a":1}`, `2`}, // not JSON after it: the id was read
	} {
		for _, piece := range []int{len(tc.msg) + 1, 1, 7} {
			var s idScan
			s.reset()
			for m := tc.msg; len(m) > 0; {
				n := min(piece, len(m))
				s.feed([]byte(m[:n]))
				m = m[n:]
			}
			if got := string(s.ID()); got != tc.want {
				t.Errorf("%.60s in pieces of %d: id %s, want %q", tc.msg, piece, got, tc.want)
			}
		}
	}
}

// TestIDScanPrefix: an id whose value the bytes read do not finish is not
// found.
func TestIDScanPrefix(t *testing.T) {
	msg := `{"jsonrpc":"2.0","id":12345,"method":"m"}`
	for n := range len(msg) + 1 {
		var s idScan
		s.reset()
		s.feed([]byte(msg[:n]))
		want := ""
		if n > strings.Index(msg, "12345")+len("12345") {
			want = "12345"
		}
		if got := string(s.ID()); got != want {
			t.Errorf("prefix %q: id %q, want %q", msg[:n], got, want)
		}
	}
}
