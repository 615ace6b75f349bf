package peer_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/client"
	"github.com/jsonrpc-go/jsonrpc/framing"
	"github.com/jsonrpc-go/jsonrpc/internal/leaktest"
	"github.com/jsonrpc-go/jsonrpc/internal/peertest"
	"github.com/jsonrpc-go/jsonrpc/peer"
	"github.com/jsonrpc-go/jsonrpc/protocol/lsp"
	"github.com/jsonrpc-go/jsonrpc/protocol/mcp"
	"github.com/jsonrpc-go/jsonrpc/stream"
	"github.com/jsonrpc-go/jsonrpc/transport"
)

// wait bounds every wait of the tests.
const wait = peertest.Wait

var orders = peertest.Orders

// dial returns a client over a pipe to s (peertest.DialPipe).
var dial = peertest.DialPipe

// TestCallbackFromRequest and TestCallbackFromNotification: calls from a
// method to its caller, over each framing (package peertest).
func TestCallbackFromRequest(t *testing.T) {
	leaktest.Check(t)
	for _, fr := range []framing.Framing{framing.Line, framing.Header, framing.Raw} {
		t.Run(fmt.Sprintf("%T", fr), func(t *testing.T) { peertest.CallbackFromRequest(t, dialer(fr)) })
	}
}

func TestCallbackFromNotification(t *testing.T) {
	leaktest.Check(t)
	peertest.CallbackFromNotification(t, dialer(framing.Line))
}

// dialer serves over a pipe with framing fr.
func dialer(fr framing.Framing) peertest.Dial {
	return func(t *testing.T, order peer.Ordering, srv *jsonrpc.Server, opts ...client.Option) *client.Client {
		return dial(t, &stream.Server{Server: srv, Order: order, Framing: fr}, opts...)
	}
}

// TestCallFromInlineMethod: a method not registered Blocking cannot wait
// for its peer; its call fails at once instead of deadlocking the
// connection.
func TestCallFromInlineMethod(t *testing.T) {
	leaktest.Check(t)
	c := dial(t, &stream.Server{Server: peertest.CallbackServer()}, client.Serve(peertest.ClientMethods(nil)))
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	_, err := c.CallRaw(ctx, "inline", nil)
	var e *jsonrpc.Error
	if !errors.As(err, &e) || e.Code != jsonrpc.CodeServerError {
		t.Fatalf("inline: err = %v, want a server error", err)
	}
	// The connection still works.
	if got, err := client.Call[string](ctx, c, "ask", []any{"x"}); err != nil || got != "hello X" {
		t.Fatalf("ask = %q, %v", got, err)
	}
}

// TestErrNotBlocking: the error the method gets is ErrNotBlocking.
func TestErrNotBlocking(t *testing.T) {
	leaktest.Check(t)
	srv := jsonrpc.NewServer()
	got := make(chan error, 1)
	srv.MustRegister("inline", func(ctx context.Context) {
		got <- peer.FromContext(ctx).Call(ctx, "x", nil, nil)
	})
	r := peertest.NewRaw(t, &stream.Server{Server: srv})
	r.Send(`{"jsonrpc":"2.0","method":"inline"}`)
	select {
	case err := <-got:
		if !errors.Is(err, peer.ErrNotBlocking) {
			t.Fatalf("err = %v, want ErrNotBlocking", err)
		}
	case <-time.After(wait):
		t.Fatal("the call waited")
	}
}

// waitServer's "wait" (Blocking) waits for release or its context and
// reports how it ended; "count" counts its calls; "edit", a Blocking
// notification, sets the text after release; "text" answers it.
type waitServer struct {
	*jsonrpc.Server
	started chan int
	ended   chan error
	release chan struct{}
	count   atomic.Int32
	mu      sync.Mutex
	text    string
}

func newWaitServer() *waitServer {
	w := &waitServer{Server: jsonrpc.NewServer(), started: make(chan int, 16), ended: make(chan error, 16), release: make(chan struct{})}
	w.MustRegister("wait", func(ctx context.Context, n int) (int, error) {
		w.started <- n
		select {
		case <-w.release:
			w.ended <- nil
			return n, nil
		case <-ctx.Done():
			w.ended <- ctx.Err()
			return 0, ctx.Err()
		}
	}, jsonrpc.Blocking())
	w.MustRegister("count", func() int32 { return w.count.Add(1) })
	w.MustRegister("edit", func(ctx context.Context, s string) {
		<-w.release
		w.mu.Lock()
		w.text = s
		w.mu.Unlock()
	}, jsonrpc.Blocking())
	w.MustRegister("text", func() string {
		w.mu.Lock()
		defer w.mu.Unlock()
		return w.text
	})
	return w
}

