package stream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/framing"
	"github.com/jsonrpc-go/jsonrpc/internal/demo"
	"github.com/jsonrpc-go/jsonrpc/internal/testutil"
	"github.com/jsonrpc-go/jsonrpc/transport"
)

// sentinel is sent after each request that expects no response: its
// response must be the next one.
var sentinel = call("Test2", 777, "[1]")

// TestSpecExamples replays the specification's examples over every
// transport and framing: responses, batches, and notifications (checked by
// the sentinel request that follows them).
func TestSpecExamples(t *testing.T) {
	leakCheck(t)
	transcripts := map[string][]testutil.Exchange{}
	for _, file := range testutil.TranscriptFiles(t) {
		transcripts[filepath.Base(file)] = testutil.ReadTranscript(t, file)
	}
	for _, tr := range transports {
		for _, fr := range framings {
			for _, order := range []Ordering{Ordered, Sequential, Concurrent} {
				t.Run(fmt.Sprint(tr, "/", fr.name, "/", order), func(t *testing.T) {
					dial := serverOn(t, &Server{Server: demo.NewServer(), Framing: fr.f, Order: order}, tr)
					c := newClient(t, dial(), fr.f)
					for file, exs := range transcripts {
						for _, ex := range exs {
							if fr.f == framing.Raw && !json.Valid([]byte(ex.Req)) {
								// Raw finds a message's end from its
								// syntax; invalid JSON has no end.
								continue
							}
							c.send(ex.Req)
							if ex.Want == "" {
								c.send(sentinel)
								if got := c.recv(); idOf(t, got) != "777" {
									t.Fatalf("%s: request %s: got %s, want no response", file, ex.Req, got)
								}
								continue
							}
							if got := c.recv(); !sameJSON(t, got, ex.Want) {
								t.Errorf("%s: request %s\n got %s\nwant %s", file, ex.Req, got, ex.Want)
							}
						}
					}
				})
			}
		}
	}
}

