//go:build !js

package ws_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/coder/websocket"
	"github.com/jsonrpc-go/jsonrpc/protocol/lsp"
	"github.com/jsonrpc-go/jsonrpc/transport"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/client"
	"github.com/jsonrpc-go/jsonrpc/internal/demo"
	"github.com/jsonrpc-go/jsonrpc/internal/leaktest"
	"github.com/jsonrpc-go/jsonrpc/peer"
	"github.com/jsonrpc-go/jsonrpc/ws"
)

// rpc is a demo server with methods that wait:
//
//	wait(x)     Blocking; waits for release (or its context) and returns x
//	nap(ms)     Blocking; sleeps ms milliseconds (or until its context ends)
//	stubborn(s) Blocking; sleeps s seconds, ignoring its context
//	xs(n)       returns a string of n "x"
type rpc struct {
	*jsonrpc.Server
	started chan int      // the x of each wait call, and 0 for each nap, as it starts
	release chan struct{} // closed to let the wait calls return
	stopped chan error    // the context errors that ended wait and nap calls
	once    sync.Once
}

func newRPC(opts ...jsonrpc.Option) *rpc {
	s := &rpc{Server: demo.NewServer(opts...), started: make(chan int, 4096), release: make(chan struct{}), stopped: make(chan error, 4096)}
	s.MustRegister("wait", func(ctx context.Context, x int) (int, error) {
		if _, ok := jsonrpc.CallOf(ctx).ContextValue().(*http.Request); !ok {
			return 0, errors.New("no *http.Request in the call")
		}
		s.started <- x
		select {
		case <-s.release:
			return x, nil
		case <-ctx.Done():
			s.stopped <- ctx.Err()
			return 0, ctx.Err()
		}
	}, jsonrpc.Blocking())
	s.MustRegister("nap", func(ctx context.Context, ms int) (int, error) {
		s.started <- 0
		t := time.NewTimer(time.Duration(ms) * time.Millisecond)
		defer t.Stop()
		select {
		case <-t.C:
			return ms, nil
		case <-ctx.Done():
			s.stopped <- ctx.Err()
			return 0, ctx.Err()
		}
	}, jsonrpc.Blocking())
	s.MustRegister("stubborn", func(sec int) int {
		time.Sleep(time.Duration(sec) * time.Second)
		return sec
	}, jsonrpc.Blocking())
	s.MustRegister("xs", func(n int) string { return strings.Repeat("x", n) })
	return s
}

func (s *rpc) releaseAll() { s.once.Do(func() { close(s.release) }) }

// serveTCP serves h on a loopback httptest server and returns its ws:// URL.
func serveTCP(t *testing.T, h http.Handler) string {
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return "ws" + strings.TrimPrefix(ts.URL, "http")
}

func send(t *testing.T, conn *websocket.Conn, msg string) {
	t.Helper()
	if err := conn.Write(context.Background(), websocket.MessageText, []byte(msg)); err != nil {
		t.Fatal(err)
	}
}

func call(method string, param any, id int) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","method":%q,"params":[%v],"id":%d}`, method, param, id)
}

// closed reports the error that ended r's reads, or nil when they have not
// ended.
func closed(r *reader) error {
	select {
	case err := <-r.err:
		r.err <- err
		return err
	default:
		return nil
	}
}

