package peer_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/internal/peertest"
	"github.com/jsonrpc-go/jsonrpc/peer"
	"github.com/jsonrpc-go/jsonrpc/stream"
)

// TestAfterAnswer: what a method sends from AfterAnswer follows its
// answer on the wire, whether the method runs inline or Blocking; outside
// a call on a Conn, AfterAnswer runs its function at once.
func TestAfterAnswer(t *testing.T) {
	srv := jsonrpc.NewServer()
	method := func(ctx context.Context) (string, error) {
		c := peer.FromContext(ctx)
		if !peer.AfterAnswer(ctx, func() { c.Push("note", []string{"after"}) }) {
			return "", errors.New("AfterAnswer ran its function at once")
		}
		return "answer", nil
	}
	srv.MustRegister("inline", method)
	srv.MustRegister("blocking", method, jsonrpc.Blocking())
	r := peertest.NewRaw(t, &stream.Server{Server: srv})
	for i, m := range []string{"inline", "blocking"} {
		r.Send(`{"jsonrpc":"2.0","method":"` + m + `","id":` + string(rune('1'+i)) + `}`)
		if got, want := r.Recv(), `{"jsonrpc":"2.0","result":"answer","id":`+string(rune('1'+i))+`}`; got != want {
			t.Fatalf("%s: first %s, want the answer %s", m, got, want)
		}
		if got, want := r.Recv(), `{"jsonrpc":"2.0","method":"note","params":["after"]}`; got != want {
			t.Fatalf("%s: then %s, want %s", m, got, want)
		}
	}
	ran := false
	if peer.AfterAnswer(context.Background(), func() { ran = true }) || !ran {
		t.Fatal("outside a call, AfterAnswer did not run its function at once")
	}
}

// TestLocalAndOnClose: Local keeps one value per key and Conn; OnClose
// runs once the read loop has ended, with an error wrapping ErrClosed, and
// at once when it has.
func TestLocalAndOnClose(t *testing.T) {
	tr := newChanTransport()
	c := runConn(t, tr, peer.Options{})
	type key struct{}
	made := 0
	a := c.Local(key{}, func() any { made++; return new(int) })
	b := c.Local(key{}, func() any { made++; return new(int) })
	if a != b || made != 1 {
		t.Fatalf("Local made %d values, returned %p and %p", made, a, b)
	}
	closed := make(chan error, 1)
	c.OnClose(func(err error) { closed <- err })
	tr.Close()
	if err := <-closed; !errors.Is(err, peer.ErrClosed) {
		t.Fatalf("OnClose got %v, want an error wrapping ErrClosed", err)
	}
	<-c.Done()
	var late error
	c.OnClose(func(err error) { late = err })
	if !errors.Is(late, peer.ErrClosed) {
		t.Fatalf("OnClose after the end got %v, want it at once", late)
	}
}

// TestPreempterOfAProtocolOfItsOwn: a protocol's own cancel notification
// (ACP's "$/cancel_request", its method name escaped on the wire) reaches
// a running call through Protocol.Preempt and Conn.Cancel, with no rule of
// the engine's, and a message it does not handle goes on to the Server.
func TestPreempterOfAProtocolOfItsOwn(t *testing.T) {
	started := make(chan struct{}, 1)
	srv := jsonrpc.NewServer()
	srv.MustRegister("session/prompt", func(ctx context.Context) error {
		started <- struct{}{}
		<-ctx.Done()
		return ctx.Err()
	}, jsonrpc.Blocking())
	srv.MustRegister("echo", func(s string) string { return s })
	acp := peer.Protocol{
		AnswerCancelled: true,
		Preempt: []peer.Preempter{peer.PreempterFunc(func(c *peer.Conn, m *peer.Message) bool {
			if !m.Notification() || !m.Is("$/cancel_request") {
				return false
			}
			var p struct {
				RequestID json.RawMessage `json:"requestId"`
			}
			if json.Unmarshal(m.Params(), &p) == nil && p.RequestID != nil {
				c.Cancel(p.RequestID)
			}
			return true
		})},
	}
	r := peertest.NewRaw(t, &stream.Server{Server: srv, Protocol: acp})
	r.Send(`{"jsonrpc":"2.0","method":"session/prompt","id":"p1"}`)
	<-started
	r.Send(`{"jsonrpc":"2.0","method":"$\/cancel_request","params":{"requestId":"p1"}}`)
	if got, want := r.Recv(), `{"jsonrpc":"2.0","error":{"code":-32800,"message":"Request cancelled"},"id":"p1"}`; got != want {
		t.Fatalf("cancelled call answered %s, want %s", got, want)
	}
	r.Send(`{"jsonrpc":"2.0","method":"echo","params":["$/cancel_request"],"id":2}`)
	if got, want := r.Recv(), `{"jsonrpc":"2.0","result":"$/cancel_request","id":2}`; got != want {
		t.Fatalf("echo answered %s, want %s", got, want)
	}
}
