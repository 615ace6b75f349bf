package jsonrpc_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/transport"
)

// TestMaxRunningPerClient: one client runs at most its share of MaxRunning
// Blocking calls on goroutines of their own (half by default), its further
// calls running on its own goroutines, so that another client's calls
// still get goroutines of theirs.
func TestMaxRunningPerClient(t *testing.T) {
	release := make(chan struct{})
	started := make(chan string, 16)
	srv := jsonrpc.NewServer(jsonrpc.UseLimits(jsonrpc.Limits{MaxRunning: 4}))
	srv.MustRegister("hold", func(who string) string {
		started <- who
		<-release
		return who
	}, jsonrpc.Blocking())
	call := func(client string, id int) (returned chan struct{}, answered chan string) {
		returned, answered = make(chan struct{}), make(chan string, 1)
		ctx := transport.WithClient(context.Background(), client)
		req := fmt.Sprintf(`{"jsonrpc":"2.0","method":"hold","params":[%q],"id":%d}`, client, id)
		go func() {
			srv.ProcessAsync(ctx, nil, []byte(req), func(resp []byte) { answered <- string(resp) })
			close(returned)
		}()
		return returned, answered
	}
	within := func(ch <-chan struct{}, what string) {
		t.Helper()
		select {
		case <-ch:
		case <-time.After(30 * time.Second):
			t.Fatal(what)
		}
	}
	var answers []chan string
	// Client a: two calls on goroutines of their own (ProcessAsync returns
	// while they run), then two more that run on a's goroutines.
	for i := range 4 {
		returned, answered := call("a", i)
		answers = append(answers, answered)
		<-started
		if i < 2 {
			within(returned, fmt.Sprintf("a's call %d did not get a goroutine of its own", i))
		}
	}
	// Client b still gets one.
	returned, answered := call("b", 9)
	answers = append(answers, answered)
	<-started
	within(returned, "b's call ran on its caller's goroutine: a has taken every slot")
	close(release)
	for _, a := range answers {
		<-a
	}
}