// Past MaxConns connections, an upgrade is refused with 503 before it is
// made; a connection that ends frees its place.
func TestMaxConns(t *testing.T) {
	leaktest.Check(t)
	s := newRPC()
	url := serveTCP(t, &ws.Handler{Server: s.Server, Limits: transport.Limits{MaxConns: 2, MaxConnsPerClient: 2}})
	ctx := context.Background()
	var conns []*websocket.Conn
	for range 2 {
		c, _, err := websocket.Dial(ctx, url, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer c.CloseNow()
		conns = append(conns, c)
	}
	for range 3 {
		c, resp, err := websocket.Dial(ctx, url, nil)
		if err == nil {
			c.CloseNow()
			t.Fatal("a third connection was accepted with MaxConns 2")
		}
		if resp == nil || resp.StatusCode != http.StatusServiceUnavailable {
			t.Fatalf("refused with %v, want status 503", err)
		}
	}
	// The connections in place are served.
	for i, c := range conns {
		send(t, c, call("addInt", "1,2", i))
		if _, msg, err := c.Read(ctx); err != nil || string(msg) != fmt.Sprintf(`{"jsonrpc":"2.0","result":3,"id":%d}`, i) {
			t.Fatalf("connection %d: %s, %v", i, msg, err)
		}
	}
	conns[0].Close(websocket.StatusNormalClosure, "")
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, _, err := websocket.Dial(ctx, url, nil)
		if err == nil {
			c.Close(websocket.StatusNormalClosure, "")
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a connection that ended did not free its place: %v", err)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// A connection with no call in flight is closed with 1001 (going away) after
// IdleTimeout without a message; a call in flight holds it open, and the
// timeout starts again when it is answered.
func TestIdleTimeout(t *testing.T) {
	for _, tc := range []struct {
		name string
		set  time.Duration
		want time.Duration
	}{
		{"default", 0, transport.Limits{}.WithDefaults().IdleTimeout},
		{"set", 10 * time.Second, 10 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := newRPC()
				ps := newPipeServer(t, &ws.Handler{Server: s.Server, Limits: transport.Limits{IdleTimeout: tc.set}})
				conn := ps.dial(t)
				r := readAll(conn)
				send(t, conn, call("addInt", "1,2", 1))
				<-r.msgs
				time.Sleep(tc.want - time.Millisecond)
				synctest.Wait()
				if err := closed(r); err != nil {
					t.Fatalf("closed before the idle timeout: %v", err)
				}
				// A message resets the timeout.
				send(t, conn, call("addInt", "1,2", 2))
				<-r.msgs
				time.Sleep(tc.want - time.Millisecond)
				synctest.Wait()
				if err := closed(r); err != nil {
					t.Fatalf("closed before the idle timeout after a message: %v", err)
				}
				// A call longer than the timeout is not cut off.
				send(t, conn, call("nap", (3*tc.want).Milliseconds(), 3))
				time.Sleep(3*tc.want - time.Millisecond)
				synctest.Wait()
				if err := closed(r); err != nil {
					t.Fatalf("closed with a call in flight: %v", err)
				}
				time.Sleep(time.Millisecond)
				if msg := <-r.msgs; !strings.Contains(msg, `"id":3`) {
					t.Fatalf("answer %s", msg)
				}
				// The timeout starts when the last call is answered.
				time.Sleep(tc.want - time.Millisecond)
				synctest.Wait()
				if err := closed(r); err != nil {
					t.Fatalf("closed before the idle timeout after a call: %v", err)
				}
				time.Sleep(2 * time.Millisecond)
				synctest.Wait()
				err := closed(r)
				if err == nil {
					t.Fatalf("open %v after the last message, with an idle timeout of %v", tc.want+time.Millisecond, tc.want)
				}
				if websocket.CloseStatus(err) != websocket.StatusGoingAway {
					t.Fatalf("closed with %v, want status 1001", err)
				}
			})
		})
	}
}

// A negative IdleTimeout keeps idle connections.
func TestIdleTimeoutDisabled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newRPC()
		ps := newPipeServer(t, &ws.Handler{Server: s.Server, Limits: transport.Limits{IdleTimeout: -1}})
		conn := ps.dial(t)
		r := readAll(conn)
		time.Sleep(24 * time.Hour)
		synctest.Wait()
		if err := closed(r); err != nil {
			t.Fatalf("closed: %v", err)
		}
		send(t, conn, call("addInt", "1,2", 1))
		if msg := <-r.msgs; msg != `{"jsonrpc":"2.0","result":3,"id":1}` {
			t.Fatalf("answer %s", msg)
		}
	})
}

