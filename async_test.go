package jsonrpc_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/internal/asyncbuf"
	"github.com/jsonrpc-go/jsonrpc/internal/demo"
	"github.com/jsonrpc-go/jsonrpc/transport"
)

// replies collects the answers of ProcessAsync calls.
type replies struct {
	mu  sync.Mutex
	got []string
	n   atomic.Int32
	ch  chan string
}

func newReplies() *replies { return &replies{ch: make(chan string, 1024)} }

func (r *replies) reply(resp []byte) {
	s := string(resp) // resp is valid only during the call
	r.n.Add(1)
	r.ch <- s
}

func (r *replies) wait(t testing.TB) string {
	t.Helper()
	select {
	case s := <-r.ch:
		return s
	case <-time.After(10 * time.Second):
		t.Fatal("no reply within 10s")
		return ""
	}
}

func TestProcessAsyncInline(t *testing.T) {
	srv := demo.NewServer()
	for _, req := range append(demo.Requests, demo.Batch, `{"jsonrpc":"2.0","method":"add","params":[1,2]}`, `{`, `[]`, `[1]`) {
		want := srv.ProcessString(context.Background(), req)
		called := false
		srv.ProcessAsync(context.Background(), nil, []byte(req), func(resp []byte) {
			called = true
			if string(resp) != want {
				t.Errorf("%s: got %s, want %s", req, resp, want)
			}
		})
		if !called {
			t.Errorf("%s: reply did not run before ProcessAsync returned", req)
		}
	}
}

// blockingServer has a blocking method that waits for a release.
type blockingServer struct {
	*jsonrpc.Server
	started chan string // the id of each call that began waiting
	release chan struct{}
}

func newBlockingServer(t testing.TB, opts ...jsonrpc.Option) *blockingServer {
	b := &blockingServer{
		Server:  jsonrpc.NewServer(opts...),
		started: make(chan string, 64),
		release: make(chan struct{}),
	}
	b.MustRegister("wait", func(ctx context.Context, x int) (int, error) {
		b.started <- string(jsonrpc.CallOf(ctx).ID())
		select {
		case <-b.release:
			return x * 10, nil
		case <-ctx.Done():
			return 0, ctx.Err()
		}
	}, jsonrpc.Blocking())
	b.MustRegister("now", func(x int) int { return x + 1 })
	return b
}

func TestProcessAsyncBlocking(t *testing.T) {
	srv := newBlockingServer(t)
	r := newReplies()
	req := []byte(`{"jsonrpc":"2.0","method":"wait","params":[4],"id":"a"}`)
	srv.ProcessAsync(context.Background(), nil, req, r.reply)
	if id := <-srv.started; id != `"a"` {
		t.Fatalf("started %s", id)
	}
	// The caller may reuse its buffer at once.
	copy(req, strings.Repeat("x", len(req)))
	if r.n.Load() != 0 {
		t.Fatal("replied before the method finished")
	}
	close(srv.release)
	if got, want := r.wait(t), `{"jsonrpc":"2.0","result":40,"id":"a"}`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	// Process runs the same method on the caller's goroutine.
	if got := srv.ProcessString(context.Background(), `{"jsonrpc":"2.0","method":"wait","params":[1],"id":2}`); got != `{"jsonrpc":"2.0","result":10,"id":2}` {
		t.Errorf("Process: %s", got)
	}
}

