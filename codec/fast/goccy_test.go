//go:build go1.26 && !go1.28 && !jsonrpc_nogoccy

package fast

import (
	"math"
	"testing"
)

type record struct {
	Name string         `json:"name"`
	Tags []string       `json:"tags"`
	F32  float32        `json:"f32"`
	Sub  *record        `json:"sub"`
	M    map[string]any `json:"m"`
}

// go-json decodes and encodes typical values itself; encoding/json steps in
// only where go-json fails, as for the largest float32, which go-json
// refuses.
func TestFallback(t *testing.T) {
	var c Codec
	before := fallbacks.Load()
	var r record
	if err := c.Unmarshal([]byte(`{"name":"a","tags":["x"],"f32":1.5,"sub":{"name":"b"},"m":{"k":[1,true]}}`), &r, false); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Append(nil, r); err != nil {
		t.Fatal(err)
	}
	if n := fallbacks.Load() - before; n != 0 {
		t.Fatalf("%d fallbacks for a typical record, want 0", n)
	}
	var big record
	if err := c.Unmarshal([]byte(`{"name":"z","f32":3.4028235e+38}`), &big, false); err != nil {
		t.Fatal(err)
	}
	if big.F32 != math.MaxFloat32 || big.Name != "z" {
		t.Fatalf("got %+v, want the largest float32", big)
	}
	if n := fallbacks.Load() - before; n != 1 {
		t.Fatalf("%d fallbacks for the largest float32, want 1", n)
	}
}