// A message begun and not finished within ReadTimeout closes the connection
// with 1008 (policy violation), and its part is not run.
func TestReadTimeout(t *testing.T) {
	for _, tc := range []struct {
		name string
		set  time.Duration
		want time.Duration
	}{
		{"default", 0, transport.Limits{}.WithDefaults().ReadTimeout},
		{"set", 5 * time.Second, 5 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := newRPC()
				ps := newPipeServer(t, &ws.Handler{Server: s.Server, Limits: transport.Limits{ReadTimeout: tc.set, IdleTimeout: time.Hour}})
				conn := ps.dial(t)
				r := readAll(conn)
				time.Sleep(time.Minute) // idle: the read timeout is not running
				w, err := conn.Writer(context.Background(), websocket.MessageText)
				if err != nil {
					t.Fatal(err)
				}
				// Longer than the client's write buffer, so that the first
				// frame reaches the server.
				if _, err := w.Write([]byte(`{"jsonrpc":"2.0","method":"echo","params":["` + strings.Repeat("x", 64<<10))); err != nil {
					t.Fatal(err)
				}
				time.Sleep(tc.want - time.Millisecond)
				synctest.Wait()
				if err := closed(r); err != nil {
					t.Fatalf("closed before the read timeout: %v", err)
				}
				time.Sleep(2 * time.Millisecond)
				synctest.Wait()
				err = closed(r)
				if err == nil {
					t.Fatalf("a message begun %v ago is still being read, with a read timeout of %v", tc.want+time.Millisecond, tc.want)
				}
				if websocket.CloseStatus(err) != websocket.StatusPolicyViolation {
					t.Fatalf("closed with %v, want status 1008", err)
				}
				w.Write([]byte(`"],"id":1}`))
				w.Close()
				synctest.Wait()
				if msg, err := r.next(); err == nil {
					t.Errorf("the message was answered: %.100s", msg)
				}
			})
		})
	}
}

// Shutdown returns by its context's deadline, with the context's error,
// cancelling the calls still running: those that honour cancellation end,
// and one that does not cannot hold Shutdown up.
func TestShutdownDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newRPC()
		h := &ws.Handler{Server: s.Server}
		ps := newPipeServer(t, h)
		conn := ps.dial(t)
		r := readAll(conn)
		send(t, conn, call("wait", 1, 1))
		send(t, conn, call("stubborn", 30, 2))
		<-s.started
		synctest.Wait()
		start := time.Now()
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		err := h.Shutdown(ctx)
		if took := time.Since(start); took != time.Second || !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Shutdown with a 1s context returned %v after %v", err, took)
		}
		synctest.Wait()
		select {
		case err := <-s.stopped:
			if !errors.Is(err, context.Canceled) {
				t.Errorf("the call's context ended with %v", err)
			}
		default:
			t.Error("the call's context was not cancelled")
		}
		if closed(r) == nil {
			t.Error("the connection is open after Shutdown returned")
		}
		time.Sleep(30 * time.Second) // let the stubborn call end
	})
}

// Requests received but not started when Shutdown begins are answered with
// CodeLimitExceeded and "server shutting down", with their ids; the calls in
// flight finish and are answered; then the connection closes with 1001.
func TestShutdownRefusesUnstarted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newRPC()
		h := &ws.Handler{Server: s.Server, Limits: transport.Limits{MaxInFlight: 1}}
		ps := newPipeServer(t, h)
		conn := ps.dial(t)
		r := readAll(conn)
		send(t, conn, call("wait", 1, 1))
		<-s.started
		go func() {
			for _, m := range []string{
				call("addInt", "1,2", 2),
				`{"jsonrpc":"2.0","method":"notify_hello","params":[7]}`,
				`[` + call("addInt", "1,2", 3) + `,{"jsonrpc":"2.0","method":"notify_hello","params":[7]},` + call("wait", 5, 4) + `]`,
				`{"jsonrpc":"2.0","method":"addInt","params":[1,2],"id":"five"}`,
				`[{"jsonrpc":"2.0","method":"notify_hello","params":[7]}]`,
				`{"jsonrpc":"2.0","method":"addInt","params":[1,2],"id":{"x":1}}`,
				`{"jsonrpc":"2.0","method":"foobar,"params":"bar","baz]`,
			} {
				conn.Write(context.Background(), websocket.MessageText, []byte(m))
			}
		}()
		synctest.Wait()
		shut := make(chan error, 1)
		go func() { shut <- h.Shutdown(context.Background()) }()
		synctest.Wait()
		// New connections are refused at once.
		if c, resp, err := ps.tryDial(); err == nil {
			c.CloseNow()
			t.Error("a connection was accepted while shutting down")
		} else if resp == nil || resp.StatusCode != http.StatusServiceUnavailable {
			t.Errorf("refused with %v, want status 503", err)
		}
		const refused = `{"jsonrpc":"2.0","error":{"code":-32005,"message":"Limit exceeded","data":"server shutting down"},"id":`
		for _, want := range []string{
			refused + `2}`,
			`[` + refused + `3},` + refused + `4}]`,
			refused + `"five"}`,
			refused + `null}`,
			refused + `null}`,
		} {
			select {
			case got := <-r.msgs:
				if got != want {
					t.Errorf("got  %s\nwant %s", got, want)
				}
			default:
				t.Fatalf("no answer; want %s", want)
			}
		}
		select {
		case err := <-shut:
			t.Fatalf("Shutdown returned %v with a call in flight", err)
		default:
		}
		s.releaseAll()
		synctest.Wait()
		if got := <-r.msgs; got != `{"jsonrpc":"2.0","result":1,"id":1}` {
			t.Errorf("the call in flight: %s", got)
		}
		if err := closed(r); err != nil {
			t.Fatalf("closed with %v at once; want a quiet period for the messages on their way", err)
		}
		time.Sleep(time.Second) // the quiet period before the close, in the bubble's time
		synctest.Wait()
		if err := closed(r); websocket.CloseStatus(err) != websocket.StatusGoingAway {
			t.Errorf("closed with %v, want status 1001", err)
		}
		if err := <-shut; err != nil {
			t.Errorf("Shutdown: %v", err)
		}
		select {
		case x := <-s.started:
			t.Errorf("wait(%d) ran after Shutdown began", x)
		default:
		}
	})
}

