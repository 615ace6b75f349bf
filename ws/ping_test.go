//go:build !js

package ws_test

import (
	"bytes"
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/coder/websocket"
	"github.com/jsonrpc-go/jsonrpc/transport"

	"github.com/jsonrpc-go/jsonrpc/client"
	"github.com/jsonrpc-go/jsonrpc/internal/testutil"
	"github.com/jsonrpc-go/jsonrpc/ws"
)

// Intervals of the ping tests.
const (
	pingEvery = 10 * time.Second
	pongWait  = 5 * time.Second
)

// bufferedConn is a net.Conn whose writes are buffered, up to 64 of them,
// as a socket's are: over a bare pipe, a write (a pong) waits for the
// other end to read, which a server that has paused its reading does not.
type bufferedConn struct {
	net.Conn
	q    chan []byte
	done chan struct{}
	once sync.Once
}

func newBufferedConn(c net.Conn) *bufferedConn {
	b := &bufferedConn{Conn: c, q: make(chan []byte, 64), done: make(chan struct{})}
	go func() {
		for {
			select {
			case p := <-b.q:
				if _, err := c.Write(p); err != nil {
					return
				}
			case <-b.done:
				return
			}
		}
	}()
	return b
}

func (b *bufferedConn) Write(p []byte) (int, error) {
	select {
	case b.q <- bytes.Clone(p):
		return len(p), nil
	case <-b.done:
		return 0, net.ErrClosed
	}
}

func (b *bufferedConn) Close() error {
	b.once.Do(func() { close(b.done) })
	return b.Conn.Close()
}

// dialPings opens a WebSocket connection to ps, whose writes are buffered
// (bufferedConn), whose answers to pings answer decides (true: answer
// it), and which counts the pings it receives.
func dialPings(t *testing.T, ps *pipeServer, answer func() bool) (*websocket.Conn, *atomic.Int32) {
	t.Helper()
	var pings atomic.Int32
	tr := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := ps.l.dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return newBufferedConn(c), nil
	}}
	t.Cleanup(tr.CloseIdleConnections)
	conn, _, err := websocket.Dial(context.Background(), "ws://pipe/", &websocket.DialOptions{
		HTTPClient: &http.Client{Transport: tr},
		OnPingReceived: func(context.Context, []byte) bool {
			pings.Add(1)
			return answer()
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.CloseNow() })
	return conn, &pings
}

// A peer that reads but answers no ping is closed with 1011 (internal
// error) PingInterval+PongTimeout after it connected, not before, and the
// close is logged at Warn with its reason.
func TestPingSilentPeer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		log, rec := testutil.NewLog()
		ps := newPipeServer(t, &ws.Handler{Server: newRPC().Server, Logger: log, Limits: transport.Limits{PingInterval: pingEvery, PongTimeout: pongWait, IdleTimeout: -1}})
		conn, pings := dialPings(t, ps, func() bool { return false })
		r := readAll(conn)
		time.Sleep(pingEvery + pongWait - time.Millisecond)
		synctest.Wait()
		if err := closed(r); err != nil {
			t.Fatalf("closed before PingInterval+PongTimeout: %v", err)
		}
		if n := pings.Load(); n != 1 {
			t.Fatalf("%d pings received, want 1", n)
		}
		time.Sleep(time.Millisecond)
		synctest.Wait()
		err := closed(r)
		if err == nil {
			t.Fatal("a peer that answers no ping is still connected after PingInterval+PongTimeout")
		}
		if websocket.CloseStatus(err) != websocket.StatusInternalError {
			t.Fatalf("closed with %v, want status 1011", err)
		}
		found := rec.Find(t, "closing")
		if len(found) != 1 {
			t.Fatalf("%d closing records; the log:\n%s", len(found), rec.String())
		}
		testutil.Want(t, found[0], "WARN", map[string]any{"code": float64(websocket.StatusInternalError), "reason": "ping timeout"})
	})
}

// A peer that stops reading altogether (its machine asleep) cannot even
// take the ping, over a pipe: it is disconnected PingInterval+PongTimeout
// after it connected, with 1011, or, past the 5 s the library gives the
// write of a ping, then, with no close frame (1006); the close is logged
// and the connection's goroutines end.
func TestPingFrozenPeer(t *testing.T) {
	for _, tc := range []struct {
		timeout time.Duration
		after   time.Duration
		code    websocket.StatusCode
	}{
		{3 * time.Second, 3 * time.Second, websocket.StatusInternalError},
		{0, 5 * time.Second, websocket.StatusAbnormalClosure},
	} {
		t.Run(tc.code.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				log, rec := testutil.NewLog()
				ps := newPipeServer(t, &ws.Handler{Server: newRPC().Server, Logger: log, Limits: transport.Limits{PingInterval: pingEvery, PongTimeout: tc.timeout, IdleTimeout: -1}})
				ps.dial(t) // and never read
				time.Sleep(pingEvery + tc.after - time.Millisecond)
				synctest.Wait()
				if found := rec.Find(t, "closing"); len(found) != 0 {
					t.Fatalf("closing before PingInterval+%v: %v", tc.after, found)
				}
				time.Sleep(time.Millisecond)
				synctest.Wait()
				found := rec.Find(t, "closing")
				if len(found) != 1 {
					t.Fatalf("%d closing records after PingInterval+%v; the log:\n%s", len(found), tc.after, rec.String())
				}
				testutil.Want(t, found[0], "WARN", map[string]any{"code": float64(tc.code), "reason": "ping timeout"})
				if len(rec.Find(t, "connection closed")) != 1 {
					t.Fatalf("the connection has not ended; the log:\n%s", rec.String())
				}
			})
		})
	}
}