func TestProcessAsyncBatch(t *testing.T) {
	srv := newBlockingServer(t)
	r := newReplies()
	req := []byte(`[{"jsonrpc":"2.0","method":"wait","params":[1],"id":1},{"jsonrpc":"2.0","method":"now","params":[1],"id":2},` +
		`{"jsonrpc":"2.0","method":"wait","params":[2],"id":3},{"jsonrpc":"2.0","method":"wait","params":[3]},{"jsonrpc":"2.0","method":"nope","id":4},5]`)
	srv.ProcessAsync(context.Background(), nil, req, r.reply)
	for range 3 {
		<-srv.started // the three waits run concurrently
	}
	clear(req)
	close(srv.release)
	got := r.wait(t)
	var resps []map[string]any
	if err := json.Unmarshal([]byte(got), &resps); err != nil {
		t.Fatalf("%s: %v", got, err)
	}
	ids := map[string]string{}
	for _, m := range resps {
		ids[fmt.Sprint(m["id"])] = fmt.Sprint(m["result"], m["error"])
	}
	want := map[string]string{"1": "10 <nil>", "2": "2 <nil>", "3": "20 <nil>", "4": "<nil> map[code:-32601 data:nope message:Method not found]", "<nil>": "<nil> map[code:-32600 message:Invalid Request]"}
	if fmt.Sprint(ids) != fmt.Sprint(want) || len(resps) != 5 {
		t.Errorf("got %s", got)
	}
	// The calls that did not block come first.
	if !strings.HasPrefix(got, `[{"jsonrpc":"2.0","result":2,"id":2}`) {
		t.Errorf("inline answers not first: %s", got)
	}

	// A batch of blocking notifications answers with nothing.
	srv2 := newBlockingServer(t)
	close(srv2.release)
	srv2.ProcessAsync(context.Background(), nil, []byte(`[{"jsonrpc":"2.0","method":"wait","params":[1]},{"jsonrpc":"2.0","method":"wait","params":[2]}]`), r.reply)
	if got := r.wait(t); got != "" {
		t.Errorf("notifications: got %q", got)
	}
}

