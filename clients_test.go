package jsonrpc_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
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

// TestMaxHeldPerClient: the request copies that one client's Blocking
// calls hold while they run on take at most its share of MaxHeld (half by
// default); a request of that client past it runs its calls on the
// caller's goroutine, uncopied, so that another client's requests are
// still copied and run on. Before the share, the first client's three
// requests held 900 of the 1024 bytes and the other's ran on its caller's
// goroutine, as bench/soak saw the fasthttp body flood (fasthttp-bodies)
// leave the callback client's calls to run on its connection's read loop,
// where they cannot call it back.
func TestMaxHeldPerClient(t *testing.T) {
	pad := strings.Repeat("x", 300-len(`{"jsonrpc":"2.0","method":"hold","params":[""],"id":000}`))
	req := func(id int) string { // 300 bytes, for ids under 900
		return fmt.Sprintf(`{"jsonrpc":"2.0","method":"hold","params":["%s"],"id":%d}`, pad, 100+id)
	}
	answer := func(id int) string { return fmt.Sprintf(`{"jsonrpc":"2.0","result":%d,"id":%d}`, len(pad), 100+id) }
	for _, tc := range []struct {
		name   string
		limits jsonrpc.Limits
		// Whether client a's second request (300 bytes) and then its
		// batch of one (302) are copied beside its first (300).
		second, batch bool
	}{
		{"default share, half of 1024", jsonrpc.Limits{MaxHeld: 1024}, false, false},
		{"share of 700", jsonrpc.Limits{MaxHeld: 4096, MaxHeldPerClient: 700}, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var mu sync.Mutex // protects release
				release := make(chan struct{})
				gate := func() chan struct{} {
					mu.Lock()
					defer mu.Unlock()
					return release
				}
				open := func() {
					mu.Lock()
					close(release)
					release = make(chan struct{})
					mu.Unlock()
				}
				srv := jsonrpc.NewServer(jsonrpc.UseLimits(tc.limits))
				srv.MustRegister("hold", func(pad string) int {
					<-gate()
					return len(pad)
				}, jsonrpc.Blocking())
				type pending struct {
					what     string
					returned chan struct{}
					answered chan string
					want     string
				}
				var all []*pending
				// call sends doc as client's and waits until every
				// goroutine of the bubble is blocked: the call waits for
				// release, on a goroutine of its own or on the caller's.
				call := func(client, doc, want string) *pending {
					p := &pending{what: fmt.Sprintf("%q's %.30s…", client, doc), returned: make(chan struct{}), answered: make(chan string, 1), want: want}
					ctx := transport.WithClient(context.Background(), client)
					go func() {
						srv.ProcessAsync(ctx, nil, []byte(doc), func(resp []byte) { p.answered <- string(resp) })
						close(p.returned)
					}()
					all = append(all, p)
					synctest.Wait()
					return p
				}
				// runsOn checks that ProcessAsync returned while the call
				// waits (a copy of the request runs on), or, with !on,
				// that it did not (the call runs on the caller's goroutine).
				runsOn := func(p *pending, on bool) {
					t.Helper()
					select {
					case <-p.returned:
						if !on {
							t.Errorf("%s was copied and runs on; want it run on its caller's goroutine", p.what)
						}
					default:
						if on {
							t.Errorf("%s runs on its caller's goroutine; want it copied", p.what)
						}
					}
				}
				answered := func() {
					t.Helper()
					open()
					for _, p := range all {
						if got := <-p.answered; got != p.want {
							t.Errorf("%s answered %s, want %s", p.what, got, p.want)
						}
						<-p.returned
					}
					all = nil
				}
				runsOn(call("a", req(1), answer(1)), true)
				runsOn(call("a", req(2), answer(2)), tc.second)
				runsOn(call("a", "["+req(3)+"]", "["+answer(3)+"]"), tc.batch)
				// Another client's request is copied beside a's.
				runsOn(call("b", req(4), answer(4)), true)
				answered()
				// Their bytes came back: a's next request is copied again.
				// Requests of no client count against MaxHeld alone.
				runsOn(call("a", req(5), answer(5)), true)
				for id := 6; id < 8; id++ { // 600 bytes, past a share of 512
					runsOn(call("", req(id), answer(id)), true)
				}
				answered()
			})
		})
	}
}