// Every answer written before the close handshake reaches the client: 64
// pipelined calls, Shutdown while they run, 64 answers and a close frame
// with 1001, ten times over loopback TCP; with and without a Protocol, by
// which the connection is two-way from the start and its reading goroutine
// hands its answers to another to write.
func TestShutdownDeliversEveryAnswer(t *testing.T) {
	for _, tc := range []struct {
		name  string
		proto peer.Protocol
	}{{"none", peer.Protocol{}}, {"LSP", lsp.Protocol()}} {
		t.Run(tc.name, func(t *testing.T) { testShutdownDeliversEveryAnswer(t, tc.proto) })
	}
}

func testShutdownDeliversEveryAnswer(t *testing.T, proto peer.Protocol) {
	leaktest.Check(t)
	for run := range 10 {
		s := newRPC()
		h := &ws.Handler{Server: s.Server, Protocol: proto}
		url := serveTCP(t, h)
		conn, _, err := websocket.Dial(context.Background(), url, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.CloseNow()
		r := readAll(conn)
		for i := range 64 {
			send(t, conn, call("nap", 50, i))
		}
		// Half of the runs shut down once every call runs, half as soon as
		// the first does: calls received and not started get the shutdown
		// error instead of a result.
		all := run%2 == 0
		n := 1
		if all {
			n = 64
		}
		for range n {
			<-s.started
		}
		shut := make(chan error, 1)
		go func() { shut <- h.Shutdown(context.Background()) }()
		results, refusals := 0, 0
		ids := map[string]bool{}
		for len(ids) < 64 {
			msg, err := r.next()
			if err != nil {
				t.Fatalf("run %d: %d answers (%d results, %d refused), then %v", run, len(ids), results, refusals, err)
			}
			switch {
			case strings.Contains(msg, `"result":50`):
				results++
			case strings.Contains(msg, `"code":-32005`) && strings.Contains(msg, "server shutting down"):
				refusals++
			default:
				t.Fatalf("run %d: answer %s", run, msg)
			}
			ids[msg[strings.LastIndex(msg, `"id":`):]] = true
		}
		if all && results != 64 {
			t.Errorf("run %d: %d results of 64 calls that had started", run, results)
		}
		if msg, err := r.next(); websocket.CloseStatus(err) != websocket.StatusGoingAway {
			t.Errorf("run %d: after the answers, %q and %v; want a close with status 1001", run, msg, err)
		}
		if err := <-shut; err != nil {
			t.Errorf("run %d: Shutdown: %v", run, err)
		}
	}
}

// MaxInFlight counts the messages of a connection, and the server's
// MaxRunning bounds the goroutines its Blocking calls take: one connection
// sending batches of Blocking calls holds at most MaxRunning of them on
// goroutines (one more runs on its reading goroutine), not MaxInFlight times
// the batch size.
func TestConnGoroutinesBounded(t *testing.T) {
	leaktest.Check(t)
	const maxRunning, maxInFlight, batch = 8, 4, 50
	s := newRPC(jsonrpc.UseLimits(jsonrpc.Limits{MaxRunning: maxRunning, MaxRunningPerClient: maxRunning}))
	url := serveTCP(t, &ws.Handler{Server: s.Server, Limits: transport.Limits{MaxInFlight: maxInFlight}})
	conn := rawConn(t, url)
	r := readAll(conn)
	before := runtime.NumGoroutine()
	for m := range maxInFlight * 2 {
		var b strings.Builder
		b.WriteByte('[')
		for i := range batch {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(call("wait", m*batch+i, m*batch+i))
		}
		b.WriteByte(']')
		send(t, conn, b.String())
	}
	for range maxRunning + 1 {
		<-s.started
	}
	select {
	case x := <-s.started:
		t.Fatalf("call %d started beyond MaxRunning+1 = %d", x, maxRunning+1)
	case <-time.After(50 * time.Millisecond):
	}
	if n := runtime.NumGoroutine() - before; n > maxRunning+2 {
		t.Errorf("%d more goroutines with %d batches of %d Blocking calls; want at most MaxRunning+2 = %d", n, maxInFlight*2, batch, maxRunning+2)
	}
	s.releaseAll()
	for range maxInFlight * 2 {
		select {
		case msg := <-r.msgs:
			if strings.Count(msg, `"result"`) != batch {
				t.Errorf("batch answer %.200s", msg)
			}
		case err := <-r.err:
			t.Fatal(err)
		}
	}
}

// A response at the server's MaxResponse is written whole and reaches a
// client of ws.Dial; one byte more is answered with CodeLimitExceeded. At
// the default MaxResponse (16 MiB), a response near the limit passes the
// client's read limit (client.DefaultMaxMessage, 64 MiB).
func TestResponseLimit(t *testing.T) {
	leaktest.Check(t)
	const overhead = len(`{"jsonrpc":"2.0","result":"","id":1}`)
	for _, tc := range []struct {
		name  string
		limit int // MaxResponse, 0 for the default
		n     int
		ok    bool
	}{
		{"at", 1 << 20, 1<<20 - overhead, true},
		{"over", 1 << 20, 1<<20 - overhead + 1, false},
		{"default", 0, 16<<20 - overhead, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newRPC(jsonrpc.UseLimits(jsonrpc.Limits{MaxResponse: tc.limit}))
			c := dial(t, serveTCP(t, &ws.Handler{Server: s.Server}))
			got, err := client.Call[string](context.Background(), c, "xs", []int{tc.n})
			switch {
			case tc.ok && (err != nil || len(got) != tc.n || strings.Trim(got, "x") != ""):
				t.Errorf("repeat(%d): %d bytes, %v", tc.n, len(got), err)
			case !tc.ok && jsonrpc.ErrorCode(err) != jsonrpc.CodeLimitExceeded:
				t.Errorf("repeat(%d) over the limit: %d bytes, %v", tc.n, len(got), err)
			}
			// The connection goes on.
			if got, err := client.Call[int](context.Background(), c, "addInt", []int{1, 2}); err != nil || got != 3 {
				t.Errorf("next call: %d, %v", got, err)
			}
		})
	}
}