func TestProcessAsyncCancel(t *testing.T) {
	srv := newBlockingServer(t)
	r := newReplies()
	ctx, cancel := context.WithCancel(context.Background())
	srv.ProcessAsync(ctx, nil, []byte(`{"jsonrpc":"2.0","method":"wait","params":[1],"id":7}`), r.reply)
	<-srv.started
	cancel() // after the call was handed to another goroutine
	if got, want := r.wait(t), `{"jsonrpc":"2.0","error":{"code":-32800,"message":"Request cancelled"},"id":7}`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

// TestCallStateAcrossGoroutines reproduces the shape of the .NET library's
// cross-thread frame bug (tracker issue 3): a call suspends under pre and
// post hooks, another call runs to completion meanwhile, and the first
// completes on another goroutine. Each must see only its own id, context
// value and pending error, in the hooks and in the method.
func TestCallStateAcrossGoroutines(t *testing.T) {
	type seen struct{ stage, id, value string }
	var (
		mu  sync.Mutex
		log []seen
	)
	record := func(ctx context.Context, stage string) {
		c := jsonrpc.CallOf(ctx)
		mu.Lock()
		log = append(log, seen{stage, string(c.ID()), fmt.Sprint(c.ContextValue())})
		mu.Unlock()
	}
	srv := newBlockingServer(t,
		jsonrpc.Intercept(func(ctx context.Context, c *jsonrpc.Call, next func(context.Context) error) error {
			record(ctx, "pre")
			err := next(ctx)
			record(ctx, "post")
			if c.ID() != nil && string(c.ID()) == `"slow"` && (c.Err() != nil || err != nil) {
				t.Errorf("slow call sees an error it did not set: %v, %v", c.Err(), err)
			}
			return err
		}))
	srv.MustRegister("fail", func(ctx context.Context) int {
		record(ctx, "method")
		jsonrpc.CallOf(ctx).SetError(jsonrpc.NewError(-1, "fast failed"))
		return 0
	})
	entered := make(chan struct{})
	srv.MustRegister("slow", func(ctx context.Context) int {
		record(ctx, "method")
		close(entered)
		<-srv.release
		record(ctx, "resumed")
		return 10
	}, jsonrpc.Blocking())
	r := newReplies()
	slowCtx := transport.WithContextValue(context.Background(), "slow-value")
	srv.ProcessAsync(slowCtx, nil, []byte(`{"jsonrpc":"2.0","method":"slow","id":"slow"}`), r.reply)
	<-entered // the slow call is suspended inside its method, past its interceptor's start

	fastCtx := transport.WithContextValue(context.Background(), "fast-value")
	var fast string
	srv.ProcessAsync(fastCtx, nil, []byte(`{"jsonrpc":"2.0","method":"fail","id":"fast"}`), func(b []byte) { fast = string(b) })
	if want := `{"jsonrpc":"2.0","error":{"code":-1,"message":"fast failed"},"id":"fast"}`; fast != want {
		t.Errorf("fast: %s, want %s", fast, want)
	}
	close(srv.release)
	if got, want := r.wait(t), `{"jsonrpc":"2.0","result":10,"id":"slow"}`; got != want {
		t.Errorf("slow: %s, want %s", got, want)
	}
	mu.Lock()
	defer mu.Unlock()
	want := []seen{
		{"pre", `"slow"`, "slow-value"},
		{"method", `"slow"`, "slow-value"},
		{"pre", `"fast"`, "fast-value"},
		{"method", `"fast"`, "fast-value"},
		{"post", `"fast"`, "fast-value"},
		{"resumed", `"slow"`, "slow-value"},
		{"post", `"slow"`, "slow-value"},
	}
	if fmt.Sprint(log) != fmt.Sprint(want) {
		t.Errorf("each stage saw (stage, id, context value):\n got %v\nwant %v", log, want)
	}
}

// TestProcessAsyncStress runs 16 workers x 400 documents of inline and
// blocking calls, single and batched, with an interceptor, and checks every answer.
func TestProcessAsyncStress(t *testing.T) {
	const workers, docs = 16, 400
	srv := jsonrpc.NewServer(
		jsonrpc.Intercept(func(ctx context.Context, c *jsonrpc.Call, next func(context.Context) error) error {
			if got := jsonrpc.CallOf(ctx).ContextValue(); got != string(c.ID()) {
				return fmt.Errorf("before: call %s sees context value %v", c.ID(), got)
			}
			if err := next(ctx); err != nil {
				return err
			}
			if got := jsonrpc.CallOf(ctx).ContextValue(); got != string(c.ID()) {
				return fmt.Errorf("after: call %s sees context value %v", c.ID(), got)
			}
			return nil
		}))
	srv.MustRegister("suspend", func(ctx context.Context, x int) int {
		ch := make(chan int)
		go func() { ch <- x * 2 }() // completes on another goroutine
		return <-ch
	}, jsonrpc.Blocking())
	srv.MustRegister("inline", func(ctx context.Context, x int) string {
		return string(jsonrpc.CallOf(ctx).ID())
	})
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			done := make(chan string, 1)
			for d := range docs {
				id := fmt.Sprintf("%d-%d", w, d)
				ctx := transport.WithContextValue(context.Background(), `"`+id+`"`)
				var req, want string
				switch d % 3 {
				case 0:
					req = fmt.Sprintf(`{"jsonrpc":"2.0","method":"suspend","params":[%d],"id":"%s"}`, d, id)
					want = fmt.Sprintf(`{"jsonrpc":"2.0","result":%d,"id":"%s"}`, 2*d, id)
				case 1:
					req = fmt.Sprintf(`{"jsonrpc":"2.0","method":"inline","params":[%d],"id":"%s"}`, d, id)
					want = fmt.Sprintf(`{"jsonrpc":"2.0","result":"\"%s\"","id":"%s"}`, id, id)
				default:
					// Both calls carry the same id, so that the context value matches.
					req = fmt.Sprintf(`[{"jsonrpc":"2.0","method":"suspend","params":[%d],"id":"%s"},{"jsonrpc":"2.0","method":"inline","params":[0],"id":"%s"}]`, d, id, id)
					want = fmt.Sprintf(`[{"jsonrpc":"2.0","result":"\"%s\"","id":"%s"},{"jsonrpc":"2.0","result":%d,"id":"%s"}]`, id, id, 2*d, id)
				}
				srv.ProcessAsync(ctx, nil, []byte(req), func(b []byte) { done <- string(b) })
				if got := <-done; got != want {
					t.Errorf("%s: got %s, want %s", req, got, want)
					return
				}
			}
		})
	}
	wg.Wait()
}

