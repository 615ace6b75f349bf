package peer_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"iter"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/internal/leaktest"
	"github.com/jsonrpc-go/jsonrpc/internal/peertest"
	"github.com/jsonrpc-go/jsonrpc/peer"
	"github.com/jsonrpc-go/jsonrpc/protocol/enumerator"
	"github.com/jsonrpc-go/jsonrpc/protocol/lsp"
	"github.com/jsonrpc-go/jsonrpc/protocol/mcp"
	"github.com/jsonrpc-go/jsonrpc/pubsub"
	"github.com/jsonrpc-go/jsonrpc/stream"
	"github.com/jsonrpc-go/jsonrpc/transport"
)

// TestNullParams: over a connection that speaks LSP, "params": null is
// taken as no params, as Emacs sends it for shutdown and exit, in a call,
// a notification, a batch and a Blocking call; without a Protocol, and
// under MCP, it is an invalid request, as the specification says.
func TestNullParams(t *testing.T) {
	exited := make(chan struct{}, 1)
	srv := jsonrpc.NewServer()
	srv.MustRegister("shutdown", func(context.Context) error { return nil })
	srv.MustRegister("wait", func(context.Context) (int, error) { return 7, nil }, jsonrpc.Blocking())
	srv.MustRegister("exit", func(context.Context) { exited <- struct{}{} })
	for _, tc := range []struct {
		name  string
		proto peer.Protocol
		taken bool
	}{
		{"LSP", lsp.Protocol(), true},
		{"MCP", mcp.Protocol(), false},
		{"none", peer.Protocol{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := peertest.NewRaw(t, &stream.Server{Server: srv, Protocol: tc.proto})
			invalid := `{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request"},"id":1}`
			for _, c := range []struct{ req, want string }{
				{`{"jsonrpc":"2.0","id":1,"method":"shutdown","params":null}`, `{"jsonrpc":"2.0","result":null,"id":1}`},
				{`{"jsonrpc":"2.0","id":1,"method":"wait","params":null}`, `{"jsonrpc":"2.0","result":7,"id":1}`},
				{`[{"jsonrpc":"2.0","id":1,"method":"shutdown","params":null}]`, `[{"jsonrpc":"2.0","result":null,"id":1}]`},
			} {
				want := c.want
				if !tc.taken {
					want = invalid
					if c.req[0] == '[' {
						want = "[" + invalid + "]"
					}
				}
				r.Send(c.req)
				if got := r.Recv(); got != want {
					t.Errorf("%s:\n got %s\nwant %s", c.req, got, want)
				}
			}
			r.Send(`{"jsonrpc":"2.0","method":"exit","params":null}`)
			if !tc.taken {
				// An invalid notification is answered, with id null.
				if got, want := r.Recv(), `{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request"},"id":null}`; got != want {
					t.Errorf("exit: got %s, want %s", got, want)
				}
			}
			r.Send(`{"jsonrpc":"2.0","id":2,"method":"shutdown"}`)
			if got, want := r.Recv(), `{"jsonrpc":"2.0","result":null,"id":2}`; got != want {
				t.Errorf("after exit: got %s, want %s", got, want)
			}
			select {
			case <-exited:
				if !tc.taken {
					t.Error("exit with null params ran")
				}
			default:
				if tc.taken {
					t.Error("exit with null params did not run before the next call's answer")
				}
			}
		})
	}
}

