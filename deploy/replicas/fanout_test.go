package replicas

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/coder/websocket"
	"github.com/jsonrpc-go/jsonrpc/deploy/internal/proc"
)

var (
	fanoutSubscribers = flag.Int("fanout.subscribers", 100, "TestFanout: subscribers, spread over the replicas")
	fanoutEvents      = flag.Int("fanout.events", 2000, "TestFanout: events published for the rate")
	fanoutProbes      = flag.Int("fanout.probes", 200, "TestFanout: events published one at a time for the latency")
	fanoutWindow      = flag.Int("fanout.window", 64, "TestFanout: events published and not yet delivered to every subscriber, at most, for the rate")
)

// fanoutCounts returns the events published for the rate and the probes
// published one at a time for the latency: -fanout.events and
// -fanout.probes, fewer by default under the race detector, where the
// figures mean nothing and what is checked (each event delivered once,
// in order) holds at any count.
func fanoutCounts() (events, probes int) {
	events, probes = *fanoutEvents, *fanoutProbes
	if raceEnabled {
		set := map[string]bool{}
		flag.Visit(func(f *flag.Flag) { set[f.Name] = true })
		if !set["fanout.events"] {
			events = 400
		}
		if !set["fanout.probes"] {
			probes = 40
		}
	}
	return events, probes
}

// A fanoutRow is what TestFanout measured of one setup.
type fanoutRow struct {
	broker   string
	replicas int
	rate     float64       // deliveries a second, window events in flight
	p50, p99 time.Duration // publish to delivery, one event in flight
	loaded   time.Duration // publish to delivery, p99, window events in flight
}

// TestFanout measures, in one run, the events a second delivered to
// -fanout.subscribers WebSocket subscribers spread over 1, 2 and 3
// jsonrpcd on each broker, beside one jsonrpcd with its in-memory
// Topic, and the latency from publish to delivery (p50 and p99, one event
// in flight). The publishes go through the replicas in turn. Every
// subscriber must receive every event exactly once, and each replica's
// in the order it was published there. The test and the processes share
// the machine's cores, so the figures are those of the whole: read their
// ratios, not their absolute values.
//
//	cd deploy && go test -run TestFanout -v ./replicas
func TestFanout(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the brokers and up to three jsonrpcd on each")
	}
	bin := proc.Jsonrpcd(t)
	var rows []fanoutRow
	measure := func(t *testing.T, name string, replicas int, brokerURL string) {
		t.Run(fmt.Sprintf("%s-%d", name, replicas), func(t *testing.T) {
			addrs := make([]string, replicas)
			for i := range addrs {
				addrs[i] = proc.FreeAddr(t)
				args := []string{"-http", addrs[i], "-tcp", "", "-log-level", "warn"}
				if brokerURL != "" {
					args = append(args, "-broker", brokerURL)
				}
				start(t, addrs[i], bin, args...)
			}
			row := fanout(t, addrs)
			row.broker, row.replicas = name, replicas
			rows = append(rows, row)
		})
	}
	measure(t, "memory", 1, "")
	for _, b := range brokers {
		t.Run(b.name, func(t *testing.T) {
			baddr := proc.FreeAddr(t)
			b.start(t, baddr)
			for n := 1; n <= 3; n++ {
				measure(t, b.name, n, b.url(baddr))
			}
		})
	}
	var sb strings.Builder
	tw := tabwriter.NewWriter(&sb, 0, 0, 2, ' ', tabwriter.AlignRight)
	events, probes := fanoutCounts()
	fmt.Fprintf(&sb, "%d subscribers, %d events (%d in flight), %d probes, race detector %v:\n", *fanoutSubscribers, events, *fanoutWindow, probes, raceEnabled)
	fmt.Fprintln(tw, "broker\treplicas\tdeliveries/s\tp50\tp99\tp99 loaded\t")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%d\t%.0f\t%v\t%v\t%v\t\n", r.broker, r.replicas, r.rate,
			r.p50.Round(10*time.Microsecond), r.p99.Round(10*time.Microsecond), r.loaded.Round(10*time.Microsecond))
	}
	tw.Flush()
	t.Log("\n" + sb.String())
}