// A method may call back into the server, and many calls may be in flight
// at once.
func TestProcessAsyncReentrantAndOverlapping(t *testing.T) {
	srv := newBlockingServer(t)
	srv.MustRegister("nested", func(ctx context.Context, x int) int {
		ch := make(chan string, 1)
		srv.ProcessAsync(ctx, nil, []byte(fmt.Sprintf(`{"jsonrpc":"2.0","method":"now","params":[%d],"id":1}`, x)), func(b []byte) { ch <- string(b) })
		var resp struct{ Result int }
		json.Unmarshal([]byte(<-ch), &resp)
		return resp.Result * 100
	}, jsonrpc.Blocking())
	r := newReplies()
	const n = 50
	for i := range n {
		srv.ProcessAsync(context.Background(), nil, []byte(fmt.Sprintf(`{"jsonrpc":"2.0","method":"wait","params":[%d],"id":%d}`, i, i)), r.reply)
	}
	for range n {
		<-srv.started
	}
	var nested string
	done := make(chan struct{})
	srv.ProcessAsync(context.Background(), nil, []byte(`{"jsonrpc":"2.0","method":"nested","params":[4],"id":"n"}`), func(b []byte) { nested = string(b); close(done) })
	<-done
	if nested != `{"jsonrpc":"2.0","result":500,"id":"n"}` {
		t.Errorf("nested: %s", nested)
	}
	close(srv.release)
	seen := map[string]bool{}
	for range n {
		seen[r.wait(t)] = true
	}
	for i := range n {
		if want := fmt.Sprintf(`{"jsonrpc":"2.0","result":%d,"id":%d}`, i*10, i); !seen[want] {
			t.Errorf("missing %s", want)
		}
	}
}

// A reply that panics on the caller's goroutine leaves the server and its
// buffer pool usable.
func TestProcessAsyncPanickingReply(t *testing.T) {
	srv := demo.NewServer()
	func() {
		defer func() {
			if recover() == nil {
				t.Error("the reply's panic did not reach the caller")
			}
		}()
		srv.ProcessAsync(context.Background(), nil, []byte(demo.Requests[0]), func([]byte) { panic("reply") })
	}()
	for _, req := range demo.Requests {
		want := srv.ProcessString(context.Background(), req)
		srv.ProcessAsync(context.Background(), nil, []byte(req), func(b []byte) {
			if string(b) != want {
				t.Errorf("after a panic: got %s, want %s", b, want)
			}
		})
	}
}

// Buffers that grew past 64 KiB are dropped, not kept.
func TestProcessAsyncOversized(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := jsonrpc.NewServer()
		srv.MustRegister("echo", func(s string) string { return s }, jsonrpc.Blocking())
		before := asyncbuf.ReadStats()
		big := strings.Repeat("x", 100<<10)
		var n int
		srv.ProcessAsync(context.Background(), nil, []byte(`{"jsonrpc":"2.0","method":"echo","params":["`+big+`"],"id":1}`), func(b []byte) { n = len(b) })
		synctest.Wait() // the call's goroutine has replied and released its scratch
		if n < len(big) {
			t.Errorf("short answer: %d bytes", n)
		}
		if after := asyncbuf.ReadStats(); after.Dropped != before.Dropped+1 {
			t.Errorf("dropped %d -> %d, want one more", before.Dropped, after.Dropped)
		}
	})
}

