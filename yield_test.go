package jsonrpc_test

import (
	"context"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/jsonrpc-go/jsonrpc"
)

// TestLargeRequestYields: a large request shares its processor while it
// is scanned and decoded. On one processor, a goroutine made runnable
// just before Process runs before the method is called, which it would
// not until the scheduler preempted Process 10 ms later without the
// yields in the loops over long arrays.
func TestLargeRequestYields(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	for _, tt := range []struct {
		name     string
		register func(srv *jsonrpc.Server, called func())
	}{
		{"variadic", func(srv *jsonrpc.Server, called func()) {
			srv.MustRegister("n", func(xs ...int) int { called(); return len(xs) })
		}},
		{"slice", func(srv *jsonrpc.Server, called func()) {
			srv.MustRegister("n", func(xs []int) int { called(); return len(xs) })
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var ran atomic.Bool
			var ranFirst bool
			srv := jsonrpc.NewServer()
			tt.register(srv, func() { ranFirst = ran.Load() })
			params := "[" + strings.Repeat("1,", 16<<10) + "1]"
			if tt.name == "slice" {
				params = "[" + params + "]"
			}
			req := []byte(`{"jsonrpc":"2.0","method":"n","params":` + params + `,"id":1}`)
			go ran.Store(true)
			resp := srv.Process(context.Background(), nil, req)
			if want := `"result":16385`; !strings.Contains(string(resp), want) {
				t.Fatalf("answer %.100s, want %s", resp, want)
			}
			if !ranFirst {
				t.Error("the other goroutine had not run when the method was called")
			}
		})
	}
}
