package realistic

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/codec/fast"
)

// TestSizes keeps the workload at the sizes its rows are described by.
func TestSizes(t *testing.T) {
	for _, c := range []struct {
		name     string
		got      int
		min, max int
	}{
		{"createUser request", len(Methods[0].Request), 350, 420},
		{"search result", len(Methods[1].Result), 2200, 2600},
		{"getBlock result", len(Methods[2].Result), 1900, 2300},
		{"echoRaw params", len(Methods[3].Params), 950, 1100},
	} {
		if c.got < c.min || c.got > c.max {
			t.Errorf("%s: %d bytes, want %d to %d", c.name, c.got, c.min, c.max)
		}
	}
}

// TestServer checks that the server answers each method as its floor
// does, with either codec.
func TestServer(t *testing.T) {
	for _, c := range []jsonrpc.Codec{jsonrpc.JSONCodec{}, fast.Codec{}} {
		s, err := NewServer(jsonrpc.UseCodec(c))
		if err != nil {
			t.Fatal(err)
		}
		ts, err := NewTypedServer(jsonrpc.UseCodec(c))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range Methods {
			got := s.Process(context.Background(), nil, []byte(m.Request))
			if !sameJSON(t, got, m.Response) {
				t.Errorf("%T: %s: got %s, want %s", c, m.Name, got, m.Response)
			}
			got = ts.Process(context.Background(), nil, []byte(m.Request))
			if !sameJSON(t, got, m.Response) {
				t.Errorf("%T: typed %s: got %s, want %s", c, m.Name, got, m.Response)
			}
			floor, err := m.Floor(c, nil, []byte(m.Params))
			if err != nil {
				t.Fatalf("%T: %s floor: %v", c, m.Name, err)
			}
			if !sameJSON(t, floor, m.Result) {
				t.Errorf("%T: %s floor: got %s, want %s", c, m.Name, floor, m.Result)
			}
		}
	}
}

func sameJSON(t *testing.T, got []byte, want string) bool {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("%s: %v", got, err)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("%s: %v", want, err)
	}
	gb, _ := json.Marshal(g)
	wb, _ := json.Marshal(w)
	return string(gb) == string(wb)
}
