package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// A ProcessFunc answers one request document: it appends the response to dst
// and returns the result. It is what the measuring loop calls; each entry
// point (Process now; ProcessAsync, a TCP or an HTTP client later) supplies
// its own.
type ProcessFunc func(dst, req []byte) []byte

// A Target is a row ready to measure: the requests one worker cycles
// through, the response each must get, and a ProcessFunc per worker.
type Target struct {
	Name string
	// CallsPerOp is how many calls one request document makes (5 for a
	// batch of five), so that rates and costs are per call.
	CallsPerOp int
	Reqs       [][]byte
	// Want holds the expected response document of each request in Reqs.
	// Responses are compared as JSON values (a batch's responses in any
	// order).
	Want [][]byte
	// NewWorker returns the ProcessFunc of one worker goroutine. Each worker
	// gets its own, so it may hold per-worker state (a connection, a reply
	// channel).
	NewWorker func() ProcessFunc
}

// bufSize is the initial capacity of each worker's response buffer.
const bufSize = 4096

// Validate sends every request once through a fresh worker and checks the
// response. A target that fails it must not be measured: a broken setup (a
// method missing, a wrong result) would otherwise be timed as if it worked.
func (t *Target) Validate() error {
	if len(t.Reqs) == 0 || len(t.Reqs) != len(t.Want) {
		return fmt.Errorf("row %s: %d requests and %d expected responses", t.Name, len(t.Reqs), len(t.Want))
	}
	if t.CallsPerOp < 1 {
		return fmt.Errorf("row %s: %d calls per request", t.Name, t.CallsPerOp)
	}
	p := t.NewWorker()
	buf := make([]byte, 0, bufSize)
	for i, req := range t.Reqs {
		buf = p(buf[:0], req)
		if err := checkResponse(buf, t.Want[i]); err != nil {
			return fmt.Errorf("row %s: request %s: %w", t.Name, req, err)
		}
	}
	return nil
}

// checkResponse compares a response document with the expected one as JSON
// values.
func checkResponse(got, want []byte) error {
	if len(got) == 0 {
		return errors.New("no response")
	}
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		return fmt.Errorf("response %s is not JSON: %v", got, err)
	}
	if err := json.Unmarshal(want, &w); err != nil {
		return fmt.Errorf("expected response %s is not JSON: %v", want, err)
	}
	if !sameJSON(g, w) {
		return fmt.Errorf("got %s, want %s", got, want)
	}
	return nil
}

// sameJSON reports whether two decoded JSON values are equal, taking two
// arrays (batch responses) as equal when they hold the same elements in any
// order.
func sameJSON(got, want any) bool {
	ga, ok1 := got.([]any)
	wa, ok2 := want.([]any)
	if !ok1 || !ok2 {
		return reflect.DeepEqual(got, want)
	}
	if len(ga) != len(wa) {
		return false
	}
	used := make([]bool, len(ga))
next:
	for _, w := range wa {
		for i, g := range ga {
			if !used[i] && reflect.DeepEqual(g, w) {
				used[i] = true
				continue next
			}
		}
		return false
	}
	return true
}

// A Measurement is one timed run of a target at one worker count.
type Measurement struct {
	Workers int
	Ops     int64 // request documents answered
	Calls   int64 // Ops * CallsPerOp
	Elapsed time.Duration
	Mallocs uint64 // heap allocations during the run, all goroutines
}

// RPS is calls per second of wall time.
func (m Measurement) RPS() float64 {
	if m.Elapsed <= 0 {
		return 0
	}
	return float64(m.Calls) / m.Elapsed.Seconds()
}

// NsPerCall is wall time * workers / calls: the cost of a call on one core
// when every worker has a core of its own.
func (m Measurement) NsPerCall() float64 {
	if m.Calls == 0 {
		return 0
	}
	return float64(m.Elapsed.Nanoseconds()) * float64(m.Workers) / float64(m.Calls)
}

// AllocsPerCall is heap allocations per call.
func (m Measurement) AllocsPerCall() float64 {
	if m.Calls == 0 {
		return 0
	}
	return float64(m.Mallocs) / float64(m.Calls)
}

// checkEvery is how many requests a worker sends between looks at the clock.
// Reading the clock costs a fair part of a fast call; the shared stop flag,
// read after every request, bounds the run when requests are slow.
const checkEvery = 16

// warmup returns the warm-up time that precedes a run of duration d.
func warmup(d time.Duration) time.Duration {
	return min(max(d/10, time.Millisecond), 100*time.Millisecond)
}

// Measure runs t with the given number of workers for about d, after a
// short warm-up and a garbage collection, and checks each worker's last
// response. The target must have passed Validate.
func Measure(t *Target, workers int, d time.Duration) (Measurement, error) {
	return MeasureAfter(t, workers, warmup(d), d)
}

// MeasureAfter is Measure with a warm-up of warm: long enough, under
// js/wasm, for V8 to have compiled the hot functions with its optimizing
// tier.
func MeasureAfter(t *Target, workers int, warm, d time.Duration) (Measurement, error) {
	if workers < 1 {
		return Measurement{}, fmt.Errorf("row %s: %d workers", t.Name, workers)
	}
	if _, err := t.run(workers, warm); err != nil {
		return Measurement{}, err
	}
	runtime.GC()
	return t.run(workers, d)
}

// run is one bounded load loop: every worker cycles through t.Reqs with its
// own buffer until d has passed since the common start.
func (t *Target) run(workers int, d time.Duration) (Measurement, error) {
	type result struct {
		ops  int64
		last []byte // the last response
		idx  int    // the request it answered
	}
	// Everything the run needs is allocated before the first memory
	// statistics are read, so that the allocation count is the calls'.
	procs := make([]ProcessFunc, workers)
	bufs := make([][]byte, workers)
	for w := range workers {
		procs[w] = t.NewWorker()
		bufs[w] = make([]byte, 0, bufSize)
	}
	results := make([]result, workers)
	var (
		stop  atomic.Bool
		done  sync.WaitGroup
		start time.Time // written before begin is closed
	)
	begin := make(chan struct{})
	reqs := t.Reqs
	for w := range workers {
		done.Add(1)
		go func() {
			defer done.Done()
			p, buf := procs[w], bufs[w]
			<-begin
			var ops int64
			i := 0
		loop:
			for {
				for range checkEvery {
					buf = p(buf[:0], reqs[i])
					if i++; i == len(reqs) {
						i = 0
					}
					ops++
					if stop.Load() {
						break loop
					}
				}
				if time.Since(start) >= d {
					break
				}
			}
			results[w] = result{ops: ops, last: buf, idx: (i + len(reqs) - 1) % len(reqs)}
		}()
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start = time.Now()
	close(begin)
	time.Sleep(d)
	stop.Store(true)
	done.Wait()
	elapsed := time.Since(start)
	runtime.ReadMemStats(&after)

	m := Measurement{Workers: workers, Elapsed: elapsed, Mallocs: after.Mallocs - before.Mallocs}
	for w, r := range results {
		if err := checkResponse(r.last, t.Want[r.idx]); err != nil {
			return m, fmt.Errorf("row %s: worker %d of %d, last request %s: %w", t.Name, w+1, workers, reqs[r.idx], err)
		}
		m.Ops += r.ops
	}
	m.Calls = m.Ops * int64(t.CallsPerOp)
	return m, nil
}