// TestDollarMethods: under LSP, a "$/" request the server does not know is
// answered -32601, and a "$/" notification it does not know is dropped
// without an answer or a log record, as LSP asks ("$/" methods are
// optional); names may be escaped.
func TestDollarMethods(t *testing.T) {
	var logged strings.Builder
	logger := slog.New(slog.NewTextHandler(&logged, &slog.HandlerOptions{Level: slog.LevelDebug}))
	srv := jsonrpc.NewServer(jsonrpc.UseLogger(logger))
	srv.MustRegister("ping", func() string { return "pong" })
	r := peertest.NewRaw(t, &stream.Server{Server: srv, Protocol: lsp.Protocol(), Logger: logger})
	r.Send(`{"jsonrpc":"2.0","method":"$/setTrace","params":{"value":"off"}}`)
	r.Send(`{"jsonrpc":"2.0","method":"\u0024\/unknownNotification","params":{}}`)
	r.Send(`{"jsonrpc":"2.0","id":1,"method":"$/unknownRequest","params":{}}`)
	if got, want := r.Recv(), `{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found","data":"$/unknownRequest"},"id":1}`; got != want {
		t.Errorf("$/ request: got %s, want %s", got, want)
	}
	r.Send(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	if got, want := r.Recv(), `{"jsonrpc":"2.0","result":"pong","id":2}`; got != want {
		t.Errorf("after the $/ notifications: got %s, want %s", got, want)
	}
	if strings.Contains(logged.String(), "level=WARN") || strings.Contains(logged.String(), "level=ERROR") {
		t.Errorf("logged:\n%s", logged.String())
	}
}

// TestRefusalCodes: a Protocol's refusals take the codes of its Codes
// (MCP's outside the ranges MCP reserves), with the message of the
// refusal; LSP and the zero Protocol keep jsonrpc.CodeLimitExceeded. The
// data of the library's error stays.
func TestRefusalCodes(t *testing.T) {
	limit := jsonrpc.NewError(jsonrpc.CodeLimitExceeded, "").WithData("message exceeds the limit of 10 bytes")
	shutdown := jsonrpc.NewError(jsonrpc.CodeLimitExceeded, "").WithData("server shutting down")
	for _, tc := range []struct {
		name     string
		proto    peer.Protocol
		shutdown bool
		e        *jsonrpc.Error
		code     jsonrpc.Code
		message  string
		same     bool // the error given comes back
	}{
		{"zero/limit", peer.Protocol{}, false, limit, -32005, "Limit exceeded", true},
		{"zero/shutdown", peer.Protocol{}, true, shutdown, -32005, "Limit exceeded", true},
		{"LSP/limit", lsp.Protocol(), false, limit, -32005, "Limit exceeded", true},
		{"LSP/shutdown", lsp.Protocol(), true, shutdown, -32005, "Limit exceeded", true},
		{"MCP/limit", mcp.Protocol(), false, limit, mcp.CodeLimitExceeded, "Limit exceeded", false},
		{"MCP/shutdown", mcp.Protocol(), true, shutdown, mcp.CodeShuttingDown, "Server shutting down", false},
		{"limit only", peer.Protocol{Codes: jsonrpc.Codes{Limit: -31999}}, true, shutdown, -31999, "Limit exceeded", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.proto.Codes.Refuse(tc.e, tc.shutdown)
			if got.Code != tc.code || got.Message != tc.message || string(got.Data) != string(tc.e.Data) {
				t.Errorf("Refuse(%v) = %d %q %s, want %d %q %s", tc.shutdown, got.Code, got.Message, got.Data, tc.code, tc.message, tc.e.Data)
			}
			if (got == tc.e) != tc.same {
				t.Errorf("Refuse returned the error given: %v, want %v", got == tc.e, tc.same)
			}
			if tc.e.Code != jsonrpc.CodeLimitExceeded {
				t.Errorf("Refuse changed the error given: code %d", tc.e.Code)
			}
		})
	}
}

// chanTransport is a transport.Conn whose peer is the test: in carries the
// messages the Conn reads, out the ones it writes.
type chanTransport struct {
	in     chan []byte
	out    chan []byte
	closed chan struct{}
	once   sync.Once
}

func newChanTransport() *chanTransport {
	return &chanTransport{in: make(chan []byte), out: make(chan []byte, 16), closed: make(chan struct{})}
}

func (c *chanTransport) Read() ([]byte, error) {
	select {
	case m := <-c.in:
		return m, nil
	case <-c.closed:
		return nil, io.EOF
	}
}

func (c *chanTransport) Write(_ context.Context, msg []byte) error {
	select {
	case c.out <- append([]byte(nil), msg...):
		return nil
	case <-c.closed:
		return io.ErrClosedPipe
	}
}

func (c *chanTransport) Flush() error { return nil }

// runConn runs a Conn on tr with opts until the test's end, when tr is
// closed and the Conn waited for.
func runConn(t *testing.T, tr *chanTransport, opts peer.Options) *peer.Conn {
	t.Helper()
	c := peer.New(enumerator.Enable(context.Background()), transport.Carrier{Conn: tr}, opts)
	done := make(chan error, 1)
	go c.Run(func(err error) { done <- err })
	t.Cleanup(func() {
		tr.Close()
		<-done
		c.Wait()
	})
	return c
}
func (c *chanTransport) Close() error { c.once.Do(func() { close(c.closed) }); return nil }

// TestShutdownRefusalCode: a Conn that shuts down answers the calls it
// will not run with its Protocol's shutdown code: MCP's mcp.CodeShuttingDown,
// LSP's and the zero Protocol's jsonrpc.CodeLimitExceeded; the data is
// "server shutting down" under each.
func TestShutdownRefusalCode(t *testing.T) {
	for _, tc := range []struct {
		name    string
		proto   peer.Protocol
		code    jsonrpc.Code
		message string
	}{
		{"zero", peer.Protocol{}, jsonrpc.CodeLimitExceeded, "Limit exceeded"},
		{"LSP", lsp.Protocol(), jsonrpc.CodeLimitExceeded, "Limit exceeded"},
		{"MCP", mcp.Protocol(), mcp.CodeShuttingDown, "Server shutting down"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			leaktest.Check(t)
			srv := jsonrpc.NewServer()
			srv.MustRegister("ran", func() bool { return true })
			tr := newChanTransport()
			c := runConn(t, tr, peer.Options{Server: srv, Protocol: tc.proto})
			c.Shutdown()
			send := func(msg string) {
				select {
				case tr.in <- []byte(msg):
				case <-time.After(wait):
					t.Fatal("the Conn does not read")
				}
			}
			send(`{"jsonrpc":"2.0","method":"ran","id":7}`)
			var resp struct {
				ID    json.RawMessage
				Error *jsonrpc.Error
			}
			select {
			case msg := <-tr.out:
				if err := json.Unmarshal(msg, &resp); err != nil {
					t.Fatalf("%s: %v", msg, err)
				}
				if string(resp.ID) != "7" || resp.Error == nil || resp.Error.Code != tc.code || resp.Error.Message != tc.message || string(resp.Error.Data) != `"server shutting down"` {
					t.Errorf("the refused call was answered %s, want code %d, message %q, data \"server shutting down\", id 7", msg, tc.code, tc.message)
				}
			case <-time.After(wait):
				t.Fatal("no answer to the refused call")
			}
		})
	}
}

