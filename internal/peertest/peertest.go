// Package peertest holds the tests that every two-way transport of the
// library passes (stream, ws): a transport's tests call each with a Dial
// that serves a Server over the transport and returns a client of it.
package peertest

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/client"
	"github.com/jsonrpc-go/jsonrpc/peer"
)

// Wait bounds every wait of the tests.
const Wait = 5 * time.Second

// Orders are the orderings the tests run under.
var Orders = []peer.Ordering{peer.Ordered, peer.Sequential, peer.Concurrent}

// A Dial serves srv over the transport under test with the ordering order
// and returns a client of it, made with opts; the test's cleanup closes
// both.
type Dial func(t *testing.T, order peer.Ordering, srv *jsonrpc.Server, opts ...client.Option) *client.Client

// CallbackServer serves "ask" (Blocking), which calls its peer's "name"
// and answers with it; "poke", a Blocking notification, which calls "name"
// and notifies the peer "told" with it; "announce", not Blocking, which
// notifies "told"; and "inline", not Blocking, which tries to call "name".
func CallbackServer() *jsonrpc.Server {
	srv := jsonrpc.NewServer()
	srv.MustRegister("ask", func(ctx context.Context, who string) (string, error) {
		var name string
		if err := peer.FromContext(ctx).Call(ctx, "name", []any{who}, &name); err != nil {
			return "", err
		}
		return "hello " + name, nil
	}, jsonrpc.Blocking())
	srv.MustRegister("poke", func(ctx context.Context) error {
		conn := peer.FromContext(ctx)
		var name string
		if err := conn.Call(ctx, "name", []any{"poke"}, &name); err != nil {
			return err
		}
		return conn.Notify(ctx, "told", []any{name})
	}, jsonrpc.Blocking())
	srv.MustRegister("announce", func(ctx context.Context) (bool, error) {
		return true, peer.FromContext(ctx).Notify(ctx, "told", []any{"announced"})
	})
	srv.MustRegister("inline", func(ctx context.Context) (string, error) {
		err := peer.FromContext(ctx).Call(ctx, "name", []any{"inline"}, nil)
		return "", err
	})
	return srv
}

// ClientMethods answers "name" with its argument in upper case and sends
// each "told" to told.
func ClientMethods(told chan<- string) *jsonrpc.Server {
	srv := jsonrpc.NewServer()
	srv.MustRegister("name", func(who string) string { return strings.ToUpper(who) })
	srv.MustRegister("told", func(s string) { told <- s })
	return srv
}

// CallbackFromRequest: a method called by the client calls the client
// back and answers with what it said, under every ordering, 32 calls at
// once.
func CallbackFromRequest(t *testing.T, dial Dial) {
	for _, order := range Orders {
		t.Run(order.String(), func(t *testing.T) {
			c := dial(t, order, CallbackServer(), client.Serve(ClientMethods(nil)))
			var wg sync.WaitGroup
			for i := range 32 {
				wg.Go(func() {
					ctx, cancel := context.WithTimeout(context.Background(), Wait)
					defer cancel()
					who := fmt.Sprintf("w%d", i)
					got, err := client.Call[string](ctx, c, "ask", []any{who})
					if err != nil || got != "hello "+strings.ToUpper(who) {
						t.Errorf("ask(%s) = %q, %v", who, got, err)
					}
				})
			}
			wg.Wait()
		})
	}
}

// CallbackFromNotification: a notification's method calls the client back
// and notifies it, under every ordering.
func CallbackFromNotification(t *testing.T, dial Dial) {
	for _, order := range Orders {
		t.Run(order.String(), func(t *testing.T) {
			told := make(chan string, 1)
			c := dial(t, order, CallbackServer(), client.Serve(ClientMethods(told)))
			if err := c.Notify(context.Background(), "poke", nil); err != nil {
				t.Fatal(err)
			}
			select {
			case got := <-told:
				if got != "POKE" {
					t.Fatalf("told %q, want POKE", got)
				}
			case <-time.After(Wait):
				t.Fatal("the notification's callback did not complete")
			}
		})
	}
}
