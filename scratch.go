package jsonrpc

import (
	"sync"
	"sync/atomic"
)

// maxScratch is the largest buffer a scratch keeps for reuse.
const maxScratch = 64 << 10

// sharedScratch is the capacity of the bounded shared pool behind the per-P
// caches.
const sharedScratch = 64

// A scratch holds the buffers of one ProcessAsync call that may outlive the
// caller's stack: the response, and a copy of the request for calls that
// suspend.
type scratch struct {
	resp []byte
	req  []byte
}

// reusable reports whether s may go back to the pool: its buffers are small
// enough, and (checked by the caller, which resets them) nothing refers to
// them any more.
func (s *scratch) reusable() bool {
	return cap(s.resp) <= maxScratch && cap(s.req) <= maxScratch
}

// scratchPool is a per-P cache (sync.Pool) in front of a bounded shared pool
// that survives garbage collections (which empty sync.Pool). A get that finds
// both empty allocates and leaves a credit; each credit sends one later put
// to the shared pool instead of the per-P cache, so the shared pool keeps a
// reserve as large as the recent misses. In the steady state gets and puts
// stay in the per-P cache and take no shared lock.
type scratchPool struct {
	local   sync.Pool
	shared  chan *scratch
	credits atomic.Int64 // puts owed to the shared pool; written only on misses

	// The counters below are written on the slow paths only; keep them off
	// the cache line that every get and put reads.
	_ [64]byte

	// Counters of the fallback, for deciding whether it needs striping.
	fallbackHits atomic.Uint64 // gets served by the shared pool
	misses       atomic.Uint64 // gets that found both empty and allocated
	overflows    atomic.Uint64 // owed puts that found the shared pool full
	dropped      atomic.Uint64 // puts of buffers too large to keep
}

var scratches = &scratchPool{shared: make(chan *scratch, sharedScratch)}

func (p *scratchPool) get() *scratch {
	if s, ok := p.local.Get().(*scratch); ok {
		return s
	}
	return p.getShared()
}

func (p *scratchPool) getShared() *scratch {
	select {
	case s := <-p.shared:
		p.fallbackHits.Add(1)
		return s
	default:
		p.misses.Add(1)
		p.credits.Add(1)
		return &scratch{resp: make([]byte, 0, 512)}
	}
}

func (p *scratchPool) put(s *scratch) {
	if !s.reusable() {
		p.dropped.Add(1)
		return
	}
	s.resp, s.req = s.resp[:0], s.req[:0]
	if p.credits.Load() > 0 && p.putShared(s) {
		return
	}
	p.local.Put(s)
}

// putShared pays one credit by putting s in the shared pool.
func (p *scratchPool) putShared(s *scratch) bool {
	if p.credits.Add(-1) < 0 {
		p.credits.Add(1) // another put took the last credit
		return false
	}
	select {
	case p.shared <- s:
		return true
	default:
		p.overflows.Add(1)
		return false
	}
}

// ScratchStats are the counters of the buffer pool behind ProcessAsync, for
// all servers of the process.
type ScratchStats struct {
	// FallbackHits counts buffers taken from the bounded shared pool because
	// the per-P cache was empty.
	FallbackHits uint64
	// Misses counts buffers allocated because both were empty.
	Misses uint64
	// Overflows counts buffers that found the shared pool full when it was
	// being refilled; they went to the per-P cache.
	Overflows uint64
	// Dropped counts buffers not kept because they grew past 64 KiB.
	Dropped uint64
	// Shared is the number of buffers in the shared pool now.
	Shared int
}

// ReadScratchStats returns the counters of the buffer pool behind
// ProcessAsync. Package debugvars publishes them through expvar.
func ReadScratchStats() ScratchStats {
	p := scratches
	return ScratchStats{
		FallbackHits: p.fallbackHits.Load(),
		Misses:       p.misses.Load(),
		Overflows:    p.overflows.Load(),
		Dropped:      p.dropped.Load(),
		Shared:       len(p.shared),
	}
}
