package codecbench

import (
	stdjson "encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/bytedance/sonic"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/codec/fast"
	"github.com/jsonrpc-go/jsonrpc/codec/jsonv2"
)

// The workloads of the choice between the libraries: a typical record, a
// list of 20 of them, and a free-form map.

type benchAddress struct {
	Street string `json:"street"`
	City   string `json:"city"`
	Zip    string `json:"zip"`
}

type benchUser struct {
	ID      int64        `json:"id"`
	Name    string       `json:"name"`
	Email   string       `json:"email"`
	Active  bool         `json:"active"`
	Score   float64      `json:"score"`
	Tags    []string     `json:"tags"`
	Address benchAddress `json:"address"`
	Created time.Time    `json:"created"`
}

func benchUsers(n int) []benchUser {
	us := make([]benchUser, n)
	for i := range us {
		us[i] = benchUser{
			ID: int64(1000 + i), Name: fmt.Sprintf("User %d", i), Email: fmt.Sprintf("user%d@example.com", i),
			Active: i%2 == 0, Score: 12.5 * float64(i), Tags: []string{"admin", "ops", "eu-west"},
			Address: benchAddress{"12 Main Street", "Springfield", "12345"},
			Created: time.Date(2024, 5, 6, 7, 8, 9, 123456789, time.UTC),
		}
	}
	return us
}

func benchMap() map[string]any {
	return map[string]any{
		"method": "eth_getBlockByNumber", "number": 19000000.0, "hash": "0x8e38b4dbf6b11fcc3b9dee84fb7986e29ca0a02cecd8977c161ff7333329681e",
		"transactions": []any{"0x1", "0x2", "0x3", "0x4"}, "gasUsed": 12345678.0, "miner": "0x95222290dd7278aa3ddd389cc1e1d165cc4bafe5",
		"uncles": []any{}, "extra": map[string]any{"a": 1.0, "b": "two", "c": []any{true, false, nil}},
	}
}

type lib struct {
	name      string
	marshal   func(any) ([]byte, error)
	unmarshal func([]byte, any) error
}

func codec(name string, c jsonrpc.Codec) lib {
	return lib{name,
		func(v any) ([]byte, error) { return c.Append(nil, v) },
		func(b []byte, v any) error { return c.Unmarshal(b, v, false) }}
}

// sonic configured as the jsonrpc.Codec contract asks.
var sonicStrict = sonic.Config{SortMapKeys: true, ValidateString: true, CompactMarshaler: true, CopyString: true, DisallowUnknownFields: true}.Froze()

var libs = []lib{
	codec("encoding/json", jsonrpc.JSONCodec{}),
	codec("jsonv2", jsonv2.Codec{}),
	codec("fast(go-json)", fast.Codec{}),
	{"sonic", sonicStrict.Marshal, sonicStrict.Unmarshal},
}

func BenchmarkCompare(b *testing.B) {
	user := benchUsers(1)[0]
	list := benchUsers(20)
	m := benchMap()
	type work struct {
		name string
		v    any
		new  func() any
	}
	works := []work{
		{"user", user, func() any { return new(benchUser) }},
		{"list20", list, func() any { return new([]benchUser) }},
		{"map", m, func() any { return new(map[string]any) }},
	}
	for _, w := range works {
		data, _ := stdjson.Marshal(w.v)
		for _, l := range libs {
			b.Run(w.name+"/marshal/"+l.name, func(b *testing.B) {
				b.SetBytes(int64(len(data)))
				b.ReportAllocs()
				for b.Loop() {
					if _, err := l.marshal(w.v); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run(w.name+"/unmarshal/"+l.name, func(b *testing.B) {
				b.SetBytes(int64(len(data)))
				b.ReportAllocs()
				for b.Loop() {
					if err := l.unmarshal(data, w.new()); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
