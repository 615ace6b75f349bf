package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/client"
	"github.com/jsonrpc-go/jsonrpc/peer"
	"github.com/jsonrpc-go/jsonrpc/protocol/lsp"
	"github.com/jsonrpc-go/jsonrpc/pubsub"
	"github.com/jsonrpc-go/jsonrpc/stream"
	"github.com/jsonrpc-go/jsonrpc/transport"
)

// twoway measures two-way connections over loopback TCP (Line framing):
// calls from the client and from the server on one connection, the latency
// of a cancel, and push throughput to 1 and to many subscribers.
func (e *env) twoway(args []string) int {
	fs := e.flags("twoway", "[-d 1s] [-runs R] [-callers W] [-subs N] [-json FILE]",
		"Measures two-way connections over loopback TCP (Line framing, stream.Server,\n"+
			"client.Client). Rows: call (client to server round trips of \"add\", W callers\n"+
			"on one connection), callback (server to client round trips: a peer.Conn of\n"+
			"the server calls the client's \"add\", W callers), cancel (a Blocking call\n"+
			"cancelled by its caller under lsp.Protocol(): the latency from cancel() to the\n"+
			"method seeing its context done), push-1 and push-N (pubsub.Topic.Publish to 1\n"+
			"and to N subscriber connections, windows of 64 values, each published once\n"+
			"and delivered to every subscriber: the rate is of notifications delivered).")
	rf := addRunFlags(fs, "duration of each run", "runs per row; the table shows the median")
	callers := fs.Int("callers", 16, "concurrent callers of the call and callback rows (`W`)")
	subs := fs.Int("subs", 100, "subscriber connections of the push-N row (`N`)")
	if code, ok := e.parse(fs, args); !ok {
		return code
	}
	if msg := rf.problem(); msg != "" {
		return e.badFlag(fs, msg)
	}
	if *callers < 1 || *subs < 1 {
		return e.badFlag(fs, "-callers and -subs must be at least 1")
	}
	rows := []twowayRow{
		{name: "call", workers: *callers, run: func(b *twowayBench, d time.Duration) (Measurement, *latHist, error) {
			return b.calls(d, *callers, b.client)
		}},
		{name: "callback", workers: *callers, run: func(b *twowayBench, d time.Duration) (Measurement, *latHist, error) {
			return b.calls(d, *callers, b.serverConn)
		}},
		{name: "cancel", workers: 1, run: (*twowayBench).cancels},
		{name: "push-1", workers: 1, run: func(b *twowayBench, d time.Duration) (Measurement, *latHist, error) {
			return b.push(d, 1)
		}},
		{name: fmt.Sprintf("push-%d", *subs), workers: *subs, run: func(b *twowayBench, d time.Duration) (Measurement, *latHist, error) {
			return b.push(d, *subs)
		}},
	}
	b, err := newTwowayBench(max(*subs, 1))
	if err != nil {
		return e.refuse(err)
	}
	defer b.close()
	ms := make([][]Measurement, len(rows))
	lats := make([]*latHist, len(rows))
	for i := range lats {
		lats[i] = new(latHist)
	}
	for k := range *rf.runs {
		for i, r := range rows {
			fmt.Fprintf(e.stderr, "running %s run %d/%d... ", r.name, k+1, *rf.runs)
			m, lat, err := r.run(b, *rf.d)
			if err != nil {
				fmt.Fprintln(e.stderr, "failed")
				return e.refuse(fmt.Errorf("%s: %w", r.name, err))
			}
			e.netProgress(m, lat)
			ms[i] = append(ms[i], m)
			if lat != nil {
				lats[i].add(lat)
			}
		}
	}
	rep := newReport("twoway", *rf.d)
	notes := map[string]string{
		"call":     "latency per call, from the caller",
		"callback": "latency per call, from the server's caller",
		"cancel":   "rate of cancelled calls; latency from cancel() to the method's context done",
	}
	for _, r := range rows[3:] {
		notes[r.name] = "rate of notifications delivered; latency per window of 64 values, from the first Publish to the last delivery"
	}
	for i, r := range rows {
		rep.Rows = append(rep.Rows, netRow(r.name, r.workers, ms[i], lats[i], notes[r.name]))
	}
	e.netTable(rep, "two-way connections over loopback TCP", *rf.runs)
	if c, cb := rep.find("call", *callers), rep.find("callback", *callers); c != nil && cb != nil {
		fmt.Fprintf(e.stdout, "callback/call: %.2f\n", ratio(cb.MedianRPS, c.MedianRPS))
	}
	return e.writeJSON(rep, *rf.jsonFile, 0)
}

