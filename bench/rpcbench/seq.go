package main

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"net"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/client"
	"github.com/jsonrpc-go/jsonrpc/peer"
	"github.com/jsonrpc-go/jsonrpc/stream"
	"github.com/jsonrpc-go/jsonrpc/transport"
)

// seqItem is the item the seq rows stream: 200 bytes as a JSON string.
var seqItem = strings.Repeat("s", 198)

// seq measures sequence results over one loopback TCP connection: items
// per second of a method returning an iter.Seq, pulled by client.CallSeq
// through $/enumerator/next with 64 items an answer and with 1, against
// the same items pushed as notifications before the answer.
func (e *env) seq(args []string) int {
	fs := e.flags("seq", "[-d 1s] [-runs R] [-json FILE]",
		"Measures sequence results over one loopback TCP connection (Line framing,\n"+
			"stream.Server, client.Client): items of 200 bytes a second, a method that\n"+
			"returns an iter.Seq consumed with client.CallSeq, 64 items an answer of\n"+
			"$/enumerator/next (seq-64), the same with each pull sent while the loop\n"+
			"takes the page before it (seq-64-ahead, client.ReadAhead) and 1 (seq-1),\n"+
			"against a Blocking method that sends each item as a notification\n"+
			"(notify). The rate and the allocations are per item, both ends of the\n"+
			"connection together.")
	rf := addRunFlags(fs, "duration of each run", "runs per row; the table shows the median")
	if code, ok := e.parse(fs, args); !ok {
		return code
	}
	if msg := rf.problem(); msg != "" {
		return e.badFlag(fs, msg)
	}
	b, err := newSeqBench()
	if err != nil {
		return e.refuse(err)
	}
	defer b.close()
	rows := []struct {
		name string
		run  func(d time.Duration) (Measurement, error)
	}{
		{"seq-64", func(d time.Duration) (Measurement, error) { return b.pull(b.c64, d) }},
		{"seq-64-ahead", func(d time.Duration) (Measurement, error) { return b.pull(b.c64, d, client.ReadAhead()) }},
		{"seq-1", func(d time.Duration) (Measurement, error) { return b.pull(b.c1, d) }},
		{"notify", b.notify},
	}
	ms := make([][]Measurement, len(rows))
	for k := range *rf.runs {
		for i, r := range rows {
			fmt.Fprintf(e.stderr, "running %s run %d/%d... ", r.name, k+1, *rf.runs)
			m, err := r.run(*rf.d)
			if err != nil {
				fmt.Fprintln(e.stderr, "failed")
				return e.refuse(fmt.Errorf("%s: %w", r.name, err))
			}
			e.netProgress(m, nil)
			ms[i] = append(ms[i], m)
		}
	}
	rep := newReport("seq", *rf.d)
	notes := map[string]string{
		"seq-64":       "items a second pulled 64 an answer; allocations per item",
		"seq-64-ahead": "the same, each pull sent before the page before it is taken (client.ReadAhead)",
		"seq-1":        "items a second pulled one an answer; allocations per item",
		"notify":       "items a second as notifications; allocations per item",
	}
	for i, r := range rows {
		rep.Rows = append(rep.Rows, netRow(r.name, 1, ms[i], nil, notes[r.name]))
	}
	e.netTable(rep, "sequence results over one loopback TCP connection (req/s: items/s)", *rf.runs)
	if s, n := rep.find("seq-64", 1), rep.find("notify", 1); s != nil && n != nil {
		fmt.Fprintf(e.stdout, "seq-64/notify: %.2f\n", ratio(s.MedianRPS, n.MedianRPS))
	}
	if s, n := rep.find("seq-64-ahead", 1), rep.find("notify", 1); s != nil && n != nil {
		fmt.Fprintf(e.stdout, "seq-64-ahead/notify: %.2f\n", ratio(s.MedianRPS, n.MedianRPS))
	}
	return e.writeJSON(rep, *rf.jsonFile, 0)
}

// seqBench is the servers and clients of the seq rows.
type seqBench struct {
	servers []*stream.Server
	c64, c1 *client.Client
	cn      *client.Client // answers the notifications
	got     atomic.Int64   // notifications received
}

func newSeqBench() (*seqBench, error) {
	srv := jsonrpc.NewServer()
	srv.MustRegister("items", func(ctx context.Context) iter.Seq[string] {
		return func(yield func(string) bool) {
			for ctx.Err() == nil && yield(seqItem) {
			}
		}
	})
	srv.MustRegister("push", func(ctx context.Context, n int) error {
		c := peer.FromContext(ctx)
		for range n {
			if err := c.Notify(ctx, "item", []string{seqItem}); err != nil {
				return err
			}
		}
		return nil
	}, jsonrpc.Blocking())
	b := &seqBench{}
	dial := func(lim transport.Limits, opts ...client.Option) (*client.Client, error) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		s := &stream.Server{Server: srv, Limits: lim}
		b.servers = append(b.servers, s)
		go s.Serve(ln)
		ch, err := client.Dial(context.Background(), "tcp", ln.Addr().String(), s.Framing)
		if err != nil {
			return nil, err
		}
		return client.New(ch, opts...), nil
	}
	var err error
	if b.c64, err = dial(transport.Limits{MaxSeqItems: 64}); err != nil {
		b.close()
		return nil, err
	}
	if b.c1, err = dial(transport.Limits{MaxSeqItems: 1}); err != nil {
		b.close()
		return nil, err
	}
	mine := jsonrpc.NewServer()
	mine.MustRegister("item", func(s string) { b.got.Add(1) })
	if b.cn, err = dial(transport.Limits{MaxPush: 1 << 16}, client.Serve(mine)); err != nil {
		b.close()
		return nil, err
	}
	return b, nil
}

func (b *seqBench) close() {
	for _, c := range []*client.Client{b.c64, b.c1, b.cn} {
		if c != nil {
			c.Close()
		}
	}
	for _, s := range b.servers {
		s.Close()
	}
}

// pull consumes the sequence for d, checking each item.
func (b *seqBench) pull(c *client.Client, d time.Duration, opts ...client.SeqOption) (Measurement, error) {
	ctx, cancel := context.WithTimeout(context.Background(), d+10*time.Second)
	defer cancel()
	before := mallocs()
	start := time.Now()
	var n int64
	for v, err := range client.CallSeq[string](ctx, c, "items", nil, opts...) {
		if err != nil {
			return Measurement{}, err
		}
		if len(v) != len(seqItem) {
			return Measurement{}, errors.New("an item of the wrong size")
		}
		if n++; n%64 == 0 && time.Since(start) >= d {
			break
		}
	}
	el := time.Since(start)
	return Measurement{Workers: 1, Ops: n, Calls: n, Elapsed: el, Mallocs: mallocs() - before}, nil
}

// notify pushes items as notifications in calls of 4,096 items until d.
func (b *seqBench) notify(d time.Duration) (Measurement, error) {
	ctx, cancel := context.WithTimeout(context.Background(), d+10*time.Second)
	defer cancel()
	b.got.Store(0)
	before := mallocs()
	start := time.Now()
	var n int64
	for time.Since(start) < d {
		if _, err := client.Call[any](ctx, b.cn, "push", []int{4096}); err != nil {
			return Measurement{}, err
		}
		n += 4096
	}
	el := time.Since(start)
	if got := b.got.Load(); got != n {
		return Measurement{}, fmt.Errorf("%d notifications received of %d", got, n)
	}
	return Measurement{Workers: 1, Ops: n, Calls: n, Elapsed: el, Mallocs: mallocs() - before}, nil
}
