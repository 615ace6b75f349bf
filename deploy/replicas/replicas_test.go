package replicas

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/jsonrpc-go/jsonrpc/deploy/internal/proc"
)

// events is how many values the test publishes through the replicas.
const events = 10000

// wait bounds each wait of the test; the whole run is bounded by the
// count of events and, for each, by wait.
const wait = 15 * time.Second

// brokerBinary returns the path of the broker's program name, looked up
// in PATH and in dirs. When it is missing the test is skipped, unless
// JSONRPC_BROKERS=required, which fails it.
func brokerBinary(t *testing.T, name string, dirs ...string) string {
	t.Helper()
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	for _, d := range dirs {
		if p := filepath.Join(d, name); fileExists(p) {
			return p
		}
	}
	if os.Getenv("JSONRPC_BROKERS") == "required" {
		t.Fatalf("%s is not installed, and JSONRPC_BROKERS=required", name)
	}
	t.Skipf("%s is not installed (Debian: apt-get install %s); JSONRPC_BROKERS=required fails instead", name, name)
	return ""
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

func TestMain(m *testing.M) { proc.Main(m) }

// A process is a child process the test started.
type process = proc.Process

// start starts name with args and waits until it accepts connections on
// addr; the test's cleanup stops it (SIGTERM, killed after wait).
func start(t *testing.T, addr, name string, args ...string) *process {
	t.Helper()
	p := proc.Start(t, name, args...)
	t.Cleanup(func() { p.Stop(wait) })
	proc.WaitListening(t, name, addr, wait, p.Exited, p.Output)
	return p
}

// A broker is a message broker the replicas share.
type broker struct {
	name  string
	url   func(addr string) string
	start func(t *testing.T, addr string) *process
}

var brokers = []broker{
	{
		name: "nats",
		url:  func(addr string) string { return "nats://" + addr },
		start: func(t *testing.T, addr string) *process {
			bin := brokerBinary(t, "nats-server", "/usr/sbin", "/usr/bin")
			host, port, _ := net.SplitHostPort(addr)
			return start(t, addr, bin, "-a", host, "-p", port)
		},
	},
	{
		name: "redis",
		url:  func(addr string) string { return "redis://" + addr },
		start: func(t *testing.T, addr string) *process {
			bin := brokerBinary(t, "redis-server", "/usr/bin", "/usr/sbin")
			host, port, _ := net.SplitHostPort(addr)
			return start(t, addr, bin, "--bind", host, "--port", port, "--save", "", "--appendonly", "no", "--dir", t.TempDir())
		},
	},
}

// wsConn is a WebSocket connection to a replica that reads its messages
// into a channel.
type wsConn struct {
	c    *websocket.Conn
	msgs chan string
}

func dialWS(t *testing.T, addr string) *wsConn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	c, _, err := websocket.Dial(ctx, "ws://"+addr+"/ws", nil)
	if err != nil {
		t.Fatal(err)
	}
	c.SetReadLimit(1 << 20)
	w := &wsConn{c: c, msgs: make(chan string, 2*events)}
	go func() {
		defer close(w.msgs)
		for {
			_, b, err := c.Read(context.Background())
			if err != nil {
				return
			}
			w.msgs <- string(b)
		}
	}()
	t.Cleanup(func() { c.CloseNow() })
	return w
}

func (w *wsConn) send(t *testing.T, msg string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	if err := w.c.Write(ctx, websocket.MessageText, []byte(msg)); err != nil {
		t.Fatal(err)
	}
}

// next returns the next message, within wait.
func (w *wsConn) next(t *testing.T) string {
	t.Helper()
	select {
	case m, ok := <-w.msgs:
		if !ok {
			t.Fatal("the connection closed")
		}
		return m
	case <-time.After(wait):
		t.Fatalf("no message within %v", wait)
	}
	return ""
}

