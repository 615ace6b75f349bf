package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// bound is how long a test waits for a line of the server's before it
// fails: a bound on failure, not a measure of speed.
const bound = 30 * time.Second

// lines drives the built server with the lines of a session written by
// hand, as a client writes them, and logs the exchange as a transcript:
// "-->" for what it sends, "<--" for what the server writes.
type lines struct {
	t    *testing.T
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  chan string
	seen []string // every line read, in order
}

func startLines(t *testing.T, bin string) *lines {
	t.Helper()
	cmd := exec.Command(bin)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	l := &lines{t: t, cmd: cmd, in: in, out: make(chan string, 256)}
	go func() {
		defer close(l.out)
		sc := bufio.NewScanner(out)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			l.out <- sc.Text()
		}
	}()
	t.Cleanup(func() {
		in.Close()
		cmd.Wait()
	})
	return l
}

// send writes one line. A line longer than 1000 bytes is logged cut short.
func (l *lines) send(s string) {
	l.t.Helper()
	logged := s
	if len(logged) > 1000 {
		logged = logged[:1000] + fmt.Sprintf("… (%d bytes)", len(s))
	}
	l.t.Log("--> " + logged)
	if _, err := io.WriteString(l.in, s+"\n"); err != nil {
		l.t.Fatal(err)
	}
}

// next returns the server's next line, decoded, and false when its output
// has ended.
func (l *lines) next() (msg, bool) {
	l.t.Helper()
	select {
	case s, ok := <-l.out:
		if !ok {
			return msg{}, false
		}
		l.t.Log("<-- " + s)
		l.seen = append(l.seen, s)
		var m msg
		if err := json.Unmarshal([]byte(s), &m); err != nil {
			l.t.Fatalf("the server wrote a line that is not JSON: %s", s)
		}
		m.line = s
		return m, true
	case <-time.After(bound):
		l.t.Fatalf("no line from the server in %v", bound)
	}
	return msg{}, false
}

// answer reads lines until the answer with the id (as JSON) and returns
// it, with the notifications read before it.
func (l *lines) answer(id string) (msg, []msg) {
	l.t.Helper()
	var notes []msg
	for {
		m, ok := l.next()
		if !ok {
			l.t.Fatalf("the output ended before the answer to %s", id)
		}
		if m.ID != nil && string(m.ID) == id {
			return m, notes
		}
		notes = append(notes, m)
	}
}

// call sends a request and returns its answer.
func (l *lines) call(id, method, params string) msg {
	l.t.Helper()
	l.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"` + method + `","params":` + params + `}`)
	m, _ := l.answer(id)
	return m
}

// close closes the server's input, reads the rest of its output, and
// checks that it exits with status 0.
func (l *lines) close() []msg {
	l.t.Helper()
	l.in.Close()
	var rest []msg
	for {
		m, ok := l.next()
		if !ok {
			break
		}
		rest = append(rest, m)
	}
	if err := l.cmd.Wait(); err != nil {
		l.t.Errorf("the server's exit: %v, want status 0", err)
	}
	return rest
}

// A msg is a line of the server's, decoded.
type msg struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
	line string
}

// code returns the error code of an error answer, 0 for a result.
func (m msg) code() int {
	if m.Error == nil {
		return 0
	}
	return m.Error.Code
}

// result decodes the result into v, failing the test for an error answer.
func (m msg) result(t *testing.T, v any) {
	t.Helper()
	if m.Error != nil || m.Result == nil {
		t.Fatalf("an error where a result was wanted: %s", m.line)
	}
	if err := json.Unmarshal(m.Result, v); err != nil {
		t.Fatalf("%s: %v", m.line, err)
	}
}

// meta is the _meta of a request of 2026-07-28 from a client with the
// capabilities caps (a JSON object), as a member to put in params.
func meta(caps string) string {
	return `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"test-agent","version":"1.0.0"},"io.modelcontextprotocol/clientCapabilities":` + caps + `}`
}

// params returns the params object of a 2026-07-28 request with the
// capabilities caps and the other members rest ("" for none).
func params(caps, rest string) string {
	if rest == "" {
		return "{" + meta(caps) + "}"
	}
	return "{" + meta(caps) + "," + rest + "}"
}

// modernResult are the fields every result of 2026-07-28 has.
type modernResult struct {
	ResultType string `json:"resultType"`
	Meta       struct {
		ServerInfo *struct {
			Name, Version string
		} `json:"io.modelcontextprotocol/serverInfo"`
		SubscriptionID json.RawMessage `json:"io.modelcontextprotocol/subscriptionId"`
	} `json:"_meta"`
	TTLMs      *int64 `json:"ttlMs"`
	CacheScope string `json:"cacheScope"`
}

// checkModern checks the fields of 2026-07-28 of the result m: its
// resultType, the server's identity, and, when cacheable, its caching
// hints.
func checkModern(t *testing.T, m msg, resultType string, cacheable bool) modernResult {
	t.Helper()
	var r modernResult
	m.result(t, &r)
	if r.ResultType != resultType {
		t.Errorf("resultType %q, want %q: %s", r.ResultType, resultType, m.line)
	}
	if r.Meta.ServerInfo == nil || r.Meta.ServerInfo.Name != "mcpserver" || r.Meta.ServerInfo.Version == "" {
		t.Errorf("no serverInfo in the result's _meta: %s", m.line)
	}
	if cacheable && (r.TTLMs == nil || *r.TTLMs < 0 || r.CacheScope != "public" && r.CacheScope != "private") {
		t.Errorf("a cacheable result without ttlMs >= 0 and cacheScope: %s", m.line)
	}
	if !cacheable && (r.TTLMs != nil || r.CacheScope != "") {
		t.Errorf("caching hints on a result that is not cacheable: %s", m.line)
	}
	return r
}

// has reports whether the line s holds each of the parts.
func has(s string, parts ...string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}