func (w *waitServer) awaitStarted(t *testing.T, n int) {
	t.Helper()
	select {
	case got := <-w.started:
		if got != n {
			t.Fatalf("wait(%d) started, want wait(%d)", got, n)
		}
	case <-time.After(wait):
		t.Fatalf("wait(%d) did not start", n)
	}
}

func (w *waitServer) awaitEnded(t *testing.T) error {
	t.Helper()
	select {
	case err := <-w.ended:
		return err
	case <-time.After(wait):
		t.Fatal("wait did not end")
		return nil
	}
}

const cancelledAnswer = `{"jsonrpc":"2.0","error":{"code":-32800,"message":"Request cancelled"},"id":%s}`

// TestCancelWhileRunning: LSP's $/cancelRequest cancels the running call's
// context, and the call is answered with -32800, under every ordering; the
// connection goes on.
func TestCancelWhileRunning(t *testing.T) {
	leaktest.Check(t)
	for _, order := range orders {
		t.Run(order.String(), func(t *testing.T) {
			w := newWaitServer()
			r := peertest.NewRaw(t, &stream.Server{Server: w.Server, Order: order, Protocol: lsp.Protocol()})
			r.Send(`{"jsonrpc":"2.0","method":"wait","params":[1],"id":1}`)
			w.awaitStarted(t, 1)
			r.Send(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1}}`)
			if err := w.awaitEnded(t); !errors.Is(err, context.Canceled) {
				t.Fatalf("wait ended with %v, want context.Canceled", err)
			}
			if got, want := r.Recv(), fmt.Sprintf(cancelledAnswer, "1"); got != want {
				t.Fatalf("got %s, want %s", got, want)
			}
			r.Send(`{"jsonrpc":"2.0","method":"count","id":"c"}`)
			if got, want := r.Recv(), `{"jsonrpc":"2.0","result":1,"id":"c"}`; got != want {
				t.Fatalf("got %s, want %s", got, want)
			}
		})
	}
}

// TestCancelBeforeDispatch: a request read but waiting behind a running
// call (Sequential) or a running notification (Ordered) is cancelled before
// it starts: it never runs, and is answered with -32800 in its turn.
func TestCancelBeforeDispatch(t *testing.T) {
	leaktest.Check(t)
	for _, tc := range []struct {
		order peer.Ordering
		first string
	}{
		{peer.Sequential, `{"jsonrpc":"2.0","method":"wait","params":[1],"id":1}`},
		{peer.Ordered, `{"jsonrpc":"2.0","method":"edit","params":["x"]}`},
	} {
		t.Run(tc.order.String(), func(t *testing.T) {
			w := newWaitServer()
			r := peertest.NewRaw(t, &stream.Server{Server: w.Server, Order: tc.order, Protocol: lsp.Protocol()})
			r.Send(tc.first)
			if tc.order == peer.Sequential {
				w.awaitStarted(t, 1)
			}
			r.Settled(`{"jsonrpc":"2.0","method":"count","id":2}`,
				`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":2}}`,
				`{"jsonrpc":"2.0","method":"count","id":3}`)
			close(w.release)
			if tc.order == peer.Sequential {
				if got, want := r.Recv(), `{"jsonrpc":"2.0","result":1,"id":1}`; got != want {
					t.Fatalf("got %s, want %s", got, want)
				}
			}
			if got, want := r.Recv(), fmt.Sprintf(cancelledAnswer, "2"); got != want {
				t.Fatalf("got %s, want %s", got, want)
			}
			if got, want := r.Recv(), `{"jsonrpc":"2.0","result":1,"id":3}`; got != want {
				t.Fatalf("got %s, want %s (the cancelled call must not have run)", got, want)
			}
		})
	}
}

