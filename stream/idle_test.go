package stream

import (
	"bufio"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/jsonrpc-go/jsonrpc/internal/demo"
	"github.com/jsonrpc-go/jsonrpc/internal/testutil"
)

// TestIdleConnectionHeap: a connection that has sent nothing holds a few
// KiB of heap, not its buffers' busy size. With 32 KiB read and write
// buffers from the start, 4096 idle connections held 290 MB of heap, past
// jsonrpcd's memory limit, and its collector ran without end.
func TestIdleConnectionHeap(t *testing.T) {
	if testing.Short() {
		t.Skip("opens 400 connections")
	}
	// A connection that was busy (a 20 KB request and its 20 KB answer)
	// and now waits holds no more: its busy buffers went back to the pool.
	warm := `{"jsonrpc":"2.0","method":"echo","params":["` + strings.Repeat("x", 20<<10) + `"],"id":1}` + "\n"
	for _, tc := range []struct {
		name, first string
	}{
		{"never used", ""},
		{"busy once", warm},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dial := serverOn(t, &Server{Server: demo.NewServer()}, "tcp")
			const n = 200
			var conns []net.Conn
			for range n {
				c := dial()
				conns = append(conns, c)
				if tc.first != "" {
					roundTrip(t, c, tc.first)
				}
			}
			// Every connection served: an answer on the last proves the
			// others were accepted before it.
			roundTrip(t, conns[n-1], `{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`+"\n")
			time.Sleep(50 * time.Millisecond) // the other read loops park
			with := testutil.LiveHeap()
			for _, c := range conns {
				c.Close()
			}
			time.Sleep(200 * time.Millisecond) // the server's ends see EOF and close
			per := (int64(with) - int64(testutil.LiveHeap())) / n
			t.Logf("%d bytes of heap per idle connection (client and server ends)", per)
			if raceEnabled && tc.first != "" {
				// Under the race detector the figure is about 24 KiB:
				// every buffer taken from busyBufs has been given back (a
				// count of them showed 0), but the pool's buffers stay
				// reachable after two collections there. The bound is
				// checked without it.
				return
			}
			if per > 16<<10 {
				t.Errorf("%d bytes of heap per idle connection, want at most 16 KiB", per)
			}
		})
	}
}

// roundTrip writes req on c and reads its answer, a line.
func roundTrip(t *testing.T, c net.Conn, req string) {
	t.Helper()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(c, req); err != nil {
		t.Fatal(err)
	}
	if _, err := bufio.NewReaderSize(c, 64<<10).ReadBytes('\n'); err != nil {
		t.Fatal(err)
	}
}
