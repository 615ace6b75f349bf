package loadgen

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// RunFor starts one goroutine per load function, lets them run together for
// d, asks them to stop through the flag they are given, and waits for them.
// It returns the time from start to the last one stopping and the heap
// allocations made meanwhile, process-wide. Each function must return soon
// after the flag is set.
func RunFor(d time.Duration, loads []func(stop *atomic.Bool)) (elapsed time.Duration, mallocs uint64) {
	var (
		wg    sync.WaitGroup
		stop  atomic.Bool
		begin = make(chan struct{})
	)
	for _, load := range loads {
		wg.Go(func() {
			<-begin
			load(&stop)
		})
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	close(begin)
	time.Sleep(d) // the measured interval
	stop.Store(true)
	wg.Wait()
	elapsed = time.Since(start)
	runtime.ReadMemStats(&after)
	return elapsed, after.Mallocs - before.Mallocs
}
