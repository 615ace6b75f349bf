package client_test

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/client"
	"github.com/jsonrpc-go/jsonrpc/demo"
)

// checkGoroutines fails the test if goroutines started during it are still
// running at cleanup (after a bounded wait for them to finish).
func checkGoroutines(t *testing.T) {
	t.Helper()
	before := runtime.NumGoroutine()
	t.Cleanup(func() {
		deadline := time.Now().Add(5 * time.Second)
		for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
			runtime.Gosched()
			time.Sleep(time.Millisecond)
		}
		if n := runtime.NumGoroutine(); n > before {
			buf := make([]byte, 1<<16)
			t.Errorf("%d goroutines leaked:\n%s", n-before, buf[:runtime.Stack(buf, true)])
		}
	})
}

// testServer is the demo server plus a blocking method, "wait", that
// reports each call it starts and returns when the test releases it.
type testServer struct {
	*jsonrpc.Server
	started chan int
	release chan struct{}
}

func newTestServer(t *testing.T) *testServer {
	s := &testServer{Server: demo.NewServer(), started: make(chan int, 1024), release: make(chan struct{})}
	s.MustRegister("wait", func(ctx context.Context, x int) (int, error) {
		s.started <- x
		select {
		case <-s.release:
			return x, nil
		case <-ctx.Done():
			return 0, ctx.Err()
		}
	}, jsonrpc.Blocking())
	t.Cleanup(func() {
		select {
		case <-s.release:
		default:
			close(s.release)
		}
	})
	return s
}

// transports names the channels every behaviour test runs over.
var transports = []string{"local", "http"}

// channels are the transports every behaviour test runs over.
func channel(t *testing.T, srv *jsonrpc.Server, name string) client.Channel {
	if name == "http" {
		ts := httptest.NewServer(srv)
		t.Cleanup(ts.Close)
		return client.HTTP(ts.URL, ts.Client())
	}
	return client.Local(srv)
}

func TestCalls(t *testing.T) {
	for _, name := range transports {
		t.Run(name, func(t *testing.T) {
			c := client.New(channel(t, newTestServer(t).Server, name))
			defer c.Close()
			ctx := context.Background()
			sum, err := client.Call[float64](ctx, c, "add", []any{1.5, 2.25})
			if err != nil || sum != 3.75 {
				t.Errorf("add: %v, %v", sum, err)
			}
			diff, err := client.Call[int](ctx, c, "subtract", map[string]int{"minuend": 42, "subtrahend": 23})
			if err != nil || diff != 19 {
				t.Errorf("subtract: %v, %v", diff, err)
			}
			data, err := client.Call[[]any](ctx, c, "get_data", nil)
			if err != nil || fmt.Sprint(data) != "[hello 5]" {
				t.Errorf("get_data: %v, %v", data, err)
			}
			_, err = client.Call[int](ctx, c, "nope", nil)
			var e *jsonrpc.Error
			if !errors.As(err, &e) || e.Code != jsonrpc.CodeMethodNotFound {
				t.Errorf("nope: err = %v", err)
			}
			if _, err := client.Call[int](ctx, c, "add", 5); err == nil {
				t.Error("params that are not an array or object were sent")
			}
			if _, err := client.Call[string](ctx, c, "add", []any{1, 2}); err == nil {
				t.Error("a number result decoded into a string")
			}
			if err := c.Notify(ctx, "notify_hello", []any{7}); err != nil {
				t.Errorf("notify: %v", err)
			}
			res, err := c.Batch(ctx, []client.Spec{
				{Method: "sum", Params: []any{1, 2, 4}},
				{Method: "notify_hello", Params: []any{7}, Notify: true},
				{Method: "subtract", Params: []any{42, 23}},
				{Method: "foo.get", Params: map[string]string{"name": "myself"}},
				{Method: "get_data"},
			})
			if err != nil {
				t.Fatal(err)
			}
			var n int
			if err := res[0].Unmarshal(&n); err != nil || n != 7 {
				t.Errorf("batch sum: %v %v", n, err)
			}
			if res[1].Result != nil || res[1].Err != nil {
				t.Errorf("batch notification: %+v", res[1])
			}
			if err := res[2].Unmarshal(&n); err != nil || n != 19 {
				t.Errorf("batch subtract: %v %v", n, err)
			}
			if !errors.As(res[3].Err, &e) || e.Code != jsonrpc.CodeMethodNotFound {
				t.Errorf("batch foo.get: %+v", res[3])
			}
			if string(res[4].Result) != `["hello",5]` {
				t.Errorf("batch get_data: %s", res[4].Result)
			}
		})
	}
}

// Many calls in flight on one client complete out of order, each with its
// own answer.
func TestManyInFlight(t *testing.T) {
	checkGoroutines(t)
	for _, name := range transports {
		t.Run(name, func(t *testing.T) {
			srv := newTestServer(t)
			c := client.New(channel(t, srv.Server, name))
			defer c.Close()
			const n = 64
			var waits, fast sync.WaitGroup
			errs := make(chan error, 2*n)
			for i := range n {
				waits.Go(func() {
					got, err := client.Call[int](context.Background(), c, "wait", []any{i})
					if err != nil || got != i {
						errs <- fmt.Errorf("wait %d: %d, %v", i, got, err)
					}
				})
			}
			for range n {
				<-srv.started // all waiting calls are in flight
			}
			for i := range n {
				fast.Go(func() {
					got, err := client.Call[int](context.Background(), c, "addInt", []any{i, 1})
					if err != nil || got != i+1 {
						errs <- fmt.Errorf("addInt %d: %d, %v", i, got, err)
					}
				})
			}
			fast.Wait() // answered while the waiting calls are still pending
			close(srv.release)
			waits.Wait()
			close(errs)
			for err := range errs {
				t.Error(err)
			}
		})
	}
}

func TestCancel(t *testing.T) {
	for _, name := range transports {
		t.Run(name, func(t *testing.T) {
			c := client.New(channel(t, newTestServer(t).Server, name))
			defer c.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
			defer cancel()
			_, err := client.Call[int](ctx, c, "wait", []any{1})
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("err = %v, want deadline exceeded", err)
			}
			// The client is still usable.
			if got, err := client.Call[int](context.Background(), c, "addInt", []any{1, 2}); err != nil || got != 3 {
				t.Errorf("after cancel: %v, %v", got, err)
			}
		})
	}
}

// brokenChannel fails its Recv when told to.
type brokenChannel struct {
	client.Channel
	fail chan struct{}
}

func (b *brokenChannel) Recv() ([]byte, error) {
	<-b.fail
	return nil, errors.New("connection reset")
}

func TestBrokenChannelFailsPending(t *testing.T) {
	checkGoroutines(t)
	srv := newTestServer(t)
	b := &brokenChannel{Channel: client.Local(srv.Server), fail: make(chan struct{})}
	c := client.New(b)
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
	checkGoroutines(t)
	c := client.New(client.Local(newTestServer(t).Server))
	c.Close()
	if _, err := client.Call[int](context.Background(), c, "addInt", []any{1, 2}); !errors.Is(err, client.ErrClosed) {
		t.Errorf("err = %v, want ErrClosed", err)
	}
}
