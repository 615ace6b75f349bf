// Command soak runs the attacks of a hostile client against cmd/jsonrpcd,
// one after another, while healthy clients call it beside them, and checks
// that every bound holds: the server's resident memory stays under -max-rss,
// its goroutines under -max-goroutines, the healthy clients'
// 99th-percentile latency under -max-p99, with no failed call, and every
// healthy client served: none waits past -max-wait for a call while the
// others are served.
//
// Run it from the repository root:
//
//	go run ./bench/soak              # every attack, 3 s each
//	go run ./bench/soak -only idle-tcp,stalled-bodies -d 10s
//	go run ./bench/soak -list
//
// It builds cmd/jsonrpcd (or runs -jsonrpcd), starts a fresh one for each
// attack on loopback ports of its choosing, and prints one row per attack:
// what the attacker managed, the server's peak RSS, open files and
// goroutines (scraped from its -metrics), what it logged (bounded by
// -max-log, per second of the attack), the healthy calls, their p50, p99
// and slowest, and the verdict; each healthy client's calls go to standard
// error. It exits 1 when a bound was broken, 2 when it could not run.
//
// -jsonrpcd may be a jsonrpcd built from an older commit, to measure the
// same attacks before a fix: the soak reads its flags from its -h, serves
// it without -fasthttp when it has none, and skips the attacks that need a
// flag it lacks (progress-token needs -protocol, get-streams and
// idle-sessions -sessions, the attacks on result streams -items). The push, subscription, progress and stream
// attacks and the callback client call the methods of
// demo.RegisterTwoWay, which such a jsonrpcd must be built with.
//
// The attacker connects from 127.0.0.1, and the healthy clients from
// 127.0.0.2, another client (Linux routes all of 127.0.0.0/8 to loopback),
// so that the server's shares per client (MaxConnsPerClient,
// MaxRunningPerClient) tell them apart. The healthy clients, a call every
// 5 ms each, are: over TCP, one on one connection and one that opens a
// connection for each call; one over each HTTP host, net/http's and
// fasthttp's; and, beside the attacks that hold Blocking calls (or every
// attack with -callbacks), one over TCP whose calls of callback, a
// Blocking method, call it back before they are answered; and, beside the
// attacks on Streamable HTTP, one that calls add at /mcp. A healthy
// client is locked out when one of its calls waits past -max-wait (1 s)
// while the others complete calls; when all of them wait at once, the
// machine or the whole server stalled, which the p99 bound is for. They
// run in a process of their own, and each attack in another, at the
// lowest CPU priority: the program starts itself for each, with hidden
// flags.
//
// The attacks, each a finding of the bounding work (issue 25 for the
// last ones): idle and stalled connections over each transport, floods
// of Blocking calls, large answers, readers that do not read, large
// params, alike method names, large and inflating bodies over fasthttp,
// lines that are not JSON; subscribers of the feed that never read while
// values of 64 KiB are published (push-unread), 100,000 subscriptions
// asked for on one connection (many-subs), progress asked for with a
// token of 1 MiB (progress-token), lines of 33 MiB that must each be
// answered -32005 and skipped (huge-lines: a line that ends its
// connection instead breaks a bound), and connections from one client
// until the server refuses one (conns-per-client), while the healthy
// clients, from another, must still connect. And, on Streamable HTTP
// (/mcp), the bounds of its streams and sessions: 1,000 sessions each holding its GET stream open, every one of which
// must get a value then published to the feed (get-streams: a stream
// that does not breaks a bound), 1,000 POSTs of callback whose streams
// carry the server's call back, never answered, so that 1,000 methods
// wait with their streams open (call-streams), and 10,000 idle sessions
// (idle-sessions, under -max-sessions 10000). Those three open all their
// streams or sessions, for up to 30 s even past -d, so that the server
// holds all of them at once however loaded the machine, and hold them
// for at least a second. And the attacks of issue 34 on result streams
// (jsonrpcd -items): 65,536 sequences opened on 256 connections and never
// pulled (unpulled-seqs), sequences of 1 MiB items and LSP partial
// results for connections that read nothing (seq-unread,
// partial-unread); on what Streamable HTTP keeps: GET streams that must
// end at their lifetime while busy and once idle (get-stream-times,
// jsonrpcd -stream-idle 1s -stream-lifetime 2s), events of 256 KiB kept
// for 128 GET streams (kept-bytes); and the sessions of jsonrpcd
// -session-store calling on while their redis-server is stopped with
// SIGSTOP, each call answered within 2 s (store-asleep; skipped without
// redis-server, unless JSONRPC_REDIS=required). -list names them all.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"text/tabwriter"
	"time"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("soak", flag.ContinueOnError)
	fs.SetOutput(stderr)
	d := fs.Duration("d", 3*time.Second, "how long each attack runs")
	only := fs.String("only", "", "comma-separated `names` of the attacks to run (default all)")
	list := fs.Bool("list", false, "list the attacks and exit")
	bin := fs.String("jsonrpcd", "", "the jsonrpcd `binary` to attack (default: build cmd/jsonrpcd)")
	callbacks := fs.Bool("callbacks", false, "run the healthy client whose Blocking calls call back beside every attack, not only beside the Blocking floods")
	var b bounds
	fs.Int64Var(&b.rssMB, "max-rss", 256, "bound on the server's resident memory, in `MB`")
	fs.DurationVar(&b.p99, "max-p99", 50*time.Millisecond, "bound on the healthy clients' 99th-percentile latency")
	fs.DurationVar(&b.wait, "max-wait", time.Second, "bound on a healthy call while the other healthy clients are served: past it, that client is locked out")
	fs.IntVar(&b.goroutines, "max-goroutines", 16384, "bound on the server's goroutines")
	fs.Int64Var(&b.logKBps, "max-log", 64, "bound on what the server logs during an attack, in `KB` per second of the attack")
	role := fs.String(childFlag, "", "")
	var childAddr addrs
	fs.StringVar(&childAddr.tcp, childTCPFlag, "", "")
	fs.StringVar(&childAddr.http, childHTTPFlag, "", "")
	fs.StringVar(&childAddr.fasthttp, childFastHTTPFlag, "", "")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *role != "" {
		return runChild(*role, childAddr, *d, os.Stdin, stdout)
	}
	if *list {
		for _, a := range attacks {
			fmt.Fprintf(stdout, "%-17s %s\n", a.name, a.what)
		}
		return 0
	}
	chosen, err := choose(*only)
	if err != nil {
		fmt.Fprintln(stderr, "soak:", err)
		return 2
	}
	if *bin == "" {
		dir, err := os.MkdirTemp("", "soak")
		if err != nil {
			fmt.Fprintln(stderr, "soak:", err)
			return 2
		}
		defer os.RemoveAll(dir)
		if *bin, err = buildServer(context.Background(), dir); err != nil {
			fmt.Fprintln(stderr, "soak:", err)
			return 2
		}
	}
	flags, err := serverFlags(*bin)
	if err != nil {
		fmt.Fprintln(stderr, "soak:", err)
		return 2
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "attack\tattacker\tpeak RSS\topen files\tgoroutines\tlog\thealthy calls\tp50\tp99\tslowest\tverdict")
	broken, skipped := 0, 0
	for _, a := range chosen {
		if a.needs != "" && !flags[a.needs] {
			fmt.Fprintf(tw, "%s\t\t\t\t\t\t\t\t\t\tskipped: %s has no -%s\n", a.name, *bin, a.needs)
			skipped++
			continue
		}
		args := a.args
		var env *environment
		if a.setup != nil {
			var err error
			if env, err = a.setup(); errors.Is(err, errSkip) {
				fmt.Fprintf(tw, "%s\t\t\t\t\t\t\t\t\t\t%v\n", a.name, err)
				skipped++
				continue
			} else if err != nil {
				fmt.Fprintln(stderr, "soak:", err)
				return 2
			}
			args = append(slices.Clip(args), env.args...)
		}
		// A server of its own for each attack, so that what one leaves
		// behind is not counted against the next.
		srv, err := startServer(*bin, flags["fasthttp"], args...)
		if err != nil {
			env.close()
			fmt.Fprintln(stderr, "soak:", err)
			return 2
		}
		fmt.Fprintf(stderr, "soak: %s: %s, for %v\n", a.name, a.what, *d)
		row, ok := runAttack(srv, a, *d, b, healthySet{callback: a.callback || *callbacks, streamable: a.streamable}, env, stderr)
		srv.stop()
		env.close()
		fmt.Fprintln(tw, row)
		if !ok {
			broken++
		}
	}
	tw.Flush()
	if skipped > 0 {
		fmt.Fprintf(stdout, "soak: %d of %d attacks skipped\n", skipped, len(chosen))
	}
	if broken > 0 {
		fmt.Fprintf(stdout, "soak: %d of %d attacks broke a bound (%s)\n", broken, len(chosen)-skipped, b)
		return 1
	}
	fmt.Fprintf(stdout, "soak: every bound held under %d attacks\n", len(chosen)-skipped)
	return 0
}

