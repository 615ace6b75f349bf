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
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/internal/testutil"
)

// TestSIGTERM is the shutdown end to end: jsonrpcd built and run as a
// process, ten connections on each of TCP, HTTP and WebSocket, ten calls
// of sleep pipelined on each, and SIGTERM while they run, once the server
// has read every call of the TCP and WebSocket connections (a call of add
// after them is answered, on the read loop, only once they are
// dispatched). Every call is answered and its answer received: with its
// result when it started, with -32005 "server shutting down" when it was
// read and not started; over HTTP/1.1, where a connection runs one request
// at a time, the requests after the last answer were never read, and that
// answer says "Connection: close", unless it was written before the
// shutdown began (net/http then closes the connection without reading
// on, which HTTP/1.1 allows). Every TCP and HTTP connection ends with the
// server's FIN, never a reset, every WebSocket with a close frame (1001,
// going away), and the process exits 0 within its shutdown bound. Ten
// runs.
//
// SIGTERM came 150 ms after the calls were written, which a loaded machine
// did not hold to: the answer of an HTTP connection's first call, written
// before the shutdown, had no "Connection: close", and calls not yet read
// would have been unanswered.
func TestSIGTERM(t *testing.T) {
	testutil.SkipOnJS(t, "starts jsonrpcd as a process")
	if testing.Short() {
		t.Skip("ten runs of a process's shutdown")
	}
	bin := testutil.Build(t, ".", "jsonrpcd")
	var total sigtermCounts
	for run := range 10 {
		c := sigtermRun(t, bin, run)
		if t.Failed() {
			t.Fatalf("run %d failed", run)
		}
		total.add(c)
	}
	t.Logf("10 runs: %d calls answered with their result, %d refused as not started, %d never read (HTTP, and TCP after SIGTERM; %d HTTP connections closed after an answer written before the shutdown); exits %v to %v after SIGTERM",
		total.results, total.refused, total.unread, total.closedAfter, total.fastest, total.slowest)
}

// sigtermCounts is what happened to the calls of a run.
type sigtermCounts struct {
	results, refused, unread int
	closedAfter              int           // HTTP connections closed after an answer without "Connection: close"
	fastest, slowest         time.Duration // from SIGTERM to the exit
}

func (c *sigtermCounts) add(o sigtermCounts) {
	c.results += o.results
	c.refused += o.refused
	c.unread += o.unread
	c.closedAfter += o.closedAfter
	if c.fastest == 0 || o.fastest < c.fastest {
		c.fastest = o.fastest
	}
	c.slowest = max(c.slowest, o.slowest)
}

// Each connection pipelines calls sleep(200), sleep(240), ... sleep(560)
// (and a TCP connection goes on after SIGTERM: sleep(600), sleep(640),
// ...); SIGTERM comes once every TCP and WebSocket connection has had the
// answer to readMark, which it sends after its calls.
const (
	sigtermConns = 10
	sigtermCalls = 10
	maxCalls     = 1000 // on a TCP connection, which goes on calling
)

// readMark is the call a connection sends after its calls of sleep: add,
// which is not Blocking, is answered on the connection's read loop, once
// the calls before it have been read and dispatched.
const readMark = `{"jsonrpc":"2.0","method":"add","params":[0,0],"id":"read"}`

// isReadMark reports whether msg is the answer to readMark.
func isReadMark(msg []byte) bool {
	var r struct{ ID any }
	return json.Unmarshal(msg, &r) == nil && r.ID == "read"
}

func sleepMS(i int) int { return 200 + 40*i }