// A peer that answers its pings is never closed for them, also while
// MaxInFlight calls run and the connection has paused its reading, when
// the pongs wait unread: the ping then waits, and is not counted missed.
func TestPingLivePeer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newRPC()
		ps := newPipeServer(t, &ws.Handler{Server: s.Server, Limits: transport.Limits{PingInterval: pingEvery, PongTimeout: pongWait, MaxInFlight: 1, IdleTimeout: -1}})
		conn, pings := dialPings(t, ps, func() bool { return true })
		r := readAll(conn)
		time.Sleep(10 * time.Minute)
		synctest.Wait()
		if err := closed(r); err != nil {
			t.Fatalf("a live peer was closed: %v", err)
		}
		if n := pings.Load(); n < 50 {
			t.Fatalf("%d pings in 10 minutes, every %v", n, pingEvery)
		}
		// One call runs, one waits to run, and the third waits for room,
		// which stops the reading.
		const calls = 3
		for i := range calls {
			send(t, conn, call("wait", i, i))
		}
		<-s.started
		synctest.Wait()
		before := pings.Load()
		time.Sleep(10 * time.Minute)
		synctest.Wait()
		if err := closed(r); err != nil {
			t.Fatalf("a live peer was closed while its connection paused reading: %v", err)
		}
		// The ping sent while the reading paused waits for its pong: no
		// other is sent.
		if n := pings.Load() - before; n != 1 {
			t.Fatalf("%d pings while the reading paused, want 1 (a pong read would let the next go)", n)
		}
		s.releaseAll()
		for range calls {
			if msg, err := r.next(); err != nil || !strings.Contains(msg, `"result"`) {
				t.Fatalf("answer %s, %v", msg, err)
			}
		}
		before = pings.Load()
		time.Sleep(10 * time.Minute)
		synctest.Wait()
		if err := closed(r); err != nil {
			t.Fatalf("a live peer was closed: %v", err)
		}
		if n := pings.Load() - before; n < 50 {
			t.Fatalf("%d pings in 10 minutes after the reading went on", n)
		}
	})
}

// A negative PingInterval or PongTimeout sends no pings.
func TestPingsOff(t *testing.T) {
	for _, lim := range []transport.Limits{{PingInterval: -1}, {PongTimeout: -1}} {
		synctest.Test(t, func(t *testing.T) {
			lim.IdleTimeout = -1
			ps := newPipeServer(t, &ws.Handler{Server: newRPC().Server, Limits: lim})
			conn, pings := dialPings(t, ps, func() bool { return false })
			r := readAll(conn)
			time.Sleep(24 * time.Hour)
			synctest.Wait()
			if err := closed(r); err != nil {
				t.Fatalf("closed: %v", err)
			}
			if n := pings.Load(); n != 0 {
				t.Fatalf("%d pings with %+v", n, lim)
			}
		})
	}
}

// A client whose channel pings (DialWith) fails its calls with
// client.ErrClosed once the server misses a pong, PingInterval+PongTimeout
// after it connected; a server that answers keeps it connected.
func TestClientPings(t *testing.T) {
	pings := ws.Pings{Interval: pingEvery, Timeout: pongWait}
	t.Run("silent", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			// A server that reads every frame and answers nothing, pings
			// included.
			ps := newPipeServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				conn, err := websocket.Accept(w, r, &websocket.AcceptOptions{OnPingReceived: func(context.Context, []byte) bool { return false }})
				if err != nil {
					return
				}
				defer conn.CloseNow()
				for {
					if _, _, err := conn.Read(r.Context()); err != nil {
						return
					}
				}
			}))
			ch, err := ws.DialWith(context.Background(), "ws://pipe/", &websocket.DialOptions{HTTPClient: &http.Client{Transport: ps.tr}}, pings)
			if err != nil {
				t.Fatal(err)
			}
			c := client.New(ch)
			defer c.Close()
			failed := make(chan error, 1)
			go func() {
				_, err := client.Call[int](context.Background(), c, "addInt", []int{1, 2})
				failed <- err
			}()
			time.Sleep(pingEvery + pongWait - time.Millisecond)
			synctest.Wait()
			select {
			case err := <-failed:
				t.Fatalf("the call ended before PingInterval+PongTimeout: %v", err)
			default:
			}
			time.Sleep(time.Millisecond)
			synctest.Wait()
			select {
			case err := <-failed:
				if !errors.Is(err, client.ErrClosed) || !strings.Contains(err.Error(), "did not answer a ping") {
					t.Fatalf("the call failed with %v, want client.ErrClosed and the missed ping", err)
				}
			default:
				t.Fatal("a call to a server that answers no ping still waits after PingInterval+PongTimeout")
			}
			if _, err := client.Call[int](context.Background(), c, "addInt", []int{1, 2}); !errors.Is(err, client.ErrClosed) {
				t.Fatalf("a later call: %v, want client.ErrClosed", err)
			}
		})
	})
	t.Run("live", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			ps := newPipeServer(t, &ws.Handler{Server: newRPC().Server, Limits: transport.Limits{IdleTimeout: -1, PingInterval: -1}})
			ch, err := ws.DialWith(context.Background(), "ws://pipe/", &websocket.DialOptions{HTTPClient: &http.Client{Transport: ps.tr}}, pings)
			if err != nil {
				t.Fatal(err)
			}
			c := client.New(ch)
			defer c.Close()
			time.Sleep(time.Hour)
			synctest.Wait()
			if n, err := client.Call[int](context.Background(), c, "addInt", []int{1, 2}); err != nil || n != 3 {
				t.Fatalf("after an hour of pings: %d, %v", n, err)
			}
		})
	})
}
