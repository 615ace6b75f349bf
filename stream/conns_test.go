package stream

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"runtime"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/framing"
	"github.com/jsonrpc-go/jsonrpc/internal/demo"
	"github.com/jsonrpc-go/jsonrpc/transport"
)

// chanListener is a net.Listener of net.Pipe connections: dial queues the
// server's end in a backlog that Accept takes from.
type chanListener struct {
	backlog chan net.Conn
	closed  chan struct{}
	once    sync.Once
}

func newChanListener(backlog int) *chanListener {
	return &chanListener{backlog: make(chan net.Conn, backlog), closed: make(chan struct{})}
}

func (l *chanListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.backlog:
		return c, nil
	case <-l.closed:
		return nil, net.ErrClosed
	}
}

func (l *chanListener) Close() error {
	l.once.Do(func() { close(l.closed) })
	return nil
}

func (l *chanListener) Addr() net.Addr { return pipeAddr{} }

type pipeAddr struct{}

func (pipeAddr) Network() string { return "pipe" }
func (pipeAddr) String() string  { return "pipe" }

// dial queues a connection and returns the client's end.
func (l *chanListener) dial() net.Conn {
	cc, sc := net.Pipe()
	l.backlog <- sc
	return cc
}

// answers reads c's messages onto a channel until its input ends.
func answers(c *client) <-chan string {
	ch := make(chan string, 16)
	go func() {
		defer close(ch)
		for {
			msg, err := c.r.Read()
			if err != nil {
				return
			}
			ch <- string(msg)
		}
	}()
	return ch
}

// TestMaxConns: at MaxConns connections Serve accepts no more: one accepted
// connection waits unserved and the rest stay in the listener's backlog;
// the connections served are answered, and when one ends the next is
// served. ServeConn waits for a slot too.
func TestMaxConns(t *testing.T) {
	leakCheck(t)
	synctest.Test(t, func(t *testing.T) {
		l := newChanListener(16)
		s := &Server{Server: demo.NewServer(), Limits: transport.Limits{MaxConns: 2}}
		served := make(chan error, 1)
		go func() { served <- s.Serve(l) }()
		var cs []*client
		var got []<-chan string
		for i := range 5 {
			c := newClient(t, l.dial(), framing.Line)
			c.sendAsync(call("Test2", i, fmt.Sprintf("[%d]", i)))
			cs = append(cs, c)
			got = append(got, answers(c))
		}
		synctest.Wait()
		if n := len(l.backlog); n != 2 {
			t.Fatalf("%d connections left in the backlog, want 2 (2 served, 1 accepted and waiting)", n)
		}
		check := func(want ...bool) {
			t.Helper()
			for i, ch := range got {
				if answered := len(ch) > 0; answered != want[i] {
					t.Fatalf("connection %d answered: %v, want %v", i, answered, want[i])
				}
			}
		}
		check(true, true, false, false, false)
		for _, ch := range got[:2] {
			if a := <-ch; idOf(t, a) == "" {
				t.Fatalf("answer %s", a)
			}
		}

		// One served connection ends: the waiting one is served, and the
		// next is taken from the backlog to wait.
		cs[0].conn.Close()
		synctest.Wait()
		if n := len(l.backlog); n != 1 {
			t.Fatalf("%d connections in the backlog after one ended, want 1", n)
		}
		check(false, false, true, false, false)
		<-got[2]

		// ServeConn counts too: it waits for a slot, until its context ends.
		cc, sc := net.Pipe()
		defer cc.Close()
		ctx, cancel := context.WithCancel(context.Background())
		direct := make(chan error, 1)
		go func() { direct <- s.ServeConn(ctx, sc) }()
		synctest.Wait()
		if len(direct) != 0 {
			t.Fatalf("ServeConn returned %v at the limit", <-direct)
		}
		cancel()
		if err := <-direct; err != context.Canceled {
			t.Fatalf("ServeConn = %v, want context.Canceled", err)
		}
		if _, err := cc.Read(make([]byte, 1)); err == nil {
			t.Fatal("ServeConn did not close the connection it gave up on")
		}

		// Shutdown ends the wait of Serve and of ServeConn.
		cc2, sc2 := net.Pipe()
		defer cc2.Close()
		go func() { direct <- s.ServeConn(context.Background(), sc2) }()
		synctest.Wait()
		shut := make(chan error, 1)
		go func() { shut <- s.Shutdown(context.Background()) }()
		synctest.Wait()
		if err := <-direct; err != ErrServerClosed {
			t.Fatalf("waiting ServeConn = %v, want ErrServerClosed", err)
		}
		if err := <-served; err != ErrServerClosed {
			t.Fatalf("Serve = %v, want ErrServerClosed", err)
		}
		for _, c := range cs {
			c.conn.Close()
		}
		for _, c := range l.drain() {
			c.Close()
		}
		if err := <-shut; err != nil {
			t.Fatalf("Shutdown = %v", err)
		}
	})
}

