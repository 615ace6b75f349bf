package client_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/client"
	"github.com/jsonrpc-go/jsonrpc/httprpc"
)

// A call that gets no answer in time returns a JSON-RPC error that is also
// a context error.
func ExampleTimeout() {
	srv := jsonrpc.NewServer()
	srv.MustRegister("slow", func(ctx context.Context) (string, error) {
		<-ctx.Done()
		return "", ctx.Err()
	}, jsonrpc.Blocking())
	c := client.New(client.Local(srv), client.Timeout(20*time.Millisecond))
	defer c.Close()

	_, err := client.Call[string](context.Background(), c, "slow", nil)
	var e *jsonrpc.Error
	fmt.Println(errors.As(err, &e), int(e.Code), errors.Is(err, context.DeadlineExceeded))
	fmt.Println(err)
	// Output:
	// true -32010 true
	// jsonrpc: Deadline exceeded (-32010): slow: no answer within the client's timeout of 20ms
}

// A proxy answers 503 while the server behind it restarts; the client
// sends its read-only call again, after a backoff.
func ExampleRetry() {
	srv := jsonrpc.NewServer()
	srv.MustRegister("balance", func(ctx context.Context) int { return 42 })
	var requests atomic.Int64
	h := &httprpc.Handler{Server: srv}
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if requests.Add(1) == 1 {
			http.Error(w, "restarting", http.StatusServiceUnavailable)
			return
		}
		h.ServeHTTP(w, r)
	}))
	defer proxy.Close()

	c := client.New(client.HTTP(proxy.URL, nil), client.Retry(client.RetryPolicy{
		Attempts:   3,
		Backoff:    10 * time.Millisecond,
		MaxBackoff: time.Second,
		Idempotent: func(method string) bool { return method == "balance" },
	}))
	defer c.Close()
	balance, err := client.Call[int](context.Background(), c, "balance", nil)
	fmt.Println(balance, err, requests.Load())
	// Output:
	// 42 <nil> 2
}
