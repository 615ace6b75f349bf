package stream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/framing"
	"github.com/jsonrpc-go/jsonrpc/internal/demo"
	"github.com/jsonrpc-go/jsonrpc/transport"
)

// shutdownAnswer is the error of a request that Shutdown left unstarted.
const shutdownAnswer = `{"jsonrpc":"2.0","error":{"code":-32005,"message":"Limit exceeded","data":"server shutting down"},"id":%d}`

// TestShutdownLosesNoAnswer: a client pipelines 64 calls of a 50 ms method
// and Shutdown runs while they run (and while the client sends more): every
// call is answered, with its result when it started and with the shutdown
// error when it did not, and then the client reads the end of the input, not
// a reset. Ten times in a row, over TCP and Unix sockets, for each ordering.
func TestShutdownLosesNoAnswer(t *testing.T) {
	leakCheck(t)
	for _, tr := range []string{"tcp", "unix"} {
		for _, tc := range []struct {
			name        string
			order       Ordering
			maxInFlight int
		}{
			{"Sequential", Sequential, 0},
			{"Concurrent", Concurrent, 0},
			{"Concurrent/MaxInFlight=16", Concurrent, 16},
		} {
			t.Run(tr+"/"+tc.name, func(t *testing.T) {
				for round := range 10 {
					shutdownRound(t, tr, tc.order, tc.maxInFlight, round)
				}
			})
		}
	}
}

func shutdownRound(t *testing.T, tr string, order Ordering, maxInFlight, round int) {
	t.Helper()
	const n, late = 64, 8
	h := jsonrpc.NewServer()
	started := make(chan int, n+late)
	h.MustRegister("sleep", func(ctx context.Context, i int) (int, error) {
		started <- i
		select {
		case <-time.After(50 * time.Millisecond):
			return i, nil
		case <-ctx.Done():
			return 0, ctx.Err()
		}
	}, jsonrpc.Blocking())
	s := &Server{Server: h, Order: order, Limits: transport.Limits{MaxInFlight: maxInFlight}}
	addr := "127.0.0.1:0"
	if tr == "unix" {
		addr = filepath.Join(t.TempDir(), "s")
	}
	l, err := net.Listen(tr, addr)
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- s.Serve(l) }()
	conn, err := net.Dial(tr, l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	c := newClient(t, conn, framing.Line)
	reqs := make([]string, n)
	for i := range reqs {
		reqs[i] = call("sleep", i, fmt.Sprintf("[%d]", i))
	}
	c.send(reqs...) // one write

	<-started
	shut := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), wait)
		defer cancel()
		shut <- s.Shutdown(ctx)
	}()
	// A client goes on sending while the server shuts down.
	for i := range late {
		reqs[i] = call("sleep", 1000+i, fmt.Sprintf("[%d]", 1000+i))
	}
	lateSent := c.sendAsync(reqs[:late]...)

	answered := map[int]string{}
	conn.SetReadDeadline(time.Now().Add(wait))
	for {
		msg, err := c.r.Read()
		if err != nil {
			if err != io.EOF {
				t.Fatalf("round %d: after %d answers the connection ended with %v, want io.EOF", round, len(answered), err)
			}
			break
		}
		var a struct {
			ID     int
			Result *int
		}
		if err := json.Unmarshal(msg, &a); err != nil {
			t.Fatalf("round %d: answer %s: %v", round, msg, err)
		}
		if _, dup := answered[a.ID]; dup {
			t.Fatalf("round %d: id %d answered twice", round, a.ID)
		}
		answered[a.ID] = string(msg)
		switch {
		case a.Result != nil && *a.Result == a.ID:
		case string(msg) == fmt.Sprintf(shutdownAnswer, a.ID):
		default:
			t.Fatalf("round %d: answer %s, want the call's result or the shutdown error", round, msg)
		}
	}
	results := 0
	for i := range n {
		a, ok := answered[i]
		if !ok {
			t.Fatalf("round %d: id %d not answered (%d answers)", round, i, len(answered))
		}
		if strings.Contains(a, `"result"`) {
			results++
		}
	}
	if results == 0 {
		t.Fatalf("round %d: no call finished", round)
	}
	if order == Sequential {
		// In order: the calls that ran (the one running when Shutdown
		// began, unless it was slow to stop the reading), then the errors.
		for i := range n {
			if strings.Contains(answered[i], `"result"`) != (i < results) {
				t.Fatalf("round %d: under Sequential ordering, %d results and id %d answered %s", round, results, i, answered[i])
			}
		}
	}
	<-lateSent // its error, if any: the server may have closed first
	conn.Close()
	if err := <-shut; err != nil {
		t.Fatalf("round %d: Shutdown = %v", round, err)
	}
	if err := <-served; err != ErrServerClosed {
		t.Fatalf("round %d: Serve = %v", round, err)
	}
}