// TestMCPCancelNoAnswer: after MCP's notifications/cancelled, the cancelled
// call sends no answer at all.
func TestMCPCancelNoAnswer(t *testing.T) {
	leaktest.Check(t)
	w := newWaitServer()
	r := peertest.NewRaw(t, &stream.Server{Server: w.Server, Protocol: mcp.Protocol()})
	r.Send(`{"jsonrpc":"2.0","method":"wait","params":[1],"id":1}`)
	w.awaitStarted(t, 1)
	r.Send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"user"}}`)
	if err := w.awaitEnded(t); !errors.Is(err, context.Canceled) {
		t.Fatalf("wait ended with %v, want context.Canceled", err)
	}
	r.Send(`{"jsonrpc":"2.0","method":"count","id":2}`)
	if got, want := r.Recv(), `{"jsonrpc":"2.0","result":1,"id":2}`; got != want {
		t.Fatalf("got %s, want %s (nothing for the cancelled call)", got, want)
	}
	r.ExpectNone(50 * time.Millisecond)
}

// TestOrderedNotifications: under Ordered, a call that follows a
// notification still running waits for it, and sees what it changed;
// calls do not wait for each other.
func TestOrderedNotifications(t *testing.T) {
	leaktest.Check(t)
	w := newWaitServer()
	r := peertest.NewRaw(t, &stream.Server{Server: w.Server})
	r.Send(`{"jsonrpc":"2.0","method":"wait","params":[1],"id":1}`)
	w.awaitStarted(t, 1)
	// A call while another runs: answered at once.
	r.Send(`{"jsonrpc":"2.0","method":"text","id":2}`)
	if got, want := r.Recv(), `{"jsonrpc":"2.0","result":"","id":2}`; got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
	r.Send(`{"jsonrpc":"2.0","method":"edit","params":["new"]}`, `{"jsonrpc":"2.0","method":"text","id":3}`)
	r.ExpectNone(30 * time.Millisecond)
	close(w.release)
	got := []string{r.Recv(), r.Recv()}
	want := map[string]bool{`{"jsonrpc":"2.0","result":1,"id":1}`: true, `{"jsonrpc":"2.0","result":"new","id":3}`: true}
	for _, g := range got {
		if !want[g] {
			t.Fatalf("got %s, want one of %v", g, want)
		}
	}
}

// TestCancelDoesNotDelayCaller: when a call's context ends, Call returns
// at once, even while the cancel notification cannot be written (the peer
// reads nothing more); the notification goes out once it can. In a
// synctest bubble, "at once" is exact: no time passes.
func TestCancelDoesNotDelayCaller(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cc, sc := net.Pipe()
		c := client.New(client.Stream(cc, nil), client.UseProtocol(lsp.Protocol()))
		rd := framing.Line.NewReader(sc, 1<<20)
		read := make(chan string, 4)
		proceed := make(chan struct{})
		go func() {
			defer close(read)
			for i := 0; ; i++ {
				if i == 1 {
					<-proceed // the server stops reading after the call
				}
				msg, err := rd.Read()
				if err != nil {
					return
				}
				read <- string(msg)
			}
		}()
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			_, err := c.CallRaw(ctx, "slow", nil)
			done <- err
		}()
		if got := <-read; !strings.Contains(got, `"method":"slow"`) {
			t.Fatalf("server read %s", got)
		}
		// The server reads nothing more: over net.Pipe the cancel
		// notification's write waits.
		start := time.Now()
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
		if d := time.Since(start); d != 0 {
			t.Fatalf("Call returned %v after the cancel, want at once", d)
		}
		synctest.Wait() // the cancel's write is blocked, durably
		select {
		case got := <-read:
			t.Fatalf("server read %s before it read again", got)
		default:
		}
		close(proceed)
		if got := <-read; got != `{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1}}` {
			t.Fatalf("server read %s, want the cancel notification", got)
		}
		c.Close()
		sc.Close()
		for range read {
		}
	})
}

// TestCallbacksPastMaxInFlight: with more calls that call back than
// MaxInFlight lets run, the connection reads on while its own calls wait,
// so that no call is stuck: each is answered, with its result or, past the
// room of the queue, with -32005.
func TestCallbacksPastMaxInFlight(t *testing.T) {
	leaktest.Check(t)
	for _, order := range orders {
		t.Run(order.String(), func(t *testing.T) {
			csrv := jsonrpc.NewServer()
			release := make(chan struct{})
			csrv.MustRegister("name", func(ctx context.Context, who string) (string, error) {
				select {
				case <-release:
				case <-ctx.Done():
					return "", ctx.Err()
				}
				return strings.ToUpper(who), nil
			}, jsonrpc.Blocking())
			c := dial(t, &stream.Server{Server: peertest.CallbackServer(), Order: order, Limits: transport.Limits{MaxInFlight: 2}}, client.Serve(csrv))
			var wg sync.WaitGroup
			var ok, refused atomic.Int32
			for i := range 12 {
				wg.Go(func() {
					// A bound on a stuck call, not a measure of speed: under
					// Sequential the twelve calls and their callbacks run one
					// after another, slow under -race on a loaded machine.
					ctx, cancel := context.WithTimeout(context.Background(), 6*wait)
					defer cancel()
					got, err := client.Call[string](ctx, c, "ask", []any{fmt.Sprint(i)})
					var e *jsonrpc.Error
					switch {
					case err == nil && got == "hello "+fmt.Sprint(i):
						ok.Add(1)
					case errors.As(err, &e) && e.Code == jsonrpc.CodeLimitExceeded:
						refused.Add(1)
					default:
						t.Errorf("ask(%d) = %q, %v", i, got, err)
					}
				})
			}
			time.Sleep(50 * time.Millisecond) // let the calls pile up
			close(release)
			wg.Wait()
			if ok.Load() < 2 {
				t.Fatalf("%d calls answered, %d refused: want at least MaxInFlight answered", ok.Load(), refused.Load())
			}
		})
	}
}