// TestLimitRefusalCodes: the limits a method meets on a Conn, and the
// Server's own limit on an answer, are answered with MCP's code under
// mcp.Protocol() (its codes given to the Server in the calls' context), and with
// jsonrpc.CodeLimitExceeded otherwise, the data naming the limit either
// way; Subscribe's error still matches ErrTooManySubscriptions.
func TestLimitRefusalCodes(t *testing.T) {
	for _, tc := range []struct {
		name  string
		proto peer.Protocol
		opts  []jsonrpc.Option
		code  jsonrpc.Code
	}{
		{"zero", peer.Protocol{}, nil, jsonrpc.CodeLimitExceeded},
		{"LSP", lsp.Protocol(), nil, jsonrpc.CodeLimitExceeded},
		{"MCP", mcp.Protocol(), []jsonrpc.Option{jsonrpc.UseCodes(mcp.Protocol().Codes)}, mcp.CodeLimitExceeded},
	} {
		t.Run(tc.name, func(t *testing.T) {
			leaktest.Check(t)
			topic := &pubsub.Topic{Method: "tick"}
			isTooMany := make(chan bool, 1)
			srv := jsonrpc.NewServer(append(tc.opts, jsonrpc.UseLimits(jsonrpc.Limits{MaxResponse: 1 << 10}))...)
			srv.MustRegister("subscribe", func(ctx context.Context) (string, error) {
				s, err := topic.Subscribe(ctx)
				if err != nil {
					isTooMany <- errors.Is(err, pubsub.ErrTooManySubscriptions)
					return "", err
				}
				return s.ID(), nil
			})
			srv.MustRegister("items", func() iter.Seq[int] {
				return func(yield func(int) bool) {
					for i := 0; yield(i); i++ {
					}
				}
			})
			srv.MustRegister("big", func() string { return strings.Repeat("x", 2<<10) })
			tr := newChanTransport()
			runConn(t, tr, peer.Options{Server: srv, Protocol: tc.proto,
				Limits: transport.Limits{MaxSubscriptions: 1, MaxSequences: 1, MaxSeqItems: 1}})
			call := func(msg string) (resp struct {
				Result json.RawMessage
				Error  *jsonrpc.Error
			}) {
				t.Helper()
				select {
				case tr.in <- []byte(msg):
				case <-time.After(wait):
					t.Fatal("the Conn does not read")
				}
				select {
				case out := <-tr.out:
					if err := json.Unmarshal(out, &resp); err != nil {
						t.Fatalf("%s: %v", out, err)
					}
				case <-time.After(wait):
					t.Fatalf("no answer to %s", msg)
				}
				return resp
			}
			refused := func(what, msg, data string) {
				t.Helper()
				resp := call(msg)
				if resp.Error == nil || resp.Error.Code != tc.code || resp.Error.Message != "Limit exceeded" || !strings.Contains(string(resp.Error.Data), data) {
					t.Errorf("%s: answered %+v %s, want code %d, message \"Limit exceeded\", data with %q", what, resp.Error, resp.Result, tc.code, data)
				}
			}

			if resp := call(`{"jsonrpc":"2.0","method":"subscribe","id":1}`); resp.Error != nil {
				t.Fatalf("the first subscribe: %v", resp.Error)
			}
			refused("a subscription past MaxSubscriptions", `{"jsonrpc":"2.0","method":"subscribe","id":2}`, "too many subscriptions")
			if !<-isTooMany {
				t.Error("Subscribe's error does not match ErrTooManySubscriptions")
			}
			if resp := call(`{"jsonrpc":"2.0","method":"items","id":3}`); resp.Error != nil || !strings.Contains(string(resp.Result), `"token"`) {
				t.Fatalf("the first sequence: %s %v", resp.Result, resp.Error)
			}
			refused("a sequence past MaxSequences", `{"jsonrpc":"2.0","method":"items","id":4}`, "sequence results open")
			refused("an answer past MaxResponse", `{"jsonrpc":"2.0","method":"big","id":5}`, "response exceeds the limit")
		})
	}
}