// A frame that declares more than MaxMessage bytes is read only up to the
// limit and closes the connection with 1009; nothing is allocated from the
// length it declares.
func TestDeclaredLengthNotAllocated(t *testing.T) {
	leaktest.Check(t)
	const limit = 1 << 20
	s := newRPC()
	url := serveTCP(t, &ws.Handler{Server: s.Server, Limits: transport.Limits{MaxMessage: limit}})
	nc, err := net.Dial("tcp", strings.TrimPrefix(url, "ws://"))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(30 * time.Second))
	fmt.Fprintf(nc, "GET / HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n", strings.TrimPrefix(url, "ws://"))
	br := bufio.NewReader(nc)
	resp, err := http.ReadResponse(br, nil)
	if err != nil || resp.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("upgrade: %v, %v", resp, err)
	}
	payload := []byte(strings.Repeat("x", 2*limit))
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	// A text frame declaring 1 TiB, masked with a zero key, then 2 MiB of
	// its payload.
	hdr := []byte{0x81, 0x80 | 127, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0}
	if _, err := nc.Write(append(hdr, `["`...)); err != nil {
		t.Fatal(err)
	}
	go nc.Write(payload) // the server stops reading it
	// The server's close frame: 0x88, a length, then the status.
	frame := make([]byte, 4)
	if _, err := io.ReadFull(br, frame); err != nil {
		t.Fatal(err)
	}
	if code := int(frame[2])<<8 | int(frame[3]); frame[0] != 0x88 || code != int(websocket.StatusMessageTooBig) {
		t.Fatalf("frame % x, want a close frame with status 1009", frame)
	}
	runtime.ReadMemStats(&after)
	t.Logf("grew %d", after.TotalAlloc-before.TotalAlloc)
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 4*limit {
		t.Errorf("%d bytes allocated reading a frame that declares 1 TiB, with MaxMessage %d", grew, limit)
	}
}