// drain closes the listener and returns the connections left in its
// backlog.
func (l *chanListener) drain() []net.Conn {
	l.Close()
	var out []net.Conn
	for {
		select {
		case c := <-l.backlog:
			out = append(out, c)
		default:
			return out
		}
	}
}

// TestMaxConnsNetwork: over TCP and Unix sockets, a server at MaxConns
// serves its connections and leaves the others to the kernel's backlog
// until one ends.
func TestMaxConnsNetwork(t *testing.T) {
	leakCheck(t)
	for _, tr := range []string{"tcp", "unix"} {
		t.Run(tr, func(t *testing.T) {
			dial := serverOn(t, &Server{Server: demo.NewServer(), Limits: transport.Limits{MaxConns: 2, MaxConnsPerClient: 2}}, tr)
			var cs []*client
			var got []<-chan string
			for i := range 4 {
				c := newClient(t, dial(), framing.Line)
				c.send(call("Test2", i, fmt.Sprintf("[%d]", i)))
				cs = append(cs, c)
				got = append(got, answers(c))
			}
			// Two are answered; which two is the accept order's business.
			answered := map[int]bool{}
			for len(answered) < 2 {
				select {
				case <-got[0]:
					answered[0] = true
				case <-got[1]:
					answered[1] = true
				case <-got[2]:
					answered[2] = true
				case <-got[3]:
					answered[3] = true
				case <-timeAfter(t):
					t.Fatalf("%d connections answered, want 2", len(answered))
				}
			}
			// The others are not, while both are served (a bounded look:
			// this can only miss a failure, never invent one).
			time.Sleep(50 * time.Millisecond)
			for i, ch := range got {
				if !answered[i] && len(ch) > 0 {
					t.Fatalf("connection %d answered with two others served", i)
				}
			}
			// One ends: another is served.
			var first int
			for i := range answered {
				first = i
				break
			}
			cs[first].conn.Close()
			var waiting []int
			for i := range got {
				if !answered[i] {
					waiting = append(waiting, i)
				}
			}
			var a string
			select {
			case a = <-got[waiting[0]]:
			case a = <-got[waiting[1]]:
			case <-timeAfter(t):
				t.Fatal("no waiting connection was served after one ended")
			}
			if id := idOf(t, a); id != fmt.Sprint(waiting[0]) && id != fmt.Sprint(waiting[1]) {
				t.Fatalf("answer %s, want one for connection %v", a, waiting)
			}
		})
	}
}

