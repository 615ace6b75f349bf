package framing

import (
	"errors"
	"io"
	"strings"
	"testing"
)

// errBlocked is the error of a source whose input is spent: a Read of the
// framing that reaches it would have blocked on a real connection.
var errBlocked = errors.New("framing test: the read would block")

// stepSource hands out its chunks one per Read, then errBlocked until the
// next chunk is added.
type stepSource struct {
	chunks []string
	reads  int // Reads that found no chunk
}

func (s *stepSource) Read(p []byte) (int, error) {
	if len(s.chunks) == 0 {
		s.reads++
		return 0, errBlocked
	}
	n := copy(p, s.chunks[0])
	if s.chunks[0] = s.chunks[0][n:]; s.chunks[0] == "" {
		s.chunks = s.chunks[1:]
	}
	return n, nil
}

// TestReady: Ready is true exactly when the next Read returns without
// reading from the source (a message, or an error it has in hand), for
// each framing, as the input arrives in pieces.
func TestReady(t *testing.T) {
	long := strings.Repeat("x", 40)
	for _, tc := range []struct {
		name   string
		f      Framing
		max    int
		chunks []string
		// before each Read: whether Ready must be true, and what the
		// Read returns ("" for errBlocked)
		steps []struct {
			ready bool
			msg   string
		}
	}{
		{"line", Line, 0, []string{"{\"a\":1}\n{\"z\":0}\n{\"b\"", ":2}\n\n\r\n{\"c\":3}"}, steps(false, `{"a":1}`, true, `{"z":0}`, false, `{"b":2}`, false, "")},
		{"line blank lines", Line, 0, []string{"\n\n  \n{}\n\n"}, steps(false, `{}`, false, "")},
		{"line too long", Line, 16, []string{long + "\n{}\n"}, steps(false, "too large", true, `{}`)},
		{"header", Header, 0, []string{"Content-Length: 2\r\n\r\n{}Content-Length: 2\r\n\r\n[]Content-Length: 7\r\n", "\r\n{\"a\":", "1}"}, steps(false, `{}`, true, `[]`, false, `{"a":1}`, false, "")},
		{"header blank lines", Header, 0, []string{"\r\n\r\nContent-Length: 2\r\n\r\n{}\r\n\r\nContent-Length: 2\r\n\r\n[]"}, steps(false, `{}`, true, `[]`, false, "")},
		{"header body too long", Header, 8, []string{"Content-Length: 40\r\n\r\n" + long + "Content-Length: 2\r\n\r\n{}"}, steps(false, "too large", true, `{}`)},
		{"header body over the limit is not ready", Header, 8, []string{"Content-Length: 2\r\n\r\n{}Content-Length: 40\r\n\r\n" + long}, steps(false, `{}`, false, "too large")},
		{"header malformed", Header, 0, []string{"Content-Length x\r\n\r\n"}, steps(false, "malformed", true, "malformed")},
		{"raw", Raw, 0, []string{`{"a":[1,"]"]} "s" {"b"`, `:2}`}, steps(false, `{"a":[1,"]"]}`, true, `"s"`, false, `{"b":2}`, false, "")},
		{"raw too long", Raw, 8, []string{`{"a":"` + long + `"}`}, steps(false, "too large", true, "too large")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := &stepSource{chunks: tc.chunks}
			r := tc.f.NewReader(src, tc.max)
			rd := r.(interface{ Ready() bool })
			for i, st := range tc.steps {
				if got := rd.Ready(); got != st.ready {
					t.Fatalf("step %d: Ready() = %v, want %v", i, got, st.ready)
				}
				before := src.reads
				msg, err := r.Read()
				if st.ready && src.reads != before {
					t.Fatalf("step %d: Ready was true, but Read reached the spent source", i)
				}
				got := string(msg)
				var tl *TooLargeError
				switch {
				case errors.As(err, &tl):
					got = "too large"
				case errors.Is(err, ErrMalformed):
					got = "malformed"
				case errors.Is(err, errBlocked), errors.Is(err, io.ErrUnexpectedEOF):
					got = ""
				case err != nil:
					t.Fatalf("step %d: Read: %v", i, err)
				}
				if got != st.msg {
					t.Fatalf("step %d: Read = %q, want %q", i, got, st.msg)
				}
			}
		})
	}
}

func steps(v ...any) []struct {
	ready bool
	msg   string
} {
	var out []struct {
		ready bool
		msg   string
	}
	for i := 0; i < len(v); i += 2 {
		out = append(out, struct {
			ready bool
			msg   string
		}{v[i].(bool), v[i+1].(string)})
	}
	return out
}