// logSize is the bytes of a log, for the report.
func logSize(n int64) string {
	if n < 1e6 {
		return fmt.Sprintf("%.1f KB", float64(n)/1e3)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/1e6)
}

// choose returns the attacks named in the comma-separated list, or all.
func choose(only string) ([]attack, error) {
	if only == "" {
		return attacks, nil
	}
	var out []attack
	for name := range strings.SplitSeq(only, ",") {
		i := slices.IndexFunc(attacks, func(a attack) bool { return a.name == name })
		if i < 0 {
			return nil, fmt.Errorf("no attack %q (see -list)", name)
		}
		out = append(out, attacks[i])
	}
	return out, nil
}

// minServed is how many calls the other healthy clients must complete
// while one waits past -max-wait for that one to be locked out: at their
// pace of 5 ms, they make that many in a tenth of a second.
const minServed = 20

// bounds are what the server must hold under each attack.
type bounds struct {
	rssMB      int64         // peak resident memory
	goroutines int           // peak goroutines
	p99        time.Duration // the healthy calls' 99th percentile
	wait       time.Duration // a healthy call while the others are served
	logKBps    int64         // the server's log, in KB per second of attack
}

func (b bounds) String() string {
	return fmt.Sprintf("RSS under %d MB, goroutines under %d, healthy p99 under %v, no healthy client waiting %v while the others are served, log under %d KB/s, no failed call", b.rssMB, b.goroutines, b.p99, b.wait, b.logKBps)
}