// TestPipelined sends many requests in one write and checks that each is
// answered, in order under Sequential ordering.
func TestPipelined(t *testing.T) {
	leakCheck(t)
	for _, tr := range transports {
		for _, fr := range framings {
			t.Run(tr+"/"+fr.name, func(t *testing.T) {
				dial := serverOn(t, &Server{Server: demo.NewServer(), Framing: fr.f}, tr)
				c := newClient(t, dial(), fr.f)
				const n = 500
				reqs := make([]string, n)
				for i := range reqs {
					reqs[i] = call("addInt", i, fmt.Sprintf("[%d,1]", i))
				}
				sent := c.sendAsync(reqs...)
				for i := range n {
					want := fmt.Sprintf(`{"jsonrpc":"2.0","result":%d,"id":%d}`, i+1, i)
					if got := c.recv(); got != want {
						t.Fatalf("response %d = %s, want %s", i, got, want)
					}
				}
				if err := <-sent; err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}

// blockingServer has a Blocking method "wait" that returns its param once
// release is closed (or its context ends), and reports on started when it
// begins; "add" is an ordinary method.
type blockingServer struct {
	h       *jsonrpc.Server
	started chan int
	release chan struct{}
	ended   chan error // the context error "wait" saw, or nil
}

func newBlockingServer(t *testing.T) *blockingServer {
	b := &blockingServer{
		h:       jsonrpc.NewServer(),
		started: make(chan int, 100),
		release: make(chan struct{}),
		ended:   make(chan error, 100),
	}
	b.h.MustRegister("wait", func(ctx context.Context, n int) (int, error) {
		b.started <- n
		select {
		case <-b.release:
			b.ended <- nil
			return n, nil
		case <-ctx.Done():
			b.ended <- ctx.Err()
			return 0, ctx.Err()
		}
	}, jsonrpc.Blocking())
	b.h.MustRegister("add", func(a, b int) int { return a + b })
	return b
}

func (b *blockingServer) awaitStarted(t *testing.T, want int) {
	t.Helper()
	select {
	case n := <-b.started:
		if n != want {
			t.Fatalf("wait(%d) started, want wait(%d)", n, want)
		}
	case <-timeAfter(t):
		t.Fatalf("wait(%d) did not start", want)
	}
}

func TestConcurrentOutOfOrder(t *testing.T) {
	leakCheck(t)
	for _, tr := range transports {
		t.Run(tr, func(t *testing.T) {
			b := newBlockingServer(t)
			dial := serverOn(t, &Server{Server: b.h, Order: Concurrent}, tr)
			c := newClient(t, dial(), framing.Line)
			c.send(call("wait", 1, "[1]"))
			b.awaitStarted(t, 1)
			c.send(call("add", 2, "[2,3]"))
			if got, want := c.recv(), `{"jsonrpc":"2.0","result":5,"id":2}`; got != want {
				t.Fatalf("first response %s, want %s", got, want)
			}
			close(b.release)
			if got, want := c.recv(), `{"jsonrpc":"2.0","result":1,"id":1}`; got != want {
				t.Fatalf("second response %s, want %s", got, want)
			}
		})
	}
}

func TestSequentialInOrder(t *testing.T) {
	leakCheck(t)
	for _, tr := range transports {
		t.Run(tr, func(t *testing.T) {
			b := newBlockingServer(t)
			dial := serverOn(t, &Server{Server: b.h, Order: Sequential}, tr)
			c := newClient(t, dial(), framing.Line)
			sent := c.sendAsync(call("wait", 1, "[1]"), call("add", 2, "[2,3]"), `[`+call("wait", 3, "[3]")+`,`+call("add", 4, "[1,1]")+`]`)
			b.awaitStarted(t, 1)
			close(b.release)
			for _, want := range []string{
				`{"jsonrpc":"2.0","result":1,"id":1}`,
				`{"jsonrpc":"2.0","result":5,"id":2}`,
				`[{"jsonrpc":"2.0","result":2,"id":4},{"jsonrpc":"2.0","result":3,"id":3}]`,
			} {
				if got := c.recv(); got != want {
					t.Fatalf("got %s, want %s", got, want)
				}
			}
			if err := <-sent; err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestCancelOnClose: closing the client side cancels a waiting method's
// context, under both orderings: under Sequential ordering the connection reads
// ahead while the call waits.
func TestCancelOnClose(t *testing.T) {
	leakCheck(t)
	eachOrderAndTransport(t, func(t *testing.T, order Ordering, tr string) {
		b := newBlockingServer(t)
		dial := serverOn(t, &Server{Server: b.h, Order: order}, tr)
		conn := dial()
		c := newClient(t, conn, framing.Line)
		c.send(call("wait", 1, "[1]"))
		b.awaitStarted(t, 1)
		conn.Close()
		select {
		case err := <-b.ended:
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("wait ended with %v, want context.Canceled", err)
			}
		case <-timeAfter(t):
			t.Fatal("closing the connection did not cancel the call")
		}
	})
}

// TestSequentialReadAhead: under Sequential ordering, a request read while a call
// waits is answered after it, in order, and a message over the limit read
// meanwhile is answered in its turn without cancelling the call.
func TestSequentialReadAhead(t *testing.T) {
	leakCheck(t)
	for _, tr := range transports {
		t.Run(tr, func(t *testing.T) {
			b := newBlockingServer(t)
			dial := serverOn(t, &Server{Server: b.h, Order: Sequential, Limits: transport.Limits{MaxMessage: 256}}, tr)
			c := newClient(t, dial(), framing.Line)
			c.send(call("wait", 1, "[1]"))
			b.awaitStarted(t, 1)
			// Sent asynchronously: over net.Pipe a write waits for the
			// server to read, and the server reads one message ahead.
			sent := c.sendAsync(`{"jsonrpc":"2.0","method":"add","params":[1,2],"id":"`+strings.Repeat("x", 300)+`"}`,
				call("add", 2, "[2,3]"))
			// The call is still waiting: nothing is answered yet.
			select {
			case err := <-b.ended:
				t.Fatalf("wait ended early with %v", err)
			case <-time.After(20 * time.Millisecond):
			}
			close(b.release)
			for i, want := range []string{
				`{"jsonrpc":"2.0","result":1,"id":1}`,
				`"code":-32005`,
				`{"jsonrpc":"2.0","result":5,"id":2}`,
			} {
				if got := c.recv(); !strings.Contains(got, want) {
					t.Fatalf("response %d: %s, want %s", i+1, got, want)
				}
			}
			if err := <-b.ended; err != nil {
				t.Fatalf("wait ended with %v", err)
			}
			if err := <-sent; err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestIdleTimeoutDuringCall: a call that runs longer than IdleTimeout is
// answered; the idle timeout counts from its answer.
func TestIdleTimeoutDuringCall(t *testing.T) {
	leakCheck(t)
	eachOrderAndTransport(t, func(t *testing.T, order Ordering, tr string) {
		b := newBlockingServer(t)
		// Long enough for the client to send its call before the idle
		// timeout of the connection's first wait ends it, on a loaded
		// machine too (it failed at 30 ms under -race beside other jobs).
		const idle = 250 * time.Millisecond
		dial := serverOn(t, &Server{Server: b.h, Order: order, Limits: transport.Limits{IdleTimeout: idle}}, tr)
		c := newClient(t, dial(), framing.Line)
		c.send(call("wait", 1, "[1]"))
		b.awaitStarted(t, 1)
		time.Sleep(2 * idle)
		close(b.release)
		if got, want := c.recv(), `{"jsonrpc":"2.0","result":1,"id":1}`; got != want {
			t.Fatalf("got %s, want %s", got, want)
		}
		if err := <-b.ended; err != nil {
			t.Fatalf("the call ended with %v", err)
		}
		c.expectEOF() // idle after the answer
	})
}

func TestContextValue(t *testing.T) {
	leakCheck(t)
	for _, tr := range transports {
		t.Run(tr, func(t *testing.T) {
			h := jsonrpc.NewServer()
			h.MustRegister("remote", func(ctx context.Context) string {
				nc, ok := jsonrpc.CallOf(ctx).ContextValue().(net.Conn)
				if !ok {
					return "no net.Conn"
				}
				return nc.LocalAddr().Network()
			})
			dial := serverOn(t, &Server{Server: h}, tr)
			c := newClient(t, dial(), framing.Line)
			c.send(call("remote", 1, ""))
			want := map[string]string{"tcp": "tcp", "unix": "unix", "pipe": "pipe"}[tr]
			if got := c.recv(); got != `{"jsonrpc":"2.0","result":"`+want+`","id":1}` {
				t.Fatalf("got %s, want the network %q", got, want)
			}
		})
	}
}

func TestNilHandler(t *testing.T) {
	leakCheck(t)
	dial := serverOn(t, &Server{}, "pipe")
	c := newClient(t, dial(), framing.Line)
	c.send(call("add", 1, "[1,2]"))
	if got, want := c.recv(), `{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found","data":"add"},"id":1}`; got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
}
