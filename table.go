package jsonrpc

import (
	"hash/maphash"
	"math/bits"
)

// methodTable is an immutable method table. Lookups hash the name bytes
// in place and probe an open-addressing array; a Server replaces its table
// as a whole on each registration.
type methodTable struct {
	byName map[string]*method
	slots  []*method // len is a power of two, at most half full
	shift  uint      // 64 - log2(len(slots))
	seed   maphash.Seed
}

func newMethodTable(byName map[string]*method) *methodTable {
	size := 8
	for size < 2*len(byName) {
		size *= 2
	}
	t := &methodTable{
		byName: byName,
		slots:  make([]*method, size),
		shift:  uint(64 - bits.TrailingZeros(uint(size))),
		seed:   maphash.MakeSeed(),
	}
	mask := uint64(size - 1)
	for name, m := range byName {
		h := t.hash([]byte(name)) >> t.shift
		for t.slots[h] != nil {
			h = (h + 1) & mask
		}
		t.slots[h] = m
	}
	return t
}

// find returns the method named name, or nil.
func (t *methodTable) find(name []byte) *method {
	mask := uint64(len(t.slots) - 1)
	for h := t.hash(name) >> t.shift; ; h = (h + 1) & mask {
		m := t.slots[h]
		if m == nil || m.name == string(name) {
			return m
		}
	}
}

// hash hashes every byte of a name with the runtime's hash (AES-based where
// the CPU has it), seeded per table, so that names alike in their length and
// ends do not cluster and a client cannot choose names that collide.
func (t *methodTable) hash(name []byte) uint64 { return maphash.Bytes(t.seed, name) }
