// Package asyncbuf pools the buffers of jsonrpc.Server.ProcessAsync calls
// that outlive the caller's stack, and counts how the pool behaves. Package
// debugvars publishes the counters.
package asyncbuf

import (
	"sync"
	"sync/atomic"
)

// maxKept is the largest buffer the pool keeps for reuse.
const maxKept = 64 << 10

// sharedSize is the capacity of the bounded shared pool behind the per-P
// caches.
const sharedSize = 64

// A Buf holds the buffers of one ProcessAsync call that may outlive the
// caller's stack: the response, and a copy of the request for calls that
// suspend.
type Buf struct {
	Resp []byte
	Req  []byte
}

// reusable reports whether b may go back to the pool: its buffers are small
// enough, and (checked by the caller, which resets them) nothing refers to
// them any more.
func (b *Buf) reusable() bool {
	return cap(b.Resp) <= maxKept && cap(b.Req) <= maxKept
}

// pool is a per-P cache (sync.Pool) in front of a bounded shared pool
// that survives garbage collections (which empty sync.Pool). A get that finds
// both empty allocates and leaves a credit; each credit sends one later put
// to the shared pool instead of the per-P cache, so the shared pool keeps a
// reserve as large as the recent misses. In the steady state gets and puts
// stay in the per-P cache and take no shared lock.
type pool struct {
	local   sync.Pool
	shared  chan *Buf
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

var bufs = &pool{shared: make(chan *Buf, sharedSize)}

// Get returns a Buf with empty buffers.
func Get() *Buf { return bufs.get() }

// Put returns b to the pool, which keeps it unless a buffer grew past 64 KiB.
// Nothing may refer to b or its buffers afterwards.
func Put(b *Buf) { bufs.put(b) }

func (p *pool) get() *Buf {
	if s, ok := p.local.Get().(*Buf); ok {
		return s
	}
	return p.getShared()
}

func (p *pool) getShared() *Buf {
	select {
	case s := <-p.shared:
		p.fallbackHits.Add(1)
		return s
	default:
		p.misses.Add(1)
		p.credits.Add(1)
		return &Buf{Resp: make([]byte, 0, 512)}
	}
}

func (p *pool) put(s *Buf) {
	if !s.reusable() {
		p.dropped.Add(1)
		return
	}
	s.Resp, s.Req = s.Resp[:0], s.Req[:0]
	if p.credits.Load() > 0 && p.putShared(s) {
		return
	}
	p.local.Put(s)
}

// putShared pays one credit by putting s in the shared pool.
func (p *pool) putShared(s *Buf) bool {
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

// Stats are the counters of the pool, for all servers of the process.
type Stats struct {
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

// ReadStats returns the counters of the pool.
func ReadStats() Stats {
	p := bufs
	return Stats{
		FallbackHits: p.fallbackHits.Load(),
		Misses:       p.misses.Load(),
		Overflows:    p.overflows.Load(),
		Dropped:      p.dropped.Load(),
		Shared:       len(p.shared),
	}
}
