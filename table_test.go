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