// fanout subscribes the subscribers, spread over addrs, and publishes
// through addrs in turn: first -fanout.events with -fanout.window in
// flight, for the rate, then -fanout.probes one at a time, for the
// latency.
func fanout(t *testing.T, addrs []string) fanoutRow {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	nsub := *fanoutSubscribers
	events, probes := fanoutCounts()
	total := events + probes
	// delivered[i] counts the subscribers that have event i; the last
	// to receive it sends i on complete.
	delivered := make([]atomic.Int32, total)
	complete := make(chan int, total)
	sent := make([]atomic.Int64, total) // when event i was published, in ns since began
	began := time.Now()
	errc := make(chan error, nsub+len(addrs))
	subs := make([]*fanoutSub, nsub)
	for j := range subs {
		s, err := subscribeFanout(ctx, addrs[j%len(addrs)], len(addrs), total)
		if err != nil {
			t.Fatalf("subscriber %d: %v", j, err)
		}
		subs[j] = s
		go s.read(ctx, began, sent, delivered, int32(nsub), complete, errc)
	}
	defer func() {
		for _, s := range subs {
			s.c.CloseNow()
		}
	}()
	pubs := make([]*websocket.Conn, len(addrs))
	for i, a := range addrs {
		c, _, err := websocket.Dial(ctx, "ws://"+a+"/ws", nil)
		if err != nil {
			t.Fatal(err)
		}
		defer c.CloseNow()
		pubs[i] = c
		go readPublishAnswers(ctx, c, errc)
	}

	// publish sends events [from, to) with at most window of them not
	// yet delivered to every subscriber, and returns when all are.
	publish := func(from, to, window int) time.Duration {
		start := time.Now()
		inFlight := 0
		await := func() {
			select {
			case <-complete:
				inFlight--
			case err := <-errc:
				t.Fatal(err)
			case <-time.After(wait):
				t.Fatalf("events %d to %d: no event delivered to every subscriber within %v (%d in flight)", from, to, wait, inFlight)
			}
		}
		for i := from; i < to; i++ {
			for inFlight >= window {
				await()
			}
			p := i % len(pubs)
			sent[i].Store(int64(time.Since(began)))
			msg := fmt.Sprintf(`{"jsonrpc":"2.0","method":"publish","params":["%d.%d",1],"id":%d}`, p, i, i)
			wctx, wcancel := context.WithTimeout(ctx, wait)
			err := pubs[p].Write(wctx, websocket.MessageText, []byte(msg))
			wcancel()
			if err != nil {
				t.Fatal(err)
			}
			inFlight++
		}
		for inFlight > 0 {
			await()
		}
		return time.Since(start)
	}
	took := publish(0, events, *fanoutWindow)
	publish(events, total, 1)
	// Each subscriber had the events before the probes: the first
	// publish returned only once every subscriber had every event.
	var loaded, probeLat []time.Duration
	for _, s := range subs {
		if s.n != total {
			t.Fatalf("a subscriber has %d events, want %d", s.n, total)
		}
		loaded = append(loaded, s.latency[:events]...)
		probeLat = append(probeLat, s.latency[events:]...)
	}
	slices.Sort(probeLat)
	slices.Sort(loaded)
	return fanoutRow{
		rate:   float64(events*nsub) / took.Seconds(),
		p50:    quantile(probeLat, 0.50),
		p99:    quantile(probeLat, 0.99),
		loaded: quantile(loaded, 0.99),
	}
}

func quantile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[min(len(sorted)-1, int(q*float64(len(sorted))))]
}

// A fanoutSub is a subscriber of TestFanout: its connection, the events
// it has had, and how long each took from its publish.
type fanoutSub struct {
	c       *websocket.Conn
	sub     string
	seen    []bool
	last    []int // by publisher, the last event had from it
	n       int
	latency []time.Duration
}

func subscribeFanout(ctx context.Context, addr string, publishers, total int) (*fanoutSub, error) {
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	c, _, err := websocket.Dial(ctx, "ws://"+addr+"/ws", nil)
	if err != nil {
		return nil, err
	}
	if err := c.Write(ctx, websocket.MessageText, []byte(`{"jsonrpc":"2.0","method":"subscribe","id":1}`)); err != nil {
		return nil, err
	}
	_, b, err := c.Read(ctx)
	if err != nil {
		return nil, err
	}
	id, ok := strings.CutPrefix(string(b), `{"jsonrpc":"2.0","result":"`)
	if id, ok = strings.CutSuffix(id, `","id":1}`); !ok {
		return nil, fmt.Errorf("subscribe answered %s", b)
	}
	s := &fanoutSub{c: c, sub: id, seen: make([]bool, total), last: make([]int, publishers), latency: make([]time.Duration, 0, total)}
	for i := range s.last {
		s.last[i] = -1
	}
	return s, nil
}

// read receives the subscriber's notifications until ctx ends: each must
// be the next of its publisher's events and new to the subscriber.
func (s *fanoutSub) read(ctx context.Context, began time.Time, sent []atomic.Int64, delivered []atomic.Int32, nsub int32, complete chan<- int, errc chan<- error) {
	prefix := `{"jsonrpc":"2.0","method":"subscription","params":{"subscription":"` + s.sub + `","result":"`
	for {
		_, b, err := s.c.Read(ctx)
		if err != nil {
			if ctx.Err() == nil {
				errc <- fmt.Errorf("subscriber %s after %d events: %v", s.sub, s.n, err)
			}
			return
		}
		at := time.Since(began)
		v, ok := strings.CutPrefix(string(b), prefix)
		if v, ok = strings.CutSuffix(v, `"}}`); !ok {
			errc <- fmt.Errorf("subscriber %s: %s", s.sub, b)
			return
		}
		ps, is, _ := strings.Cut(v, ".")
		p, err1 := strconv.Atoi(ps)
		i, err2 := strconv.Atoi(is)
		switch {
		case errors.Join(err1, err2) != nil || p < 0 || p >= len(s.last) || i < 0 || i >= len(s.seen):
			errc <- fmt.Errorf("subscriber %s: the value %q", s.sub, v)
			return
		case s.seen[i]:
			errc <- fmt.Errorf("subscriber %s: event %d twice", s.sub, i)
			return
		case i < s.last[p]:
			errc <- fmt.Errorf("subscriber %s: event %d after %d, both from publisher %d", s.sub, i, s.last[p], p)
			return
		}
		s.seen[i], s.last[p] = true, i
		s.n++
		s.latency = append(s.latency, at-time.Duration(sent[i].Load()))
		if delivered[i].Add(1) == nsub {
			complete <- i
		}
	}
}

// readPublishAnswers reads the answers of a publisher's connection until
// ctx ends; an error answer is sent on errc.
func readPublishAnswers(ctx context.Context, c *websocket.Conn, errc chan<- error) {
	for {
		_, b, err := c.Read(ctx)
		if err != nil {
			return
		}
		if !strings.Contains(string(b), `"result":`) {
			errc <- fmt.Errorf("publish answered %s", b)
			return
		}
	}
}
