package stream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/framing"
	"github.com/jsonrpc-go/jsonrpc/internal/demo"
	"github.com/jsonrpc-go/jsonrpc/peer"
	"github.com/jsonrpc-go/jsonrpc/protocol/lsp"
	"github.com/jsonrpc-go/jsonrpc/protocol/mcp"
	"github.com/jsonrpc-go/jsonrpc/transport"
)

// tooLargeAnswer is the answer to a message over a limit of 64 bytes, with
// id as the answer carries it.
func tooLargeAnswer(id string) string {
	return `{"jsonrpc":"2.0","error":{"code":-32005,"message":"Limit exceeded","data":"message exceeds the limit of 64 bytes"},"id":` + id + `}`
}

// TestTooLargeAnswered: a message over MaxMessage is answered with
// CodeLimitExceeded and its id when the bytes read of it hold the id: Line
// and Header read the whole message as they skip it, so the id is found
// wherever it is, and the connection goes on; Raw reads the first
// MaxMessage bytes, so an id after a huge param is not found (id null), and
// closes the connection.
func TestTooLargeAnswered(t *testing.T) {
	leakCheck(t)
	huge := `"` + strings.Repeat("x", 100000) + `"`
	idFirst := `{"id":"first","jsonrpc":"2.0","method":"StringMe","params":[` + huge + `]}`
	idAfter := `{"jsonrpc":"2.0","method":"StringMe","params":[` + huge + `],"id":2}`
	for _, tr := range transports {
		for _, fr := range framings {
			t.Run(tr+"/"+fr.name, func(t *testing.T) {
				dial := serverOn(t, &Server{Server: demo.NewServer(), Framing: fr.f, Limits: transport.Limits{MaxMessage: 64}}, tr)
				if fr.f == framing.Raw {
					for msg, id := range map[string]string{idFirst: `"first"`, idAfter: `null`} {
						c := newClient(t, dial(), fr.f)
						c.sendAsync(msg)
						if got, want := c.recv(), tooLargeAnswer(id); got != want {
							t.Fatalf("got  %s\nwant %s", got, want)
						}
						c.expectEOF()
					}
					return
				}
				c := newClient(t, dial(), fr.f)
				sent := c.sendAsync(idFirst, call("Test2", 1, "[1]"), idAfter, call("Test2", 3, "[3]"))
				for _, want := range []string{
					tooLargeAnswer(`"first"`),
					`{"jsonrpc":"2.0","result":1,"id":1}`,
					tooLargeAnswer(`2`),
					`{"jsonrpc":"2.0","result":3,"id":3}`,
				} {
					if got := c.recv(); got != want {
						t.Fatalf("got  %s\nwant %s", got, want)
					}
				}
				if err := <-sent; err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}

// TestTooLargeAnsweredAtOnce: with every Protocol, a message over
// MaxMessage is answered as soon as it has been read, before the peer sends
// anything more: a client that sends one such call and waits gets its
// answer (with a Protocol the Conn is two-way from the start, and its
// answers go through its writer, which the read of the next message must
// start first). Under MCP the answer has MCP's code for a limit
// (mcp.CodeLimitExceeded).
func TestTooLargeAnsweredAtOnce(t *testing.T) {
	leakCheck(t)
	msg := `{"jsonrpc":"2.0","method":"StringMe","params":["` + strings.Repeat("x", 1000) + `"],"id":7}`
	mcpAnswer := func(id string) string {
		return strings.Replace(tooLargeAnswer(id), `"code":-32005`, fmt.Sprintf(`"code":%d`, mcp.CodeLimitExceeded), 1)
	}
	for _, proto := range []struct {
		name   string
		p      peer.Protocol
		answer func(id string) string
	}{{"none", peer.Protocol{}, tooLargeAnswer}, {"LSP", lsp.Protocol(), tooLargeAnswer}, {"MCP", mcp.Protocol(), mcpAnswer}} {
		for _, fr := range framings {
			t.Run(proto.name+"/"+fr.name, func(t *testing.T) {
				dial := serverOn(t, &Server{Server: demo.NewServer(), Framing: fr.f, Protocol: proto.p, Limits: transport.Limits{MaxMessage: 64}}, "tcp")
				c := newClient(t, dial(), fr.f)
				c.send(msg)
				id := `7`
				if fr.f == framing.Raw {
					id = `null` // Raw reads MaxMessage bytes of it, before the id
				}
				if got, want := c.recv(), proto.answer(id); got != want {
					t.Fatalf("got  %s\nwant %s", got, want)
				}
				if fr.f != framing.Raw {
					c.send(call("Test2", 1, "[1]"))
					if got, want := c.recv(), `{"jsonrpc":"2.0","result":1,"id":1}`; got != want {
						t.Fatalf("got  %s\nwant %s", got, want)
					}
				}
			})
		}
	}
}

// TestHeaderHugeLength: a declared length of 1 TiB is never allocated: its
// body is read through the connection's buffer and dropped, and the message
// is answered when the body ends (here, with the input).
func TestHeaderHugeLength(t *testing.T) {
	leakCheck(t)
	body := []byte(`{"id":"big","params":"` + strings.Repeat("y", 8<<20))
	for _, tr := range transports {
		t.Run(tr, func(t *testing.T) {
			dial := serverOn(t, &Server{Server: demo.NewServer(), Framing: framing.Header, Limits: transport.Limits{MaxMessage: 64}}, tr)
			conn := dial()
			c := newClient(t, conn, framing.Header)
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			// A bound against a server that stops reading, not a measure
			// of speed: 8 MiB through a pipe takes seconds under wasip1
			// on a loaded machine.
			conn.SetWriteDeadline(time.Now().Add(time.Minute))
			if _, err := conn.Write([]byte("Content-Length: 1099511627776\r\n\r\n")); err != nil {
				t.Fatal(err)
			}
			if _, err := conn.Write(body); err != nil {
				t.Fatal(err)
			}
			cw, ok := conn.(interface{ CloseWrite() error })
			if !ok {
				// net.Pipe: its Write returns once the server has read it all.
				runtime.ReadMemStats(&after)
			} else {
				// The end of the input ends the body: it is answered.
				cw.CloseWrite()
				if got, want := c.recv(), tooLargeAnswer(`"big"`); got != want {
					t.Fatalf("got  %s\nwant %s", got, want)
				}
				runtime.ReadMemStats(&after)
				c.expectEOF()
			}
			if grew := after.TotalAlloc - before.TotalAlloc; grew > 2<<20 {
				t.Fatalf("reading 8 MiB of a 1 TiB message allocated %d bytes", grew)
			}
		})
	}
}

func TestRawTooLargeCloses(t *testing.T) {
	leakCheck(t)
	dial := serverOn(t, &Server{Server: demo.NewServer(), Framing: framing.Raw, Limits: transport.Limits{MaxMessage: 64}}, "pipe")
	c := newClient(t, dial(), framing.Raw)
	c.sendAsync(`{"jsonrpc":"2.0","id":1,"method":"StringMe","params":["` + strings.Repeat("x", 1000) + `"]}`)
	if got, want := c.recv(), tooLargeAnswer("1"); got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
	c.expectEOF()
}

// TestMalformedHeaderCloses: a framing error closes that connection alone.
func TestMalformedHeaderCloses(t *testing.T) {
	leakCheck(t)
	for _, tr := range transports {
		t.Run(tr, func(t *testing.T) {
			dial := serverOn(t, &Server{Server: demo.NewServer(), Framing: framing.Header}, tr)
			good := newClient(t, dial(), framing.Header)
			bad := newClient(t, dial(), framing.Header)
			bad.conn.SetWriteDeadline(time.Now().Add(wait))
			go bad.conn.Write([]byte("Content-Type: x\r\n\r\n{}"))
			bad.expectEOF()
			good.send(call("Test2", 1, "[1]"))
			if got := good.recv(); got != `{"jsonrpc":"2.0","result":1,"id":1}` {
				t.Fatalf("the other connection: got %s", got)
			}
		})
	}
}

func TestServeConnErrors(t *testing.T) {
	leakCheck(t)
	s := &Server{Server: demo.NewServer(), Framing: framing.Header}
	cc, sc := net.Pipe()
	defer cc.Close()
	done := make(chan error, 1)
	go func() { done <- s.ServeConn(context.Background(), sc) }()
	go cc.Write([]byte("nonsense\r\n\r\n"))
	select {
	case err := <-done:
		if !errors.Is(err, framing.ErrMalformed) {
			t.Fatalf("ServeConn = %v, want framing.ErrMalformed", err)
		}
	case <-timeAfter(t):
		t.Fatal("ServeConn did not return")
	}
}

// TestMaxInFlight: with MaxInFlight calls waiting, the connection stops
// reading; when one finishes, the next request is read; nothing is lost.
func TestMaxInFlight(t *testing.T) {
	leakCheck(t)
	synctest.Test(t, func(t *testing.T) {
		b := newBlockingServer(t)
		s := &Server{Server: b.h, Order: Concurrent, Limits: transport.Limits{MaxInFlight: 2}}
		cc, sc := net.Pipe()
		done := make(chan error, 1)
		go func() { done <- s.ServeConn(context.Background(), sc) }()
		c := newClient(t, cc, framing.Line)
		sent := c.sendAsync(call("wait", 1, "[1]"), call("wait", 2, "[2]"), call("wait", 3, "[3]"), call("add", 4, "[2,2]"))
		answers := make(chan string, 10)
		go func() {
			for {
				msg, err := c.r.Read()
				if err != nil {
					close(answers)
					return
				}
				answers <- string(msg)
			}
		}()
		synctest.Wait()
		if n := len(b.started); n != 2 {
			t.Fatalf("%d calls started, want MaxInFlight = 2", n)
		}
		if n := len(answers); n != 0 {
			t.Fatalf("%d answers with MaxInFlight calls waiting: the fast request after them was read", n)
		}
		// Let one call finish: its answer comes, and one more request is read.
		b.release <- struct{}{}
		synctest.Wait()
		if n := len(b.started); n != 3 {
			t.Fatalf("%d calls started after one finished, want 3", n)
		}
		if n := len(answers); n != 1 {
			t.Fatalf("%d answers after one call finished, want 1", n)
		}
		close(b.release)
		synctest.Wait()
		ids := map[string]bool{}
		for range 4 {
			ids[idOf(t, <-answers)] = true
		}
		for _, id := range []string{"1", "2", "3", "4"} {
			if !ids[id] {
				t.Errorf("no answer for id %s", id)
			}
		}
		if err := <-sent; err != nil {
			t.Fatal(err)
		}
		cc.Close()
		if err := <-done; err != nil {
			t.Fatalf("ServeConn = %v", err)
		}
	})
}

// TestStalledClient: a client that does not read its responses is dropped
// after WriteTimeout, and other connections are served meanwhile.
func TestStalledClient(t *testing.T) {
	leakCheck(t)
	s := &Server{Server: demo.NewServer(), Limits: transport.Limits{WriteTimeout: 50 * time.Millisecond}}
	stalled, sc := net.Pipe()
	defer stalled.Close()
	done := make(chan error, 1)
	go func() { done <- s.ServeConn(context.Background(), sc) }()
	// net.Pipe has no buffer: the response cannot be written until the
	// client reads, which it never does.
	go stalled.Write([]byte(call("Test2", 1, "[1]") + "\n"))

	dial := serverOn(t, s, "tcp")
	other := newClient(t, dial(), framing.Line)
	other.send(call("Test2", 2, "[2]"))
	if got := other.recv(); got != `{"jsonrpc":"2.0","result":2,"id":2}` {
		t.Fatalf("the other connection: got %s", got)
	}
	select {
	case err := <-done:
		if !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("ServeConn = %v, want a write timeout", err)
		}
	case <-timeAfter(t):
		t.Fatal("the stalled client was not dropped")
	}
}

func TestIdleTimeout(t *testing.T) {
	leakCheck(t)
	for _, tr := range transports {
		t.Run(tr, func(t *testing.T) {
			dial := serverOn(t, &Server{Server: demo.NewServer(), Limits: transport.Limits{IdleTimeout: 20 * time.Millisecond}}, tr)
			c := newClient(t, dial(), framing.Line)
			c.send(call("Test2", 1, "[1]"))
			c.recv()
			c.expectEOF()
		})
	}
}

// TestReadTimeout: a client that stalls inside a message is dropped after
// ReadTimeout, although the idle timeout is long.
func TestReadTimeout(t *testing.T) {
	leakCheck(t)
	for _, tr := range transports {
		t.Run(tr, func(t *testing.T) {
			dial := serverOn(t, &Server{Server: demo.NewServer(), Limits: transport.Limits{ReadTimeout: 20 * time.Millisecond, IdleTimeout: time.Hour}}, tr)
			c := newClient(t, dial(), framing.Line)
			c.conn.SetWriteDeadline(time.Now().Add(wait))
			go c.conn.Write([]byte(`{"jsonrpc":"2.0",`))
			c.expectEOF()
		})
	}
}

// TestMaxResponse: the size of a response is the root's limit
// (jsonrpc.Limits.MaxResponse), checked as the response is built: an answer
// over it is a CodeLimitExceeded error with its id, and a batch keeps the
// answers that fit.
func TestMaxResponse(t *testing.T) {
	leakCheck(t)
	h := jsonrpc.NewServer(jsonrpc.UseLimits(jsonrpc.Limits{MaxResponse: 200}))
	h.MustRegister("echo", func(s string) string { return s })
	dial := serverOn(t, &Server{Server: h}, "pipe")
	c := newClient(t, dial(), framing.Line)
	big := `"` + strings.Repeat("z", 300) + `"`
	c.send(call("echo", 7, "["+big+"]"))
	e := `{"jsonrpc":"2.0","error":{"code":-32005,"message":"Limit exceeded","data":"response exceeds the limit of 200 bytes"},"id":%d}`
	if got, want := c.recv(), fmt.Sprintf(e, 7); got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	c.send(`[` + call("echo", 1, `["a"]`) + `,` + call("echo", 2, "["+big+"]") + `,` + call("echo", 3, `["b"]`) + `]`)
	want := `[{"jsonrpc":"2.0","result":"a","id":1},` + fmt.Sprintf(e, 2) + `,` + fmt.Sprintf(e, 3) + `]`
	if got := c.recv(); got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}

// blobServer has "blob", whose result is a string of n bytes, and "add".
func blobServer(opts ...jsonrpc.Option) *jsonrpc.Server {
	h := jsonrpc.NewServer(opts...)
	h.MustRegister("blob", func(n int) string { return strings.Repeat("b", n) })
	h.MustRegister("add", func(a, b int) int { return a + b })
	return h
}

// TestMaxResponseIsTheServers: the stream adds no response limit of its
// own, so a server that allows 32 MiB answers gets a 20 MiB answer whole.
func TestMaxResponseIsTheServers(t *testing.T) {
	leakCheck(t)
	h := blobServer(jsonrpc.UseLimits(jsonrpc.Limits{MaxResponse: 32 << 20}))
	// No write timeout: how long 20 MiB take to cross the pipe depends on
	// the machine and its load (under -race, beside other suites), so the
	// only bound on it is the watchdog of recvWithin, against a hang.
	dial := serverOn(t, &Server{Server: h, Limits: transport.Limits{WriteTimeout: -1}}, "pipe")
	c := newClient(t, dial(), framing.Line)
	c.send(call("blob", 1, "[20971520]"))
	got := c.recvWithin(5 * time.Minute)
	if want := `{"jsonrpc":"2.0","result":"` + strings.Repeat("b", 20<<20) + `","id":1}`; got != want {
		t.Fatalf("got %.120s... (%d bytes), want the 20 MiB result (%d bytes)", got, len(got), len(want))
	}
}

// TestHugeBatchResponse: a batch of 256 calls answering 1 MiB each is
// answered with at most the default 16 MiB (and an error object for each
// call past it), on every framing, and the connection stays usable.
func TestHugeBatchResponse(t *testing.T) {
	leakCheck(t)
	const n, size = 256, 1 << 20
	calls := make([]string, n)
	for i := range calls {
		calls[i] = call("blob", i, fmt.Sprintf("[%d]", size))
	}
	batch := "[" + strings.Join(calls, ",") + "]"
	for _, fr := range framings {
		t.Run(fr.name, func(t *testing.T) {
			dial := serverOn(t, &Server{Server: blobServer(), Framing: fr.f}, "tcp")
			c := newClient(t, dial(), fr.f)
			c.send(batch)
			got := c.recvWithin(2 * time.Minute) // 256 MiB of results made: a watchdog, not a time limit
			if len(got) > 16<<20+n*120 {
				t.Fatalf("answer of %d bytes, want at most the 16 MiB limit and the errors", len(got))
			}
			var answers []struct {
				ID     int
				Result string
				Error  *jsonrpc.Error
			}
			if err := json.Unmarshal([]byte(got), &answers); err != nil {
				t.Fatalf("answer %.200s: %v", got, err)
			}
			if len(answers) != n {
				t.Fatalf("%d answers, want %d", len(answers), n)
			}
			results := 0
			for i, a := range answers {
				switch {
				case a.ID != i:
					t.Fatalf("answer %d has id %d", i, a.ID)
				case a.Error == nil && len(a.Result) == size:
					results++
				case a.Error != nil && a.Error.Code == jsonrpc.CodeLimitExceeded:
				default:
					t.Fatalf("answer %d: %.200v", i, a)
				}
			}
			if results == 0 || results >= 16 {
				t.Fatalf("%d whole results, want some and fewer than 16", results)
			}
			c.send(call("add", 1000, "[1,2]"))
			if got, want := c.recv(), `{"jsonrpc":"2.0","result":3,"id":1000}`; got != want {
				t.Fatalf("after the batch: got %s, want %s", got, want)
			}
		})
	}
}

// TestDisconnectMidBatch: a client that leaves while a batch of waiting
// calls runs causes no panic and no leak.
func TestDisconnectMidBatch(t *testing.T) {
	leakCheck(t)
	eachOrderAndTransport(t, func(t *testing.T, order Ordering, tr string) {
		b := newBlockingServer(t)
		dial := serverOn(t, &Server{Server: b.h, Order: order}, tr)
		c := newClient(t, dial(), framing.Line)
		c.send(`[` + call("wait", 1, "[1]") + `,` + call("add", 2, "[1,2]") + `,` + call("wait", 3, "[3]") + `]`)
		<-b.started
		<-b.started
		c.conn.Close()
		close(b.release)
		// A batch cut off in the middle of its text.
		c2 := newClient(t, dial(), framing.Line)
		c2.conn.SetWriteDeadline(time.Now().Add(wait))
		go func() {
			c2.conn.Write([]byte(`[` + call("add", 1, "[1,2]") + `,{"jsonrpc":`))
			c2.conn.Close()
		}()
	})
}

// TestShutdownGraceful: calls in flight finish and their answers are
// written before the connection closes.
func TestShutdownGraceful(t *testing.T) {
	leakCheck(t)
	eachOrderAndTransport(t, func(t *testing.T, order Ordering, tr string) {
		b := newBlockingServer(t)
		s := &Server{Server: b.h, Order: order}
		dial := serverOn(t, s, tr)
		c := newClient(t, dial(), framing.Line)
		n := 1
		if order == Concurrent {
			n = 3
		}
		for i := 1; i <= n; i++ {
			c.send(call("wait", i, fmt.Sprintf("[%d]", i)))
		}
		for range n {
			<-b.started
		}
		shut := make(chan error, 1)
		go func() { shut <- s.Shutdown(context.Background()) }()
		// Shutdown waits for the calls: let them finish.
		close(b.release)
		for range n {
			if got := c.recv(); !strings.Contains(got, `"result"`) {
				t.Fatalf("got %s, want a result", got)
			}
		}
		c.expectEOF()
		c.conn.Close() // which ends the server's linger
		select {
		case err := <-shut:
			if err != nil {
				t.Fatalf("Shutdown = %v", err)
			}
		case <-timeAfter(t):
			t.Fatal("Shutdown did not return")
		}
	})
}

// TestShutdownTimeout: when its context ends first, Shutdown closes the
// connections, cancelling the calls, and returns the context's error.
func TestShutdownTimeout(t *testing.T) {
	leakCheck(t)
	b := newBlockingServer(t)
	s := &Server{Server: b.h, Order: Concurrent}
	dial := serverOn(t, s, "tcp")
	c := newClient(t, dial(), framing.Line)
	c.send(call("wait", 1, "[1]"))
	<-b.started
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := s.Shutdown(ctx); err != context.Canceled {
		t.Fatalf("Shutdown = %v, want context.Canceled", err)
	}
	if err := <-b.ended; !errors.Is(err, context.Canceled) {
		t.Fatalf("the call ended with %v, want context.Canceled", err)
	}
	c.expectEOF()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Serve(l); err != ErrServerClosed {
		t.Fatalf("Serve after Shutdown = %v", err)
	}
}

func TestServeConnContext(t *testing.T) {
	leakCheck(t)
	b := newBlockingServer(t)
	s := &Server{Server: b.h, Order: Concurrent}
	cc, sc := net.Pipe()
	defer cc.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.ServeConn(ctx, sc) }()
	c := newClient(t, cc, framing.Line)
	c.send(call("wait", 1, "[1]"))
	<-b.started
	cancel()
	if err := <-b.ended; !errors.Is(err, context.Canceled) {
		t.Fatalf("the call ended with %v", err)
	}
	if err := <-done; err != context.Canceled {
		t.Fatalf("ServeConn = %v, want context.Canceled", err)
	}
}

// TestPanicStaysInCall: a panicking method answers -32603 and the
// connection goes on.
func TestPanicStaysInCall(t *testing.T) {
	leakCheck(t)
	h := jsonrpc.NewServer()
	h.MustRegister("boom", func() int { panic("boom") })
	h.MustRegister("boomLater", func() int { panic("boom") }, jsonrpc.Blocking())
	h.MustRegister("one", func() int { return 1 })
	for _, order := range []Ordering{Ordered, Sequential, Concurrent} {
		dial := serverOn(t, &Server{Server: h, Order: order}, "pipe")
		c := newClient(t, dial(), framing.Line)
		sent := c.sendAsync(call("boom", 1, ""), call("boomLater", 2, ""), call("one", 3, ""))
		got := c.recv() + c.recv() + c.recv()
		if err := <-sent; err != nil {
			t.Fatal(err)
		}
		if strings.Count(got, "-32603") != 2 || !strings.Contains(got, `"result":1,"id":3`) {
			t.Fatalf("%v: got %s", order, got)
		}
	}
}

// TestMaxBufferedPerClient: a client's unfinished large messages hold at
// most its share of the budget (half of it by default): past it its next
// large message is refused with the busy error, and another client's is
// served meanwhile.
func TestMaxBufferedPerClient(t *testing.T) {
	leakCheck(t)
	srv := &Server{Server: demo.NewServer(), Limits: transport.Limits{MaxBuffered: 1 << 20}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { srv.Serve(ln); close(done) }()
	defer func() { srv.Close(); <-done }()
	dialFrom := func(ip string) net.Conn {
		d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
		c, err := d.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Skipf("dial from %s: %v", ip, err)
		}
		return c
	}
	head := `{"jsonrpc":"2.0","method":"echo","params":["`
	line := func(n int) string { return head + strings.Repeat("x", n) + `"],"id":1}` }
	// The first client's unfinished message holds about 472 KiB of its
	// 512 KiB share (twice what it sent past 64 KiB).
	stalled := newClient(t, dialFrom("127.0.0.1"), framing.Line)
	stalled.conn.SetWriteDeadline(time.Now().Add(wait))
	if _, err := io.WriteString(stalled.conn, line(300 << 10)[:300<<10]); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(wait); srv.gatesBudget().Used() < 2*(300<<10-64<<10); {
		if time.Now().After(deadline) {
			t.Fatalf("the stalled message holds %d bytes of the budget", srv.gatesBudget().Used())
		}
		time.Sleep(time.Millisecond)
	}
	// Its next large message passes its share: refused.
	busy := newClient(t, dialFrom("127.0.0.1"), framing.Line)
	errc := busy.sendAsync(line(200 << 10))
	if got := busy.recv(); !strings.Contains(got, `"code":-32005`) || !strings.Contains(got, "server busy") {
		t.Fatalf("the first client's second large message: %.100s, want the busy error", got)
	}
	busy.expectEOF()
	<-errc
	// Another client's large message is served: the budget has room.
	other := newClient(t, dialFrom("127.0.0.2"), framing.Line)
	errc = other.sendAsync(line(200 << 10))
	if got := other.recv(); !strings.HasPrefix(got, `{"jsonrpc":"2.0","result":"xxx`) {
		t.Fatalf("another client's large message: %.100s, want its echo", got)
	}
	<-errc
}

// MaxBuffered bounds the memory of large messages being read over all the
// Server's connections: a connection whose message would pass it is
// answered with the busy error and closed, the others are served, and the
// room comes back when the large messages end.
func TestMaxBuffered(t *testing.T) {
	leakCheck(t)
	for _, tr := range transports {
		t.Run(tr, func(t *testing.T) {
			// One client over TCP: no share of its own, so that two of its
			// connections can fill the budget (TestMaxBufferedPerClient
			// holds the share).
			srv := &Server{Server: demo.NewServer(), Budget: transport.NewBudgetPerClient(1<<20, 1<<20)}
			dial := serverOn(t, srv, tr)
			head := `{"jsonrpc":"2.0","method":"echo","params":["`
			line := func(n int) string { return head + strings.Repeat("x", n) + `"],"id":1}` }
			// Two connections each hold about 472 KiB of the budget (twice
			// what they sent past 64 KiB) with a message they do not finish.
			var stalled []*client
			for range 2 {
				c := newClient(t, dial(), framing.Line)
				c.conn.SetWriteDeadline(time.Now().Add(wait))
				if _, err := io.WriteString(c.conn, line(300 << 10)[:300<<10]); err != nil {
					t.Fatal(err)
				}
				stalled = append(stalled, c)
			}
			// Once the server has read them, a third large message finds
			// no room.
			for deadline := time.Now().Add(wait); srv.gatesBudget().Used() < 4*(300<<10-64<<10); {
				if time.Now().After(deadline) {
					t.Fatalf("the stalled messages hold %d bytes of the budget", srv.gatesBudget().Used())
				}
				time.Sleep(time.Millisecond)
			}
			busy := newClient(t, dial(), framing.Line)
			errc := busy.sendAsync(line(200 << 10))
			got := busy.recv()
			if !strings.Contains(got, `"code":-32005`) || !strings.Contains(got, "server busy") {
				t.Fatalf("a large message beside two stalled ones: %.100s, want the busy error", got)
			}
			busy.expectEOF()
			<-errc
			// Small messages are served meanwhile.
			small := newClient(t, dial(), framing.Line)
			small.send(call("echo", 7, `["y"]`))
			if got := small.recv(); got != `{"jsonrpc":"2.0","result":"y","id":7}` {
				t.Fatalf("small: %s", got)
			}
			// The stalled connections go; the room comes back.
			for _, c := range stalled {
				c.conn.Close()
			}
			deadline := time.Now().Add(wait)
			for {
				big := newClient(t, dial(), framing.Line)
				errc := big.sendAsync(line(200 << 10))
				got := big.recv()
				<-errc
				big.conn.Close()
				if strings.Contains(got, `"result"`) {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("a large message after the stalled connections closed: %.100s", got)
				}
				time.Sleep(10 * time.Millisecond) // the server has not seen them close yet
			}
			small.conn.Close()
		})
	}
}

// TestTooLargeNotBuffered: a message over MaxMessage, which the framing
// skips to its end without keeping it, takes nothing of MaxBuffered past
// MaxMessage: however large, it is answered with its id and the
// connection goes on, on Line and Header. (Counted whole, a 33 MiB line
// passed the default 64 MiB budget, counted twice, and closed the
// connection with "server busy".)
func TestTooLargeNotBuffered(t *testing.T) {
	leakCheck(t)
	for _, fr := range framings[:2] {
		t.Run(fr.name, func(t *testing.T) {
			dial := serverOn(t, &Server{Server: demo.NewServer(), Framing: fr.f,
				Limits: transport.Limits{MaxMessage: 64, MaxBuffered: 256 << 10}}, "tcp")
			c := newClient(t, dial(), fr.f)
			huge := `{"id":"big","jsonrpc":"2.0","method":"StringMe","params":["` + strings.Repeat("x", 4<<20) + `"]}`
			sent := c.sendAsync(huge, call("Test2", 1, "[1]"))
			for _, want := range []string{tooLargeAnswer(`"big"`), `{"jsonrpc":"2.0","result":1,"id":1}`} {
				if got := c.recv(); got != want {
					t.Fatalf("got  %.200s\nwant %s", got, want)
				}
			}
			if err := <-sent; err != nil {
				t.Fatal(err)
			}
		})
	}
	t.Run("defaults/33MiB", func(t *testing.T) {
		dial := serverOn(t, &Server{Server: demo.NewServer()}, "tcp")
		c := newClient(t, dial(), framing.Line)
		huge := `{"jsonrpc":"2.0","id":9,"method":"StringMe","params":["` + strings.Repeat("x", 33<<20) + `"]}`
		sent := c.sendAsync(huge, call("Test2", 1, "[1]"))
		want := `{"jsonrpc":"2.0","error":{"code":-32005,"message":"Limit exceeded","data":"message exceeds the limit of 4194304 bytes"},"id":9}`
		if got := c.recv(); got != want {
			t.Fatalf("got  %.200s\nwant %s", got, want)
		}
		if got, want := c.recv(), `{"jsonrpc":"2.0","result":1,"id":1}`; got != want {
			t.Fatalf("got  %.200s\nwant %s", got, want)
		}
		if err := <-sent; err != nil {
			t.Fatal(err)
		}
	})
}