// runAttack runs a for d beside fresh healthy clients (with those of
// set), writes each healthy client's calls to stderr, and returns its row
// of the report and whether every bound held.
func runAttack(srv *server, a attack, d time.Duration, b bounds, set healthySet, env *environment, stderr io.Writer) (string, bool) {
	clients, err := startHealthy(srv.addr, set)
	if err != nil {
		return fmt.Sprintf("%s\t\t\t\t\t\t\t\t\t\tFAIL: the healthy clients could not connect before the attack: %v", a.name, err), false
	}
	ctx, cancel := context.WithCancel(context.Background())
	var m sampler
	var wg sync.WaitGroup
	wg.Go(func() { m.run(ctx, srv, 20*time.Millisecond) })
	if env != nil && env.during != nil {
		wg.Go(func() { env.during(ctx) })
	}
	var got, broke string
	logged := srv.out.Len()
	attacker, err := startChild("attack:"+a.name, srv.addr, d)
	if err == nil {
		var rep childReport
		rep, err = attacker.report()
		got, broke = rep.Got, rep.Broke
		if err == nil && rep.Err != "" {
			err = errors.New(rep.Err)
		}
	}
	cancel()
	wg.Wait()
	logged = srv.out.Len() - logged

	rss, fds, gs := m.peaks()
	rep, cerr := clients.report()
	lat, errs := rep.latencies()
	for _, cl := range rep.Clients {
		fmt.Fprintf(stderr, "soak: %s: healthy %s: %d calls, p99 %v, slowest %v, %d failed\n", a.name, cl.Name, len(cl.Lat),
			percentile(cl.Lat, 99).Round(10*time.Microsecond), percentile(cl.Lat, 100).Round(10*time.Microsecond), len(cl.Errors))
	}
	if cerr != nil {
		errs = append(errs, cerr)
	}
	p50, p99, slowest := percentile(lat, 50), percentile(lat, 99), percentile(lat, 100)
	var problems []string
	if err != nil {
		problems = append(problems, "the attack could not run: "+err.Error())
	}
	if broke != "" {
		problems = append(problems, broke)
	}
	if rss > b.rssMB<<20 {
		problems = append(problems, fmt.Sprintf("RSS %d MB over %d MB", rss>>20, b.rssMB))
	}
	if gs < 0 {
		problems = append(problems, "no scrape of the server's goroutines succeeded")
	} else if gs > b.goroutines {
		problems = append(problems, fmt.Sprintf("%d goroutines, over %d", gs, b.goroutines))
	}
	if maxLog := b.logKBps * 1000 * int64(d) / int64(time.Second); logged > maxLog {
		problems = append(problems, fmt.Sprintf("%d KB logged, over %d KB", logged/1000, maxLog/1000))
	}
	if p99 > b.p99 {
		problems = append(problems, fmt.Sprintf("p99 %v over %v", p99.Round(time.Millisecond), b.p99))
	}
	if out := rep.lockedOut(b.wait, minServed); out != "" {
		problems = append(problems, fmt.Sprintf("%s, over %v", out, b.wait))
	} else if slowest > b.wait {
		fmt.Fprintf(stderr, "soak: %s: every healthy client waited at once, %v at the longest: the machine or the whole server stalled (not a bound of its own; the p99's)\n", a.name, slowest.Round(time.Millisecond))
	}
	if len(errs) > 0 {
		problems = append(problems, fmt.Sprintf("%d healthy calls failed, first: %v", len(errs), errs[0]))
	}
	if len(lat) == 0 {
		problems = append(problems, "no healthy call completed")
	}
	for _, cl := range rep.Clients {
		if len(cl.Lat) == 0 && len(lat) > 0 {
			problems = append(problems, fmt.Sprintf("the healthy client %s completed no call", cl.Name))
		}
	}
	verdict := "ok"
	if len(problems) > 0 {
		verdict = "FAIL: " + strings.Join(problems, "; ")
	}
	row := fmt.Sprintf("%s\t%s\t%d MB\t%d\t%d\t%s\t%d\t%v\t%v\t%v\t%s", a.name, got, rss>>20, fds, gs, logSize(logged), len(lat),
		p50.Round(10*time.Microsecond), p99.Round(10*time.Microsecond), slowest.Round(10*time.Microsecond), verdict)
	return row, len(problems) == 0
}
