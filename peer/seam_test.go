package peer_test

import (
	"context"
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
