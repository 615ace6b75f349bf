package testutil

import "runtime"

// LiveHeap returns the bytes of heap in use once two collections have run:
// the second empties the sync.Pools, whose contents nobody holds, so that
// what a test measures between two calls is what its objects keep.
func LiveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
