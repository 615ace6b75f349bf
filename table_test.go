package jsonrpc

import (
	"fmt"
	"testing"
)

func TestMethodTable(t *testing.T) {
	for _, n := range []int{0, 1, 5, 8, 9, 100, 1000} {
		byName := map[string]*method{}
		for i := range n {
			name := fmt.Sprintf("m%d", i)
			if i%3 == 0 {
				name = fmt.Sprintf("service.longer_method_name_%d", i)
			}
			byName[name] = &method{name: name}
		}
		tab := newMethodTable(byName)
		if len(tab.slots) < 2*n {
			t.Errorf("%d methods in %d slots", n, len(tab.slots))
		}
		for name, m := range byName {
			if got := tab.find([]byte(name)); got != m {
				t.Errorf("find(%q) = %v", name, got)
			}
		}
		for _, name := range []string{"", "x", "m", "m-1", "service.longer_method_name_", "M0", "rpc.discover"} {
			if got := tab.find([]byte(name)); got != nil {
				t.Errorf("find(%q) = %v, want nil", name, got.name)
			}
		}
	}
}

// probes counts the slots find looks at for name.
func (t *methodTable) probes(name []byte) int {
	mask := uint64(len(t.slots) - 1)
	n := 1
	for h := t.hash(name) >> t.shift; t.slots[h] != nil && t.slots[h].name != string(name); h = (h + 1) & mask {
		n++
	}
	return n
}

// Names alike in their length, first and last bytes do not cluster: a
// lookup, found or not, looks at a few slots, not at a run of them.
func TestMethodTableSpreadsAlikeNames(t *testing.T) {
	const n = 4000
	byName := map[string]*method{}
	for i := range n {
		name := fmt.Sprintf("service.method%05d.endpoint", i)
		byName[name] = &method{name: name}
	}
	tab := newMethodTable(byName)
	total, worst := 0, 0
	for i := range 2 * n {
		name := fmt.Sprintf("service.method%05d.endpoint", i) // half of them unknown
		p := tab.probes([]byte(name))
		total += p
		worst = max(worst, p)
	}
	// At most half full, open addressing with linear probing expects about
	// 2.5 probes for a miss; clustering names made thousands.
	if mean := float64(total) / (2 * n); mean > 4 || worst > 64 {
		t.Errorf("probes per lookup: mean %.1f, worst %d; want a mean under 4 and none over 64", mean, worst)
	}
}