// subscribe subscribes w to the feed and returns the subscription's id.
func (w *wsConn) subscribe(t *testing.T) string {
	t.Helper()
	w.send(t, `{"jsonrpc":"2.0","method":"subscribe","id":1}`)
	answer := w.next(t)
	id, ok := strings.CutPrefix(answer, `{"jsonrpc":"2.0","result":"`)
	if !ok || !strings.HasSuffix(id, `","id":1}`) {
		t.Fatalf("subscribe answered %s", answer)
	}
	return strings.TrimSuffix(id, `","id":1}`)
}

// publish publishes s through w and waits for the answer.
func (w *wsConn) publish(t *testing.T, s string, id int) string {
	t.Helper()
	w.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","method":"publish","params":[%q,1],"id":%d}`, s, id))
	return w.next(t)
}

func notification(sub, s string) string {
	return `{"jsonrpc":"2.0","method":"subscription","params":{"subscription":"` + sub + `","result":"` + s + `"}}`
}

// TestReplicas: three jsonrpcd (A, B, C) on one broker, for each broker.
// A WebSocket subscriber on A receives, in order and exactly once, the
// events published through B and C alternately, each publish answered
// before the next is sent. Then the broker is killed and started again at
// the same address: both replicas reconnect, and delivery resumes within
// 5 s.
func TestReplicas(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a broker and three jsonrpcd per broker")
	}
	for _, b := range brokers {
		t.Run(b.name, func(t *testing.T) {
			baddr := proc.FreeAddr(t)
			bp := b.start(t, baddr)
			bin := proc.Jsonrpcd(t)
			var ws [3]*wsConn
			for i := range ws {
				addr := proc.FreeAddr(t)
				start(t, addr, bin, "-http", addr, "-tcp", "", "-log-level", "warn", "-broker", b.url(baddr))
				ws[i] = dialWS(t, addr)
			}
			a, pubs := ws[0], ws[1:]
			sub := a.subscribe(t)

			began := time.Now()
			done := make(chan error, 1)
			go func() {
				for i := range events {
					m, ok := <-a.msgs
					if !ok {
						done <- fmt.Errorf("the subscriber's connection closed after %d events", i)
						return
					}
					if want := notification(sub, fmt.Sprint(i)); m != want {
						done <- fmt.Errorf("event %d: %s, want %s", i, m, want)
						return
					}
				}
				done <- nil
			}()
			for i := range events {
				if got, want := pubs[i%2].publish(t, fmt.Sprint(i), i), fmt.Sprintf(`{"jsonrpc":"2.0","result":0,"id":%d}`, i); got != want {
					t.Fatalf("publish %d answered %s, want %s", i, got, want)
				}
			}
			select {
			case err := <-done:
				if err != nil {
					t.Fatal(err)
				}
			case <-time.After(wait):
				t.Fatalf("not all %d events came within %v of the last publish", events, wait)
			}
			t.Logf("%d events through B and C to A in %v", events, time.Since(began).Round(time.Millisecond))
			select {
			case m := <-a.msgs:
				t.Fatalf("a message past the last event: %s", m)
			default:
			}

			// The broker restarts; delivery resumes within 5 s. What is
			// published while a replica is away is lost (at most once):
			// publish probes until one arrives.
			bp.Kill()
			restarted := time.Now()
			b.start(t, baddr)
			const resume = 5 * time.Second
			deadline := time.Now().Add(resume)
			for i := events; ; i++ {
				if time.Now().After(deadline) {
					t.Fatalf("no event came through within %v of the broker's restart", resume)
				}
				pubs[i%2].publish(t, fmt.Sprint(i), i) // may fail while reconnecting
				select {
				case m := <-a.msgs:
					if !strings.HasPrefix(m, strings.TrimSuffix(notification(sub, ""), `"}}`)) {
						t.Fatalf("after the restart: %s", m)
					}
					t.Logf("delivery resumed %v after the broker was started again", time.Since(restarted).Round(time.Millisecond))
					return
				case <-time.After(50 * time.Millisecond): // the next probe
				}
			}
		})
	}
}
