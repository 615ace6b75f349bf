package realistic

import (
	"context"
	"testing"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/codec/fast"
)

// benchAll measures the method name with codec c: its floor, the method
// registered with Register and the typed method, through Process.
func benchAll(b *testing.B, c jsonrpc.Codec, name string) {
	var m Method
	for _, x := range Methods {
		if x.Name == name {
			m = x
		}
	}
	s, _ := NewServer(jsonrpc.UseCodec(c))
	ts, _ := NewTypedServer(jsonrpc.UseCodec(c))
	req, params := []byte(m.Request), []byte(m.Params)
	buf := make([]byte, 0, 8192)
	b.Run("floor", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			buf, _ = m.Floor(c, buf[:0], params)
		}
	})
	b.Run("register", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			buf = s.Process(context.Background(), buf[:0], req)
		}
	})
	b.Run("typed", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			buf = ts.Process(context.Background(), buf[:0], req)
		}
	})
}

// BenchmarkFast measures each method with codec/fast.
func BenchmarkFast(b *testing.B) {
	for _, m := range Methods {
		b.Run(m.Name, func(b *testing.B) { benchAll(b, fast.Codec{}, m.Name) })
	}
}

// BenchmarkJSON measures each method with the default codec.
func BenchmarkJSON(b *testing.B) {
	for _, m := range Methods {
		b.Run(m.Name, func(b *testing.B) { benchAll(b, jsonrpc.JSONCodec{}, m.Name) })
	}
}