// TestGoroutinesPerConnection: one connection with Concurrent ordering that
// sends batches of Blocking calls cannot make more than MaxInFlight plus
// the server's MaxRunning goroutines: past MaxRunning a call runs on the
// connection's goroutine, which stops reading meanwhile. Every call is
// answered once they are released.
func TestGoroutinesPerConnection(t *testing.T) {
	leakCheck(t)
	const maxRunning, maxInFlight, batches, size = 8, 4, 20, 100
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		h := jsonrpc.NewServer(jsonrpc.UseLimits(jsonrpc.Limits{MaxRunning: maxRunning}))
		h.MustRegister("wait", func(ctx context.Context, n int) (int, error) {
			select {
			case <-release:
				return n, nil
			case <-ctx.Done():
				return 0, ctx.Err()
			}
		}, jsonrpc.Blocking())
		before := runtime.NumGoroutine()
		s := &Server{Server: h, Order: Concurrent, Limits: transport.Limits{MaxInFlight: maxInFlight}}
		cc, done := pipeConn(t, s)
		c := newClient(t, cc, framing.Line)
		msgs := make([]string, batches)
		calls := make([]string, size)
		for b := range msgs {
			for i := range calls {
				id := b*size + i
				calls[i] = call("wait", id, fmt.Sprintf("[%d]", id))
			}
			msgs[b] = "[" + strings.Join(calls, ",") + "]"
		}
		sent := c.sendAsync(msgs...)
		got := answers(c)
		synctest.Wait()
		// The connection's goroutine, its flusher, and the client's reader
		// and writer are the others.
		if n := runtime.NumGoroutine() - before; n > maxInFlight+maxRunning+4 {
			t.Fatalf("%d goroutines with batches of Blocking calls waiting, want at most MaxInFlight + MaxRunning + 4 = %d", n, maxInFlight+maxRunning+4)
		}
		close(release)
		ids := map[int]bool{}
		for range batches {
			var batch []struct{ ID, Result int }
			if err := json.Unmarshal([]byte(<-got), &batch); err != nil || len(batch) != size {
				t.Fatalf("a batch answer of %d: %v", len(batch), err)
			}
			for _, a := range batch {
				if a.Result != a.ID || ids[a.ID] {
					t.Fatalf("answer %+v", a)
				}
				ids[a.ID] = true
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

// TestMaxConnsPerClient: one client (an IP address) holds at most its
// share of MaxConns, half by default: a connection past it is answered
// with one error and closed, while another client is served; ClientKey
// names clients otherwise ("" for none: no share).
func TestMaxConnsPerClient(t *testing.T) {
	leakCheck(t)
	s := &Server{Server: demo.NewServer(), Limits: transport.Limits{MaxConns: 4}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Serve(ln) }()
	defer func() {
		s.Close()
		<-done
	}()
	dialFrom := func(ip string) net.Conn {
		d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
		c, err := d.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Skipf("dial from %s: %v", ip, err)
		}
		return c
	}
	var held []*client
	for i := range 2 {
		c := newClient(t, dialFrom("127.0.0.1"), framing.Line)
		c.send(call("Test2", i, "[1]"))
		if got := c.recv(); got != `{"jsonrpc":"2.0","result":1,"id":`+fmt.Sprint(i)+`}` {
			t.Fatalf("connection %d of the first client: %s", i, got)
		}
		held = append(held, c)
	}
	over := newClient(t, dialFrom("127.0.0.1"), framing.Line)
	if got, want := over.recv(), `{"jsonrpc":"2.0","error":{"code":-32005,"message":"Limit exceeded","data":"too many connections from this client"},"id":null}`; got != want {
		t.Errorf("past the share: %s, want %s", got, want)
	}
	over.expectEOF()
	other := newClient(t, dialFrom("127.0.0.2"), framing.Line)
	other.send(call("Test2", 9, "[2]"))
	if got := other.recv(); got != `{"jsonrpc":"2.0","result":2,"id":9}` {
		t.Errorf("another client: %s", got)
	}
	// One of the first client's ends: its share has room again.
	held[0].conn.Close()
	for deadline := time.Now().Add(30 * time.Second); ; {
		again := newClient(t, dialFrom("127.0.0.1"), framing.Line)
		again.send(call("Test2", 3, "[3]"))
		got := again.recv()
		if got == `{"jsonrpc":"2.0","result":3,"id":3}` {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the share never had room again: %s", got)
		}
		// The server may not have seen the close yet.
		time.Sleep(time.Millisecond)
	}
}