type twowayRow struct {
	name    string
	workers int
	run     func(b *twowayBench, d time.Duration) (Measurement, *latHist, error)
}

// twowayBench is the server and the connections the rows share.
type twowayBench struct {
	srv        *stream.Server
	ln         net.Listener
	served     chan struct{}
	client     *client.Client // answers "add" for the callback row
	serverConn *peer.Conn     // the server's end of client's connection
	topic      *pubsub.Topic
	subs       []*client.Client // push subscribers, subs[0] being client
	got        atomic.Int64     // notifications the subscribers received
	started    chan struct{}    // "wait" has started
	stopped    chan time.Time   // when "wait" saw its context done
}

func newTwowayBench(nsubs int) (*twowayBench, error) {
	b := &twowayBench{topic: &pubsub.Topic{Method: "tick"}, served: make(chan struct{}),
		started: make(chan struct{}, 1), stopped: make(chan time.Time, 1)}
	srv := jsonrpc.NewServer()
	conns := make(chan *peer.Conn, 1)
	srv.MustRegister("add", func(a, c float64) float64 { return a + c })
	srv.MustRegister("hello", func(ctx context.Context) { conns <- peer.FromContext(ctx) })
	srv.MustRegister("subscribe", func(ctx context.Context) (string, error) {
		sub, err := b.topic.Subscribe(ctx)
		if err != nil {
			return "", err
		}
		return sub.ID(), nil
	})
	srv.MustRegister("wait", func(ctx context.Context) error {
		b.started <- struct{}{}
		<-ctx.Done()
		b.stopped <- time.Now()
		return ctx.Err()
	}, jsonrpc.Blocking())
	b.srv = &stream.Server{Server: srv, Protocol: lsp.Protocol(), Limits: transport.Limits{MaxPush: 1024}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	b.ln = ln
	go func() { b.srv.Serve(ln); close(b.served) }()
	csrv := jsonrpc.NewServer()
	csrv.MustRegister("add", func(a, c float64) float64 { return a + c })
	csrv.MustRegister("tick", func(p struct {
		Subscription string `json:"subscription"`
		Result       int    `json:"result"`
	}) {
		b.got.Add(1)
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for i := range nsubs {
		ch, err := client.Dial(ctx, "tcp", ln.Addr().String(), nil)
		if err != nil {
			b.close()
			return nil, err
		}
		c := client.New(ch, client.Serve(csrv), client.UseProtocol(lsp.Protocol()))
		b.subs = append(b.subs, c)
		if i == 0 {
			b.client = c
			if err := c.Notify(ctx, "hello", nil); err != nil {
				b.close()
				return nil, err
			}
			select {
			case b.serverConn = <-conns:
			case <-ctx.Done():
				b.close()
				return nil, errors.New("no hello")
			}
		}
	}
	// Check the rows' calls once.
	for _, c := range []client.Caller{b.client, b.serverConn} {
		if sum, err := client.Call[float64](ctx, c, "add", []any{1, 2}); err != nil || sum != 3 {
			b.close()
			return nil, fmt.Errorf("add(1, 2) = %v, %v", sum, err)
		}
	}
	return b, nil
}

func (b *twowayBench) close() {
	for _, c := range b.subs {
		c.Close()
	}
	b.srv.Close()
	<-b.served
}

// calls makes round trips of "add" through c from w goroutines for d.
func (b *twowayBench) calls(d time.Duration, w int, c client.Caller) (Measurement, *latHist, error) {
	var (
		mu    sync.Mutex
		lat   = new(latHist)
		calls atomic.Int64
		first error
		wg    sync.WaitGroup
	)
	before := mallocs()
	start := time.Now()
	deadline := start.Add(d)
	for range w {
		wg.Go(func() {
			own := new(latHist)
			ctx := context.Background()
			for time.Now().Before(deadline) {
				t0 := time.Now()
				sum, err := client.Call[float64](ctx, c, "add", []any{1, 2})
				if err == nil && sum != 3 {
					err = fmt.Errorf("add(1, 2) = %v", sum)
				}
				if err != nil {
					mu.Lock()
					first = firstErr(first, err)
					mu.Unlock()
					return
				}
				own.record(time.Since(t0).Nanoseconds())
				calls.Add(1)
			}
			mu.Lock()
			lat.add(own)
			mu.Unlock()
		})
	}
	wg.Wait()
	m := Measurement{Workers: w, Ops: calls.Load(), Calls: calls.Load(), Elapsed: time.Since(start), Mallocs: mallocs() - before}
	return m, lat, first
}

func firstErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// cancels cancels calls of "wait" once they have started, for d.
func (b *twowayBench) cancels(d time.Duration) (Measurement, *latHist, error) {
	lat := new(latHist)
	n := int64(0)
	before := mallocs()
	start := time.Now()
	for time.Since(start) < d {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			_, err := b.client.CallRaw(ctx, "wait", nil)
			done <- err
		}()
		select {
		case <-b.started:
		case <-time.After(5 * time.Second):
			cancel()
			return Measurement{}, nil, errors.New("wait did not start")
		}
		t0 := time.Now()
		cancel()
		select {
		case t1 := <-b.stopped:
			lat.record(t1.Sub(t0).Nanoseconds())
		case <-time.After(5 * time.Second):
			return Measurement{}, nil, errors.New("the cancel did not reach the method")
		}
		if err := <-done; !errors.Is(err, context.Canceled) {
			return Measurement{}, nil, fmt.Errorf("cancelled call: %v", err)
		}
		n++
	}
	return Measurement{Workers: 1, Ops: n, Calls: n, Elapsed: time.Since(start), Mallocs: mallocs() - before}, lat, nil
}

// push publishes windows of 64 values to subs subscribers for d, each
// window once every subscriber has received the one before.
func (b *twowayBench) push(d time.Duration, subs int) (Measurement, *latHist, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var ids []string
	for _, c := range b.subs[:subs] {
		id, err := client.Call[string](ctx, c, "subscribe", nil)
		if err != nil {
			return Measurement{}, nil, err
		}
		ids = append(ids, id)
	}
	defer func() {
		for _, id := range ids {
			b.topic.Unsubscribe(id)
		}
	}()
	const window = 64
	lat := new(latHist)
	b.got.Store(0)
	sent := int64(0)
	before := mallocs()
	start := time.Now()
	for time.Since(start) < d {
		t0 := time.Now()
		for i := range window {
			if _, err := b.topic.Publish(i); err != nil {
				return Measurement{}, nil, err
			}
		}
		sent += window * int64(subs)
		for b.got.Load() < sent {
			if time.Since(t0) > 5*time.Second {
				return Measurement{}, nil, fmt.Errorf("%d of %d notifications delivered", b.got.Load(), sent)
			}
			time.Sleep(20 * time.Microsecond)
		}
		lat.record(time.Since(t0).Nanoseconds())
	}
	return Measurement{Workers: subs, Ops: sent, Calls: sent, Elapsed: time.Since(start), Mallocs: mallocs() - before}, lat, nil
}

func mallocs() uint64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.Mallocs
}
