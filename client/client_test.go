package client_test

import (
	"context"
	"errors"
	carrier "github.com/jsonrpc-go/jsonrpc/transport"
	"sync"
	"testing"
	"time"

	"github.com/jsonrpc-go/jsonrpc/internal/leaktest"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/client"
	"github.com/jsonrpc-go/jsonrpc/internal/demo"
)

// testServer is the demo server plus a blocking method, "wait", that
// reports each call it starts and returns when the test releases it (or its
// context ends).
type testServer struct {
	*jsonrpc.Server
	spec    *demo.Spec // counts the notifications received
	started chan int
	release chan struct{}
	once    sync.Once
}

// releaseAll lets every call of "wait", present and future, return.
func (s *testServer) releaseAll() { s.once.Do(func() { close(s.release) }) }

func newTestServer(t *testing.T) *testServer {
	s := &testServer{Server: jsonrpc.NewServer(), started: make(chan int, 1024), release: make(chan struct{})}
	var err error
	if s.spec, err = demo.Register(s.Server); err != nil {
		t.Fatal(err)
	}
	s.MustRegister("wait", func(ctx context.Context, x int) (int, error) {
		s.started <- x
		select {
		case <-s.release:
			return x, nil
		case <-ctx.Done():
			return 0, ctx.Err()
		}
	}, jsonrpc.Blocking())
	t.Cleanup(s.releaseAll)
	return s
}

// brokenChannel fails its Read when told to.
type brokenChannel struct {
	carrier.Conn
	fail chan struct{}
}

func (b *brokenChannel) Read() ([]byte, error) {
	<-b.fail
	return nil, errors.New("connection reset")
}

func TestBrokenChannelFailsPending(t *testing.T) {
	leaktest.Check(t)
	srv := newTestServer(t)
	local := client.Local(srv.Server)
	b := &brokenChannel{Conn: local.Conn, fail: make(chan struct{})}
	c := client.New(client.Channel{Conn: b, Traits: local.Traits})
	errs := make(chan error, 3)
	for range 3 {
		go func() {
			_, err := client.Call[int](context.Background(), c, "wait", []any{1})
			errs <- err
		}()
	}
	for range 3 {
		<-srv.started // the calls are pending
	}
	close(b.fail)
	for range 3 {
		select {
		case err := <-errs:
			if !errors.Is(err, client.ErrClosed) {
				t.Errorf("pending call: err = %v, want ErrClosed", err)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("a pending call did not fail")
		}
	}
	if _, err := client.Call[int](context.Background(), c, "addInt", []any{1, 2}); !errors.Is(err, client.ErrClosed) {
		t.Errorf("later call: err = %v", err)
	}
	c.Close()
}

func TestCloseFailsCalls(t *testing.T) {
	leaktest.Check(t)
	c := client.New(client.Local(newTestServer(t).Server))
	c.Close()
	if _, err := client.Call[int](context.Background(), c, "addInt", []any{1, 2}); !errors.Is(err, client.ErrClosed) {
		t.Errorf("err = %v, want ErrClosed", err)
	}
}