func sigtermRun(t *testing.T, bin string, run int) sigtermCounts {
	cmd := exec.Command(bin, "-http", "127.0.0.1:0", "-tcp", "127.0.0.1:0")
	var stderr testutil.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	defer func() {
		cmd.Process.Kill()
		<-exited
	}()
	httpAddr, tcpAddr, err := listening(stdout)
	go func() { io.Copy(io.Discard, stdout); exited <- cmd.Wait() }()
	if err != nil {
		t.Fatalf("run %d: %v\n%s", run, err, stderr.String())
	}

	type outcome struct {
		proto       string
		answers     map[int]answer // by call
		unread      int
		closedAfter bool // HTTP: closed after an answer without "Connection: close"
		err         error
	}
	outcomes := make(chan outcome, 3*sigtermConns)
	var wg sync.WaitGroup
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	var marked sync.WaitGroup // a connection's readMark not yet answered
	termed := make(chan struct{})
	for c := range sigtermConns {
		tc, err := net.DialTimeout("tcp", tcpAddr, wait)
		if err != nil {
			t.Fatal(err)
		}
		hc, err := net.DialTimeout("tcp", httpAddr, wait)
		if err != nil {
			t.Fatal(err)
		}
		wc, _, err := websocket.Dial(ctx, "ws://"+httpAddr+"/ws", nil)
		if err != nil {
			t.Fatal(err)
		}
		var lines, posts strings.Builder
		for i := range sigtermCalls {
			req := sleepCall(i)
			lines.WriteString(req + "\n")
			posts.WriteString(postRequest(req))
			if err := wc.Write(ctx, websocket.MessageText, []byte(req)); err != nil {
				t.Fatal(err)
			}
		}
		lines.WriteString(readMark + "\n")
		if err := wc.Write(ctx, websocket.MessageText, []byte(readMark)); err != nil {
			t.Fatal(err)
		}
		marked.Add(2) // TCP's and WebSocket's
		tc.SetDeadline(time.Now().Add(wait))
		hc.SetDeadline(time.Now().Add(wait))
		if _, err := io.WriteString(tc, lines.String()); err != nil {
			t.Fatal(err)
		}
		if _, err := io.WriteString(hc, posts.String()); err != nil {
			t.Fatal(err)
		}
		// The TCP client goes on pipelining a call every 10 ms from
		// SIGTERM until the server closes: the calls it writes after the
		// server stopped reading are never read, and must not turn the
		// close into a reset.
		read := make(chan struct{})
		var sent atomic.Int64
		sent.Store(sigtermCalls)
		wg.Go(func() {
			select {
			case <-read:
				return
			case <-termed:
			}
			for i := sigtermCalls; i < maxCalls; i++ {
				select {
				case <-read:
					return
				case <-time.After(10 * time.Millisecond):
				}
				if _, err := io.WriteString(tc, sleepCall(i)+"\n"); err != nil {
					return
				}
				sent.Add(1)
			}
		})
		wg.Go(func() {
			defer tc.Close()
			a, err := readLinesMarked(tc, marked.Done)
			close(read)
			o := outcome{proto: fmt.Sprintf("TCP connection %d", c), err: err}
			if o.answers, o.err = answersOf(a, err); o.err == nil {
				o.unread = int(sent.Load()) - len(a)
				for i := range sigtermCalls {
					if _, ok := o.answers[i]; !ok {
						o.err = fmt.Errorf("call %d, written before SIGTERM, is not answered", i)
					}
				}
			}
			outcomes <- o
		})
		wg.Go(func() {
			defer hc.Close()
			a, closing, err := readHTTPInOrder(hc)
			o := outcome{proto: fmt.Sprintf("HTTP connection %d", c)}
			if o.answers, o.err = answersOf(a, err); o.err == nil {
				o.unread = sigtermCalls - len(a)
				// Unread requests, and a last answer without
				// "Connection: close": it was written before the
				// shutdown began, and net/http closed the connection,
				// idle, before it read the next one.
				o.closedAfter = o.unread > 0 && !closing
				for i := range a {
					if _, ok := o.answers[i]; !ok {
						o.err = fmt.Errorf("answers out of order: %q", a)
					}
				}
			}
			outcomes <- o
		})
		wg.Go(func() {
			defer wc.CloseNow()
			var a [][]byte
			var err error
			mark := marked.Done
			for {
				var b []byte
				if _, b, err = wc.Read(ctx); err != nil {
					break
				}
				if mark != nil && isReadMark(b) {
					mark()
					mark = nil
					continue
				}
				a = append(a, b)
			}
			if mark != nil {
				mark() // the connection ended without the answer: answersOf says why
			}
			o := outcome{proto: fmt.Sprintf("WebSocket connection %d", c)}
			if websocket.CloseStatus(err) == websocket.StatusGoingAway {
				err = nil
			} else {
				err = fmt.Errorf("ended without a close frame (1001): %w", err)
			}
			o.answers, o.err = answersOf(a, err)
			outcomes <- o
		})
	}

	allMarked := make(chan struct{})
	go func() { marked.Wait(); close(allMarked) }()
	select {
	case <-allMarked:
	case <-time.After(wait):
		t.Fatalf("run %d: the calls of every TCP and WebSocket connection not read in %v", run, wait)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	termedAt := time.Now()
	close(termed)
	var took time.Duration
	select {
	case err := <-exited:
		took = time.Since(termedAt)
		exited <- err
		if err != nil {
			t.Errorf("run %d: jsonrpcd exited with %v after SIGTERM:\n%s", run, err, stderr.String())
		}
	case <-time.After(defaultShutdownTimeout + wait):
		t.Fatalf("run %d: jsonrpcd still runs %v after SIGTERM", run, defaultShutdownTimeout+wait)
	}
	if took > defaultShutdownTimeout {
		t.Errorf("run %d: jsonrpcd exited %v after SIGTERM, past its bound of %v", run, took, defaultShutdownTimeout)
	}
	wg.Wait()
	close(outcomes)

	counts := sigtermCounts{fastest: took, slowest: took}
	for o := range outcomes {
		if o.err != nil {
			t.Errorf("run %d: %s: %v", run, o.proto, o.err)
			continue
		}
		if !strings.HasPrefix(o.proto, "TCP") && len(o.answers)+o.unread != sigtermCalls {
			t.Errorf("run %d: %s: %d calls answered and %d unread, of %d", run, o.proto, len(o.answers), o.unread, sigtermCalls)
		}
		for _, a := range o.answers {
			if a.refused {
				counts.refused++
			} else {
				counts.results++
			}
		}
		counts.unread += o.unread
		if o.closedAfter {
			counts.closedAfter++
		}
	}
	if counts.results == 0 {
		t.Errorf("run %d: no call was in flight at SIGTERM", run)
	}
	return counts
}

// sleepCall is the i-th call of a connection; its id is i.
func sleepCall(i int) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","method":"sleep","params":[%d],"id":%d}`, sleepMS(i), i)
}

