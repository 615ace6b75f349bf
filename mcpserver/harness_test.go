package mcpserver_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/jsonrpc-go/jsonrpc/mcpserver"
)

// A wire drives a Server over ServeStream with lines written by hand, and
// logs the exchange: "-->" for what it sends, "<--" for what it reads.
type wire struct {
	t    *testing.T
	in   *io.PipeWriter
	out  chan string
	done chan error
}

func serve(t *testing.T, s *mcpserver.Server) *wire {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	w := &wire{t: t, in: inW, out: make(chan string, 256), done: make(chan error, 1)}
	go func() {
		w.done <- s.ServeStream(context.Background(), inR, outW)
		outW.Close()
	}()
	go func() {
		defer close(w.out)
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			w.out <- sc.Text()
		}
	}()
	t.Cleanup(func() { w.close() })
	return w
}

func (w *wire) send(line string) {
	w.t.Helper()
	w.t.Log("--> " + line)
	if _, err := io.WriteString(w.in, line+"\n"); err != nil {
		w.t.Fatal(err)
	}
}

// next returns the next line, "" when the output ended.
func (w *wire) next() string {
	w.t.Helper()
	select {
	case l, ok := <-w.out:
		if ok {
			w.t.Log("<-- " + l)
		}
		return l
	case <-time.After(10 * time.Second):
		w.t.Fatal("no line in 10 s")
	}
	return ""
}

// answer reads lines up to the answer with id, and returns it and the
// lines before it.
func (w *wire) answer(id string) (string, []string) {
	w.t.Helper()
	var before []string
	for {
		l := w.next()
		if l == "" {
			w.t.Fatalf("the output ended before the answer to %s", id)
		}
		var m struct{ ID json.RawMessage }
		json.Unmarshal([]byte(l), &m)
		if string(m.ID) == id && !strings.Contains(l, `"method"`) {
			return l, before
		}
		before = append(before, l)
	}
}

// call sends a request and returns its answer.
func (w *wire) call(id, method, params string) string {
	w.t.Helper()
	w.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"` + method + `","params":` + params + `}`)
	a, _ := w.answer(id)
	return a
}

// close ends the input and returns the lines written after.
func (w *wire) close() []string {
	w.in.Close()
	var rest []string
	for l := range w.out {
		rest = append(rest, l)
	}
	return rest
}

// initialize begins a session of version v with the capabilities caps.
func (w *wire) initialize(v, caps string) string {
	w.t.Helper()
	a := w.call("0", "initialize", `{"protocolVersion":"`+v+`","capabilities":`+caps+`,"clientInfo":{"name":"test","version":"1"}}`)
	w.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return a
}

// stateless returns the params of a 2026-07-28 request with the client's
// capabilities caps and the members rest ("" for none).
func stateless(caps, rest string) string {
	m := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + caps + `}`
	if rest == "" {
		return "{" + m + "}"
	}
	return "{" + m + "," + rest + "}"
}

// result returns the member path of the result of answer a, as JSON.
func result(t *testing.T, a string, path ...string) string {
	t.Helper()
	var m struct {
		Result json.RawMessage
		Error  json.RawMessage
	}
	if err := json.Unmarshal([]byte(a), &m); err != nil || m.Result == nil {
		t.Fatalf("not a result: %s", a)
	}
	v := m.Result
	for _, p := range path {
		var o map[string]json.RawMessage
		json.Unmarshal(v, &o)
		v = o[p]
	}
	return string(v)
}

// code returns the error code of answer a, 0 for a result.
func code(a string) int {
	var m struct {
		Error *struct{ Code int }
	}
	json.Unmarshal([]byte(a), &m)
	if m.Error == nil {
		return 0
	}
	return m.Error.Code
}