// stopSpy is a connection that reports when the server stops reading it:
// Shutdown sets a read deadline in the past.
type stopSpy struct {
	net.Conn
	stopped chan struct{}
}

func (c *stopSpy) SetReadDeadline(t time.Time) error {
	if !t.IsZero() && t.Before(time.Unix(2, 0)) {
		select {
		case <-c.stopped:
		default:
			close(c.stopped)
		}
	}
	return c.Conn.SetReadDeadline(t)
}

func (c *stopSpy) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return errors.ErrUnsupported
}

// TestShutdownRefusesRead: requests read but not started when Shutdown
// stops the reading are answered with the shutdown error and their ids, on
// every framing and transport: a request, a batch (one error per request
// with an id), and nothing for a notification; the call running is
// answered with its result first.
func TestShutdownRefusesRead(t *testing.T) {
	leakCheck(t)
	for _, tr := range transports {
		for _, fr := range framings {
			t.Run(tr+"/"+fr.name, func(t *testing.T) {
				b := newBlockingServer(t)
				s := &Server{Server: b.h, Framing: fr.f, Order: Sequential}
				cc, sc := spyPair(t, tr)
				done := make(chan error, 1)
				go func() { done <- s.ServeConn(context.Background(), sc) }()
				c := newClient(t, cc, fr.f)
				sent := c.sendAsync(call("wait", 1, "[1]"), call("add", 2, "[1,1]"),
					`{"jsonrpc":"2.0","method":"add","params":[1,1]}`,
					`[`+call("add", 3, "[1,1]")+`,{"jsonrpc":"2.0","method":"add","params":[1]},`+call("wait", 4, "[4]")+`]`,
					call("add", 5, "[1,1]"))
				b.awaitStarted(t, 1)
				if err := <-sent; err != nil {
					t.Fatal(err)
				}
				shut := make(chan error, 1)
				go func() { shut <- s.Shutdown(context.Background()) }()
				select {
				case <-sc.stopped:
				case <-timeAfter(t):
					t.Fatal("Shutdown did not stop the reading")
				}
				close(b.release)
				for _, want := range []string{
					`{"jsonrpc":"2.0","result":1,"id":1}`,
					fmt.Sprintf(shutdownAnswer, 2),
					`[` + fmt.Sprintf(shutdownAnswer, 3) + `,` + fmt.Sprintf(shutdownAnswer, 4) + `]`,
					fmt.Sprintf(shutdownAnswer, 5),
				} {
					if got := c.recv(); got != want {
						t.Fatalf("got  %s\nwant %s", got, want)
					}
				}
				c.expectEOF()
				c.conn.Close()
				if err := <-shut; err != nil {
					t.Fatalf("Shutdown = %v", err)
				}
				if err := <-done; err != ErrServerClosed {
					t.Fatalf("ServeConn = %v", err)
				}
			})
		}
	}
}

// spyPair returns the two ends of a connection over the transport, the
// server's end wrapped in a stopSpy.
func spyPair(t *testing.T, tr string) (net.Conn, *stopSpy) {
	t.Helper()
	cc, sc := connPair(t, tr)
	t.Cleanup(func() { cc.Close(); sc.Close() })
	return cc, &stopSpy{Conn: sc, stopped: make(chan struct{})}
}

// TestLingerBounded: a peer that goes on sending, and never closes, holds a
// connection that Shutdown closes for LingerTimeout at most.
func TestLingerBounded(t *testing.T) {
	leakCheck(t)
	s := &Server{Server: demo.NewServer(), LingerTimeout: 50 * time.Millisecond}
	dial := serverOn(t, s, "tcp")
	c := newClient(t, dial(), framing.Line)
	c.send(call("Test2", 1, "[1]"))
	c.recv()
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			c.conn.SetWriteDeadline(time.Now().Add(wait))
			if _, err := c.conn.Write([]byte("  \n")); err != nil {
				return
			}
		}
	}()
	start := time.Now()
	if err := s.Shutdown(context.Background()); err != nil {
		t.Fatalf("Shutdown = %v", err)
	}
	if d := time.Since(start); d > wait/2 {
		t.Fatalf("Shutdown took %v with a peer that never stops sending", d)
	}
}
