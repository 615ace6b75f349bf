package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/internal/testutil"
)

// wait bounds every wait of these tests; nothing passes or fails by a
// shorter time.
const wait = 15 * time.Second

// serving is serveNetwork running a test's server on ephemeral loopback
// ports.
type serving struct {
	httpAddr, tcpAddr string        // host:port of each listener
	fastHTTPAddr      string        // host:port of -fasthttp's, when asked for
	wsURL             string        // ws://host:port/ws
	shuttingDown      chan struct{} // closed when serveNetwork says it is shutting down
	done              chan int      // serveNetwork's status
	cancel            context.CancelFunc
	errOut            *testutil.Buffer
}

// startServing parses the command line as jsonrpcd does, with both
// listeners on ephemeral loopback ports unless args say otherwise, and
// serves srv with it until the test ends or s.cancel is called.
func startServing(t *testing.T, srv *jsonrpc.Server, args ...string) *serving {
	t.Helper()
	return startServingWith(t, srv, nil, args...)
}

// startServingWith is startServing with set, when not nil, changing the
// configuration the flags give.
func startServingWith(t *testing.T, srv *jsonrpc.Server, set func(*config), args ...string) *serving {
	t.Helper()
	cfg, status, ok := parseFlags(append([]string{"-http", "127.0.0.1:0", "-tcp", "127.0.0.1:0"}, args...), io.Discard)
	if !ok {
		t.Fatalf("flags %q: status %d", args, status)
	}
	if set != nil {
		set(&cfg)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &serving{shuttingDown: make(chan struct{}), done: make(chan int, 1), cancel: cancel, errOut: &testutil.Buffer{}}
	pr, pw := io.Pipe()
	go func() {
		s.done <- serveNetwork(ctx, srv, cfg, pw, s.errOut, nil)
		pw.Close()
	}()
	ready := make(chan struct{})
	go func() {
		lines := bufio.NewScanner(pr)
		want := 0
		if cfg.httpAddr != "" {
			want++
			if cfg.ws {
				want++
			}
		}
		if cfg.tcpAddr != "" {
			want++
		}
		if cfg.fastHTTPAddr != "" {
			want++
		}
		for lines.Scan() {
			line := lines.Text()
			f := strings.Fields(line)
			switch {
			case strings.HasPrefix(line, "jsonrpcd: HTTP on "):
				s.httpAddr = strings.TrimSuffix(strings.TrimPrefix(f[len(f)-1], "http://"), "/")
				want--
			case strings.HasPrefix(line, "jsonrpcd: WebSocket on "):
				s.wsURL = f[len(f)-1]
				want--
			case strings.HasPrefix(line, "jsonrpcd: HTTP (fasthttp) on "):
				s.fastHTTPAddr = strings.TrimSuffix(strings.TrimPrefix(f[len(f)-1], "http://"), "/")
				want--
			case strings.HasPrefix(line, "jsonrpcd: TCP"):
				s.tcpAddr = f[len(f)-1]
				want--
			case line == "jsonrpcd: shutting down":
				close(s.shuttingDown)
			}
			if want == 0 {
				close(ready)
				want = -1
			}
		}
		io.Copy(io.Discard, pr)
	}()
	select {
	case <-ready:
	case code := <-s.done:
		t.Fatalf("serveNetwork returned %d before listening: %s", code, s.errOut)
	case <-time.After(wait):
		t.Fatal("serveNetwork does not say where it listens")
	}
	t.Cleanup(func() {
		cancel()
		select {
		case <-s.done:
		case <-time.After(wait):
			t.Error("serveNetwork does not return")
		}
	})
	return s
}

// stop cancels the context as a signal would and returns serveNetwork's
// status and how long it took to return.
func (s *serving) stop(t *testing.T) (status int, took time.Duration) {
	t.Helper()
	start := time.Now()
	s.cancel()
	select {
	case status = <-s.done:
		s.done <- status // for the cleanup
		return status, time.Since(start)
	case <-time.After(wait):
		t.Fatalf("serveNetwork still runs %v after its context ended", wait)
		return 0, 0
	}
}

// call is a JSON-RPC request with one string param.
func call(method, param, id string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","method":%q,"params":[%q],"id":%q}`, method, param, id)
}

// resultOf decodes a response whose result and id are strings.
func resultOf(b []byte) (result, id string, err error) {
	var r struct {
		Result *string
		ID     string
		Error  *jsonrpc.Error
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return "", "", fmt.Errorf("%w: %s", err, b)
	}
	if r.Error != nil || r.Result == nil {
		return "", r.ID, fmt.Errorf("not a result: %s", b)
	}
	return *r.Result, r.ID, nil
}

// postRequest is an HTTP/1.1 POST of body to /, as pipelined clients write it.
func postRequest(body string) string {
	return "POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: " +
		fmt.Sprint(len(body)) + "\r\n\r\n" + body
}

// readHTTPAnswer reads one response and returns its body; a status other
// than 200 is an error.
func readHTTPAnswer(br *bufio.Reader) ([]byte, error) {
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		return nil, err
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return b, fmt.Errorf("status %d: %s", resp.StatusCode, b)
	}
	return b, nil
}

// readHTTPAnswers reads the responses of a connection until it ends, and
// returns their bodies.
func readHTTPAnswers(c net.Conn) (bodies [][]byte, err error) {
	br := bufio.NewReader(c)
	for {
		b, err := readHTTPAnswer(br)
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return bodies, nil
		}
		if err != nil {
			return bodies, err
		}
		bodies = append(bodies, b)
	}
}

// readLines reads the lines of a connection until it ends.
func readLines(c net.Conn) (lines [][]byte, err error) {
	br := bufio.NewReader(c)
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 && err == nil {
			lines = append(lines, bytes.TrimSuffix(line, []byte("\n")))
		}
		if err == io.EOF {
			return lines, nil
		}
		if err != nil {
			return lines, err
		}
	}
}

// -memory-limit is in MiB, 192 by default, and 0 leaves the runtime's.
func TestMemoryLimitFlag(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want int64
	}{
		{nil, 192},
		{[]string{"-memory-limit", "64"}, 64},
		{[]string{"-memory-limit", "0"}, 0},
	} {
		cfg, _, ok := parseFlags(tt.args, io.Discard)
		if !ok || cfg.memoryLimit != tt.want {
			t.Errorf("parseFlags(%q): memory limit %d (ok %v), want %d", tt.args, cfg.memoryLimit, ok, tt.want)
		}
	}
}
