package bind

import (
	"iter"
	"reflect"
	"testing"
)

// TestSeqItemAllocs: pulling and encoding one item of a sequence result
// allocates only what reflect.MakeFunc does for each call of its yield
// (the arguments' slice and a copy of each argument): 2 for an
// iter.Seq[int], 3 for an iter.Seq2[struct, error]. Before, it was 4 and
// 4: the yield's results, and the primitive's copy, were made per item.
func TestSeqItemAllocs(t *testing.T) {
	type point struct{ X, Y int }
	for _, tc := range []struct {
		name string
		max  float64
		seq  any
	}{
		{"int", 2, iter.Seq[int](func(yield func(int) bool) {
			for i := 0; yield(i + 1000); i++ {
			}
		})},
		{"struct", 3, iter.Seq2[point, error](func(yield func(point, error) bool) {
			for i := 0; yield(point{i, i}, nil); i++ {
			}
		})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			typ := reflect.TypeOf(tc.seq)
			fn := reflect.MakeFunc(reflect.FuncOf(nil, []reflect.Type{typ}, false), func([]reflect.Value) []reflect.Value {
				return []reflect.Value{reflect.ValueOf(tc.seq)}
			})
			f, err := Build(fn.Interface(), Options{})
			if err != nil {
				t.Fatal(err)
			}
			if f.seq == nil {
				t.Fatal("not a sequence result")
			}
			items := f.seq.pull(reflect.ValueOf(tc.seq))
			defer items.Stop()
			dst := make([]byte, 0, 64)
			allocs := testing.AllocsPerRun(1000, func() {
				var ok bool
				if dst, ok, err = items.Next(dst[:0]); !ok || err != nil {
					t.Fatalf("Next: %v, %v", ok, err)
				}
			})
			if allocs > tc.max {
				t.Errorf("%.1f allocations an item, want at most %.0f", allocs, tc.max)
			}
		})
	}
}
