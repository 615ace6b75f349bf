package jsonrpc

import (
	"encoding/binary"
	"math/bits"
)

// methodTable is an immutable method table. Lookups hash the name bytes
// with a few loads and multiplies and probe an open-addressing array; a
// Server replaces its table as a whole on each registration.
type methodTable struct {
	byName map[string]*method
	slots  []*method // len is a power of two, at most half full
	shift  uint      // 64 - log2(len(slots))
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
	}
	mask := uint64(size - 1)
	for name, m := range byName {
		h := hashName([]byte(name)) >> t.shift
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
	for h := hashName(name) >> t.shift; ; h = (h + 1) & mask {
		m := t.slots[h]
		if m == nil || m.name == string(name) {
			return m
		}
	}
}

// hashName mixes the length and the first and last bytes of a name. Probing
// stays short whatever the names: the table is at most half full, and a
// probe ends at the first empty slot.
func hashName(b []byte) uint64 {
	n := len(b)
	var x, y uint64
	switch {
	case n >= 8:
		x, y = binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint64(b[n-8:])
	case n >= 4:
		x, y = uint64(binary.LittleEndian.Uint32(b)), uint64(binary.LittleEndian.Uint32(b[n-4:]))
	case n > 0:
		x = uint64(b[0])<<16 | uint64(b[n>>1])<<8 | uint64(b[n-1])
	}
	h := (x ^ bits.RotateLeft64(y, 29) ^ uint64(n)) * 0x9E3779B97F4A7C15
	return h ^ h>>32
}