// Shutdown returns by its deadline when a peer does not answer the close
// frame: the library's close handshake would wait for it five seconds.
func TestShutdownDeadlineSilentPeer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newRPC()
		h := &ws.Handler{Server: s.Server}
		ps := newPipeServer(t, h)
		nc, err := ps.l.dial(context.Background(), "", "")
		if err != nil {
			t.Fatal(err)
		}
		defer nc.Close()
		go fmt.Fprintf(nc, "GET / HTTP/1.1\r\nHost: pipe\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
		br := bufio.NewReader(nc)
		if resp, err := http.ReadResponse(br, nil); err != nil || resp.StatusCode != http.StatusSwitchingProtocols {
			t.Fatalf("upgrade: %v, %v", resp, err)
		}
		read := make(chan error, 1)
		go func() { // reads the close frame and never answers it
			_, err := io.Copy(io.Discard, br)
			read <- err
		}()
		synctest.Wait() // the connection is served
		start := time.Now()
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		err = h.Shutdown(ctx)
		if took := time.Since(start); took != time.Second || !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Shutdown with a 1s context returned %v after %v", err, took)
		}
		synctest.Wait()
		select {
		case <-read:
		default:
			t.Error("the connection is open after Shutdown returned")
		}
	})
}

// A message being read when Shutdown begins, with no call in flight, is
// answered with the shutdown error before the connection closes; also when
// a Protocol makes the connection two-way, and its answers are written by
// a goroutine other than the one that reads.
func TestShutdownAnswersMessageInProgress(t *testing.T) {
	for _, tc := range []struct {
		name  string
		proto peer.Protocol
	}{{"none", peer.Protocol{}}, {"LSP", lsp.Protocol()}} {
		t.Run(tc.name, func(t *testing.T) { testShutdownAnswersMessageInProgress(t, tc.proto) })
	}
}

func testShutdownAnswersMessageInProgress(t *testing.T, proto peer.Protocol) {
	synctest.Test(t, func(t *testing.T) {
		s := newRPC()
		h := &ws.Handler{Server: s.Server, Protocol: proto}
		ps := newPipeServer(t, h)
		conn := ps.dial(t)
		r := readAll(conn)
		w, err := conn.Writer(context.Background(), websocket.MessageText)
		if err != nil {
			t.Fatal(err)
		}
		// Longer than the client's write buffer, so that the first frame
		// reaches the server.
		w.Write([]byte(`{"jsonrpc":"2.0","method":"echo","params":["` + strings.Repeat("x", 64<<10)))
		synctest.Wait()
		shut := make(chan error, 1)
		go func() { shut <- h.Shutdown(context.Background()) }()
		time.Sleep(time.Second)
		w.Write([]byte(`"],"id":1}`))
		w.Close()
		synctest.Wait()
		want := `{"jsonrpc":"2.0","error":{"code":-32005,"message":"Limit exceeded","data":"server shutting down"},"id":1}`
		if msg, err := r.next(); msg != want {
			t.Errorf("answer %q, %v; want %s", msg, err, want)
		}
		if _, err := r.next(); websocket.CloseStatus(err) != websocket.StatusGoingAway {
			t.Errorf("closed with %v, want status 1001", err)
		}
		if err := <-shut; err != nil {
			t.Errorf("Shutdown: %v", err)
		}
	})
}

