package main

import (
	"bufio"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestSharedBudget: the listeners of jsonrpcd share one budget of large
// messages (-max-buffered). While a TCP connection holds most of it with a
// message it has not finished sending, a large HTTP request finds no room
// (503); once that connection is gone, the same request is served. With a
// budget of its own for each listener, the request would be served all
// along. All the connections here are of one client (127.0.0.1), whose
// share is all of the budget.
func TestSharedBudget(t *testing.T) {
	r := startRun(t, "-max-buffered", "350000", "-max-buffered-per-client", "350000")
	echo := func(n int) string {
		return `{"jsonrpc":"2.0","method":"echo","params":["` + strings.Repeat("x", n) + `"],"id":1}`
	}
	postStatus := func() int {
		resp, err := (&http.Client{Timeout: wait}).Post(r.addr["http"], "application/json", strings.NewReader(echo(200_000)))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	// hold sends all but the end of a message over a new TCP connection.
	// The stream host takes twice a message's bytes past 64 KiB (its
	// buffer grows by doubling): about 270 kB of the 350 kB for this one,
	// so that a body of 200 kB over HTTP, which needs about 135 kB, finds
	// no room beside it, and plenty alone. What the server answers on the
	// connection comes on lines.
	hold := func() (net.Conn, <-chan string) {
		c, err := net.DialTimeout("tcp", r.addr["tcp"], wait)
		if err != nil {
			t.Fatal(err)
		}
		msg := echo(200_000)
		if _, err := c.Write([]byte(msg[:len(msg)-10])); err != nil {
			t.Fatal(err)
		}
		lines := make(chan string, 1)
		go func() {
			if line, err := bufio.NewReader(c).ReadString('\n'); err == nil {
				lines <- line
			}
		}()
		return c, lines
	}

	c, lines := hold()
	for deadline := time.Now().Add(wait); ; time.Sleep(5 * time.Millisecond) {
		status := postStatus()
		if status == http.StatusServiceUnavailable {
			break
		}
		select {
		case line := <-lines:
			// A POST held its room while the TCP message arrived, and
			// the message was refused: send it again.
			if !strings.Contains(line, "server busy") {
				t.Fatalf("the TCP connection was answered %.100s", line)
			}
			c.Close()
			c, lines = hold()
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("while a TCP message of 200 kB is held, a POST of 200 kB answered %d, want 503", status)
		}
	}
	c.Close()
	for deadline := time.Now().Add(wait); ; time.Sleep(5 * time.Millisecond) {
		status := postStatus()
		if status == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("once the TCP connection is gone, a POST of 200 kB answered %d, want 200", status)
		}
	}
}
