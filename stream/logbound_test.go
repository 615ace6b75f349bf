package stream

import (
	"bufio"
	"context"
	"net"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/internal/ratelog"
	"github.com/jsonrpc-go/jsonrpc/internal/testutil"
	"github.com/jsonrpc-go/jsonrpc/transport"
)

// Input that makes the server log a warning each time cannot make the log
// grow past its bound: a connection sending lines that are not JSON, and
// lines over MaxMessage, a thousand of each, gets every answer, and the
// log holds ratelog's burst of each record and, at the interval's end, the
// count of the rest, as jsonrpcd logs with one logger for the server and
// the host. Before, it held a record for each line (issue 25: 2 MB of junk
// lines wrote a million warnings).
func TestLogBounded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		logger, log := testutil.NewLog()
		s := &Server{Server: jsonrpc.NewServer(jsonrpc.UseLogger(logger)), Logger: logger, Limits: transport.Limits{MaxMessage: 64}}
		c, peer := net.Pipe()
		served := make(chan error, 1)
		go func() { served <- s.ServeConn(context.Background(), c) }()
		const n = 1000
		go func() {
			w := bufio.NewWriter(peer)
			for range n {
				w.WriteString("x\n")
				w.WriteString(`{"jsonrpc":"2.0","method":"echo","params":["` + strings.Repeat("x", 100) + `"],"id":1}` + "\n")
			}
			w.Flush()
		}()
		r := bufio.NewReader(peer)
		for range 2 * n {
			if _, err := r.ReadString('\n'); err != nil {
				t.Fatalf("reading the answers: %v", err)
			}
		}
		for _, msg := range []string{"parse error", "message too large"} {
			if got := len(log.Find(t, msg)); got != ratelog.DefaultBurst {
				t.Errorf("%d records %q for %d lines, want %d", got, msg, n, ratelog.DefaultBurst)
			}
		}
		time.Sleep(ratelog.DefaultInterval)
		synctest.Wait()
		counts := map[string]any{}
		for _, rec := range log.Find(t, ratelog.DroppedMessage) {
			counts[rec["message"].(string)] = rec["dropped"]
		}
		for _, msg := range []string{"parse error", "message too large"} {
			if got, want := counts[msg], float64(n-ratelog.DefaultBurst); got != want {
				t.Errorf("the count of %q: %v, want %v (counts %v)", msg, got, want, counts)
			}
		}
		peer.Close()
		<-served
	})
}