// MaxBuffered bounds what large messages being read hold over all
// connections: a connection whose message would pass it is closed with 1013
// (try again later), while the others are served, and the room comes back
// once their messages are answered.
func TestMaxBuffered(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newRPC()
		ps := newPipeServer(t, &ws.Handler{Server: s.Server, Limits: transport.Limits{MaxBuffered: 256 << 10}})
		echo := func(n int) (string, string) {
			req := `{"jsonrpc":"2.0","method":"echo","params":["` + strings.Repeat("x", n) + `"],"id":1}`
			return req, `{"jsonrpc":"2.0","result":"` + strings.Repeat("x", n) + `","id":1}`
		}
		// a holds about 192 KiB of the budget while its message is read.
		a := ps.dial(t)
		a.SetReadLimit(1 << 20)
		ra := readAll(a)
		aw, err := a.Writer(context.Background(), websocket.MessageText)
		if err != nil {
			t.Fatal(err)
		}
		reqA, wantA := echo(200 << 10)
		if _, err := aw.Write([]byte(reqA[:150<<10])); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		// b's message needs more than what is left.
		b := ps.dial(t)
		rb := readAll(b)
		reqB, _ := echo(150 << 10)
		go b.Write(context.Background(), websocket.MessageText, []byte(reqB))
		synctest.Wait()
		if _, err := rb.next(); websocket.CloseStatus(err) != websocket.StatusTryAgainLater {
			t.Fatalf("b: %v, want a close with status 1013", err)
		}
		// a goes on, and is answered.
		aw.Write([]byte(reqA[150<<10:]))
		aw.Close()
		if got, err := ra.next(); err != nil || got != wantA {
			t.Fatalf("a: %.80s, %v", got, err)
		}
		// The room is back: a large message on a new connection is read.
		c := ps.dial(t)
		c.SetReadLimit(1 << 20)
		rc := readAll(c)
		reqC, wantC := echo(150 << 10)
		if err := c.Write(context.Background(), websocket.MessageText, []byte(reqC)); err != nil {
			t.Fatal(err)
		}
		if got, err := rc.next(); err != nil || got != wantC {
			t.Fatalf("c: %.80s, %v", got, err)
		}
		// Small messages never count.
		if err := c.Write(context.Background(), websocket.MessageText, []byte(`{"jsonrpc":"2.0","method":"echo","params":["y"],"id":2}`)); err != nil {
			t.Fatal(err)
		}
		if got, err := rc.next(); err != nil || got != `{"jsonrpc":"2.0","result":"y","id":2}` {
			t.Fatalf("c, small: %s, %v", got, err)
		}
		a.CloseNow()
		b.CloseNow()
		c.CloseNow()
	})
}

// TestMaxConnsPerClient: one client holds at most its share of MaxConns,
// half by default: an upgrade past it is refused with 429 and Retry-After,
// while another client (here named by ClientKey from a header, as behind
// a proxy) is served.
func TestMaxConnsPerClient(t *testing.T) {
	leaktest.Check(t)
	s := newRPC()
	url := serveTCP(t, &ws.Handler{Server: s.Server, Limits: transport.Limits{MaxConns: 4},
		ClientKey: func(r *http.Request) string { return r.Header.Get("X-Client") }})
	ctx := context.Background()
	dial := func(client string) (*websocket.Conn, *http.Response, error) {
		return websocket.Dial(ctx, url, &websocket.DialOptions{HTTPHeader: http.Header{"X-Client": {client}}})
	}
	for range 2 {
		c, _, err := dial("a")
		if err != nil {
			t.Fatal(err)
		}
		defer c.CloseNow()
	}
	c, resp, err := dial("a")
	if err == nil {
		c.CloseNow()
		t.Fatal("an upgrade past the client's share was accepted")
	}
	if resp == nil || resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" {
		t.Errorf("past the share: %v, want 429 with Retry-After", resp)
	}
	b, _, err := dial("b")
	if err != nil {
		t.Fatalf("another client: %v", err)
	}
	defer b.CloseNow()
	send(t, b, call("Test2", 5, 1))
	if _, msg, err := b.Read(ctx); err != nil || string(msg) != `{"jsonrpc":"2.0","result":5,"id":1}` {
		t.Errorf("another client: %s, %v", msg, err)
	}
}
