package interop

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/creachadair/jrpc2"
	"github.com/creachadair/jrpc2/channel"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/framing"
	"github.com/jsonrpc-go/jsonrpc/peer"
	"github.com/jsonrpc-go/jsonrpc/stream"
)

// TestJrpc2Client drives a stream.Server with the client of
// creachadair/jrpc2 over TCP, in line framing (jrpc2's channel.Line, this
// library's framing.Line) and in header framing (channel.Header,
// framing.Header): calls by position and by name, a batch with a
// notification and an error in it, the server's notifications to the
// client (jrpc2's OnNotify) sent by a call, and a call from the server to
// the client (OnCallback) answered inside the call that made it.
func TestJrpc2Client(t *testing.T) {
	srv := jsonrpc.NewServer()
	srv.MustRegister("add", func(a, b int) int { return a + b })
	type greeting struct {
		Name string `json:"name"`
	}
	srv.MustRegister("greet", func(g greeting) string { return "hello, " + g.Name })
	srv.MustRegister("log", func(string) {})
	srv.MustRegister("ticks", func(ctx context.Context, n int) (int, error) {
		c := peer.FromContext(ctx)
		for i := range n {
			if err := c.Notify(ctx, "tick", []int{i}); err != nil {
				return 0, err
			}
		}
		return n, nil
	})
	srv.MustRegister("shout", func(ctx context.Context, s string) (string, error) {
		var up string
		err := peer.FromContext(ctx).Call(ctx, "upper", []string{s}, &up)
		return up + "!", err
	}, jsonrpc.Blocking())

	for _, tc := range []struct {
		name string
		ours framing.Framing
		its  channel.Framing
	}{
		{"line", framing.Line, channel.Line},
		{"header", framing.Header, channel.Header("")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			s := &stream.Server{Server: srv, Framing: tc.ours}
			go s.Serve(ln)
			defer s.Close()
			nc, err := net.Dial("tcp", ln.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			ticks := make(chan string, 16)
			c := jrpc2.NewClient(tc.its(nc, nc), &jrpc2.ClientOptions{
				OnNotify: func(r *jrpc2.Request) { ticks <- r.Method() + " " + r.ParamString() },
				OnCallback: func(ctx context.Context, r *jrpc2.Request) (any, error) {
					var args []string
					if err := r.UnmarshalParams(&args); err != nil || r.Method() != "upper" || len(args) != 1 {
						return nil, errors.New("not upper")
					}
					return strings.ToUpper(args[0]), nil
				},
			})
			defer c.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()

			var sum int
			if err := c.CallResult(ctx, "add", []int{2, 3}, &sum); err != nil || sum != 5 {
				t.Errorf("add = %d, %v", sum, err)
			}
			var hi string
			if err := c.CallResult(ctx, "greet", map[string]string{"name": "jrpc2"}, &hi); err != nil || hi != "hello, jrpc2" {
				t.Errorf("greet = %q, %v", hi, err)
			}
			rsps, err := c.Batch(ctx, []jrpc2.Spec{
				{Method: "add", Params: []int{1, 1}},
				{Method: "log", Params: []string{"x"}, Notify: true},
				{Method: "nope"},
			})
			if err != nil || len(rsps) != 2 {
				t.Fatalf("batch: %d responses, %v; want 2", len(rsps), err)
			}
			if err := rsps[0].UnmarshalResult(&sum); err != nil || sum != 2 {
				t.Errorf("batch add = %d, %v", sum, err)
			}
			if e := rsps[1].Error(); e == nil || e.Code != -32601 {
				t.Errorf("batch nope: %v, want -32601", e)
			}

			var n int
			if err := c.CallResult(ctx, "ticks", []int{3}, &n); err != nil || n != 3 {
				t.Fatalf("ticks = %d, %v", n, err)
			}
			// The server writes them before its answer; jrpc2's client
			// hands each message it reads to a goroutine of its own, so
			// they reach OnNotify in any order, and maybe after the answer.
			got := map[string]bool{}
			for range 3 {
				select {
				case tick := <-ticks:
					got[tick] = true
				case <-ctx.Done():
					t.Fatalf("notifications %v of 3 within the test's time", got)
				}
			}
			for _, want := range []string{"tick [0]", "tick [1]", "tick [2]"} {
				if !got[want] {
					t.Errorf("notifications %v, want %s among them", got, want)
				}
			}

			var up string
			if err := c.CallResult(ctx, "shout", []string{"héllo"}, &up); err != nil || up != "HÉLLO!" {
				t.Errorf("shout = %q, %v; want HÉLLO! through the client's callback", up, err)
			}
		})
	}
}