// Inline answers are appended to dst's spare room.
func TestProcessAsyncAppendsToDst(t *testing.T) {
	srv := demo.NewServer()
	dst := append(make([]byte, 0, 256), "prefix"...)
	srv.ProcessAsync(context.Background(), dst, []byte(demo.Requests[1]), func(resp []byte) {
		if string(resp) != `{"jsonrpc":"2.0","result":7,"id":2}` {
			t.Errorf("resp %s", resp)
		}
		if &resp[0] != &dst[:len(dst)+1][len(dst)] {
			t.Error("the inline answer is not in dst's spare room")
		}
	})
	if string(dst) != "prefix" {
		t.Errorf("dst changed: %s", dst)
	}
}

// MaxRunning bounds the goroutines of Blocking calls for the whole server:
// callers that each send a batch of blocking calls get at most MaxRunning
// goroutines between them, the calls past the bound run on the callers'
// goroutines, and every call is answered.
func TestProcessAsyncMaxRunning(t *testing.T) {
	const callers, perBatch, maxRunning = 20, 100, 50
	srv := jsonrpc.NewServer(jsonrpc.UseLimits(jsonrpc.Limits{MaxRunning: maxRunning}))
	release := make(chan struct{})
	var active, peak atomic.Int64
	srv.MustRegister("wait", func(ctx context.Context, n int) int {
		a := active.Add(1)
		for p := peak.Load(); a > p && !peak.CompareAndSwap(p, a); p = peak.Load() {
		}
		defer active.Add(-1)
		select {
		case <-release:
		case <-ctx.Done():
		}
		return n
	}, jsonrpc.Blocking())
	var b strings.Builder
	b.WriteString("[")
	for i := range perBatch {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"jsonrpc":"2.0","method":"wait","params":[%d],"id":%d}`, i, i)
	}
	b.WriteString("]")
	batch := []byte(b.String())

	before := runtime.NumGoroutine()
	answers := make(chan []byte, callers)
	for range callers {
		go srv.ProcessAsync(context.Background(), nil, batch, func(resp []byte) { answers <- bytes.Clone(resp) })
	}
	// Every slot is taken, and each caller runs one call itself.
	deadline := time.Now().Add(10 * time.Second)
	for active.Load() < maxRunning+callers {
		if time.Now().After(deadline) {
			t.Fatalf("%d calls running, want %d", active.Load(), maxRunning+callers)
		}
		time.Sleep(time.Millisecond)
	}
	if n := runtime.NumGoroutine() - before; n > callers+maxRunning+5 {
		t.Errorf("%d goroutines for %d callers and MaxRunning %d", n, callers, maxRunning)
	}
	close(release)
	for range callers {
		resp := <-answers
		var rs []struct {
			Result int
			ID     int
		}
		if err := json.Unmarshal(resp, &rs); err != nil || len(rs) != perBatch {
			t.Fatalf("answer of %d responses (%v): %.200s", len(rs), err, resp)
		}
		for _, r := range rs {
			if r.Result != r.ID {
				t.Fatalf("response %+v", r)
			}
		}
	}
	if p := peak.Load(); p > maxRunning+callers {
		t.Errorf("%d calls ran at once, want at most %d", p, maxRunning+callers)
	}
}

// A Blocking method that calls runtime.Goexit on its goroutine is answered
// with an internal error, alone and in a batch, and its slot is released.
func TestProcessAsyncGoexit(t *testing.T) {
	srv := jsonrpc.NewServer(jsonrpc.UseLimits(jsonrpc.Limits{MaxRunning: 1}))
	srv.MustRegister("quit", func() int { runtime.Goexit(); return 0 }, jsonrpc.Blocking())
	srv.MustRegister("ok", func() int { return 1 }, jsonrpc.Blocking())
	internal := `{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error","data":"the method called runtime.Goexit"},"id":1}`
	for _, tt := range []struct{ req, want string }{
		{`{"jsonrpc":"2.0","method":"quit","id":1}`, internal},
		{`{"jsonrpc":"2.0","method":"quit"}`, ""},
		{`[{"jsonrpc":"2.0","method":"quit","id":1},{"jsonrpc":"2.0","method":"ok","id":2}]`, "[" + internal + `,{"jsonrpc":"2.0","result":1,"id":2}]`},
		{`{"jsonrpc":"2.0","method":"ok","id":3}`, `{"jsonrpc":"2.0","result":1,"id":3}`},
	} {
		got := make(chan string, 1)
		srv.ProcessAsync(context.Background(), nil, []byte(tt.req), func(b []byte) { got <- string(b) })
		select {
		case g := <-got:
			if g != tt.want {
				t.Errorf("%s: got %s, want %s", tt.req, g, tt.want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: no answer", tt.req)
		}
	}
}

// MaxHeld bounds the bytes of the request copies of calls that run on: a
// request whose copy would pass it runs its Blocking calls on the caller's
// goroutine, so ProcessAsync returns only once they have answered; a
// smaller one still runs on, and the bytes come back when calls end.
func TestProcessAsyncMaxHeld(t *testing.T) {
	big, mid := strings.Repeat("x", 600), strings.Repeat("m", 250)
	for _, tc := range []struct {
		name   string
		req    string
		runsOn bool // ProcessAsync returns before the call answers
		want   string
	}{
		{"small", `{"jsonrpc":"2.0","method":"hold","params":["x"],"id":1}`, true, `{"jsonrpc":"2.0","result":1,"id":1}`},
		{"large", `{"jsonrpc":"2.0","method":"hold","params":["` + big + `"],"id":2}`, false, `{"jsonrpc":"2.0","result":600,"id":2}`},
		{"large batch", `[{"jsonrpc":"2.0","method":"hold","params":["` + big + `"],"id":3},{"jsonrpc":"2.0","method":"hold","params":["y"],"id":4}]`, false,
			`[{"jsonrpc":"2.0","result":600,"id":3},{"jsonrpc":"2.0","result":1,"id":4}]`},
		// 300-byte requests, one after the other: the second is copied
		// only if the first gave its bytes back.
		{"medium", `{"jsonrpc":"2.0","method":"hold","params":["` + mid + `"],"id":5}`, true, `{"jsonrpc":"2.0","result":250,"id":5}`},
		{"medium again", `{"jsonrpc":"2.0","method":"hold","params":["` + mid + `"],"id":6}`, true, `{"jsonrpc":"2.0","result":250,"id":6}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// In a bubble, Wait returns once every goroutine is blocked:
			// ProcessAsync has returned then, or it waits for the call.
			synctest.Test(t, func(t *testing.T) {
				srv := jsonrpc.NewServer(jsonrpc.UseLimits(jsonrpc.Limits{MaxHeld: 512}))
				release := make(chan struct{})
				srv.MustRegister("hold", func(ctx context.Context, pad string) int {
					<-release
					return len(pad)
				}, jsonrpc.Blocking())
				reqs := []string{tc.req}
				if tc.name == "medium again" {
					// The second is copied only if the first gave its
					// bytes back.
					reqs = []string{strings.Replace(tc.req, `"id":6`, `"id":5`, 1), tc.req}
				}
				for i, req := range reqs {
					if i > 0 {
						release = make(chan struct{})
					}
					got := make(chan string, 1)
					returned := make(chan struct{})
					go func() {
						srv.ProcessAsync(context.Background(), nil, []byte(req), func(resp []byte) { got <- string(resp) })
						close(returned)
					}()
					synctest.Wait()
					select {
					case <-returned:
						if !tc.runsOn {
							t.Fatal("ProcessAsync returned before the call answered: the request was copied past MaxHeld")
						}
					default:
						if tc.runsOn {
							t.Fatal("ProcessAsync held the caller: the request was not copied")
						}
					}
					close(release)
					want := tc.want
					if i < len(reqs)-1 {
						want = strings.Replace(want, `"id":6`, `"id":5`, 1)
					}
					if resp := <-got; resp != want {
						t.Fatalf("got %s, want %s", resp, want)
					}
					<-returned
				}
			})
		})
	}
}