// An answer is a call's: its result, or refused as not started.
type answer struct{ refused bool }

// answersOf checks the answers of a connection, read until it ended with
// err: each answers a call of sleepCall once, with its result or as not
// started at shutdown.
func answersOf(raw [][]byte, err error) (map[int]answer, error) {
	if err != nil {
		return nil, fmt.Errorf("after %d answers: %w", len(raw), err)
	}
	out := map[int]answer{}
	for _, b := range raw {
		var r struct {
			ID     *int
			Result *int
			Error  *jsonrpc.Error
		}
		if err := json.Unmarshal(b, &r); err != nil || r.ID == nil || *r.ID < 0 || *r.ID >= maxCalls {
			return nil, fmt.Errorf("answer %s", b)
		}
		if _, dup := out[*r.ID]; dup {
			return nil, fmt.Errorf("call %d answered twice", *r.ID)
		}
		switch {
		case r.Result != nil && *r.Result == sleepMS(*r.ID):
			out[*r.ID] = answer{}
		case r.Error != nil && r.Error.Code == jsonrpc.CodeLimitExceeded && string(r.Error.Data) == `"server shutting down"`:
			out[*r.ID] = answer{refused: true}
		default:
			return nil, fmt.Errorf("answer %s", b)
		}
	}
	return out, nil
}

// readLinesMarked is readLines, with mark called when the answer to
// readMark arrives, which is left out of the lines, or when the
// connection ends without it.
func readLinesMarked(c net.Conn, mark func()) (lines [][]byte, err error) {
	defer func() {
		if mark != nil {
			mark()
		}
	}()
	br := bufio.NewReader(c)
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 && err == nil {
			line = bytes.TrimSuffix(line, []byte("\n"))
			if mark != nil && isReadMark(line) {
				mark()
				mark = nil
				continue
			}
			lines = append(lines, line)
		}
		if err == io.EOF {
			return lines, nil
		}
		if err != nil {
			return lines, err
		}
	}
}

// readHTTPInOrder reads a connection's responses until the server closes
// it, and returns their bodies and whether the last said Connection:
// close. A reset is an error.
func readHTTPInOrder(c net.Conn) (bodies [][]byte, closing bool, err error) {
	br := bufio.NewReader(c)
	for {
		if _, err := br.Peek(1); err == io.EOF {
			return bodies, closing, nil
		} else if err != nil {
			return bodies, closing, err
		}
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			return bodies, closing, err
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return bodies, closing, err
		}
		if resp.StatusCode != http.StatusOK {
			return bodies, closing, fmt.Errorf("status %d: %s", resp.StatusCode, b)
		}
		bodies = append(bodies, b)
		closing = resp.Close
	}
}

// listening reads jsonrpcd's standard output until it has said where it
// serves HTTP and TCP.
func listening(stdout io.Reader) (httpAddr, tcpAddr string, err error) {
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		line := sc.Text()
		if a, ok := strings.CutPrefix(line, "jsonrpcd: HTTP on http://"); ok {
			httpAddr = strings.TrimSuffix(a, "/")
		}
		if a, ok := strings.CutPrefix(line, "jsonrpcd: TCP (newline-delimited) on "); ok {
			tcpAddr = a
		}
		if httpAddr != "" && tcpAddr != "" {
			return httpAddr, tcpAddr, nil
		}
	}
	return "", "", fmt.Errorf("jsonrpcd ended its output without saying where it listens (%v)", sc.Err())
}
