package jsonrpc_test

import (
	"context"
	"testing"

	"github.com/jsonrpc-go/jsonrpc"
)

// TestOneEncodingOfAString: a string is written the same way whatever
// carries it (a struct, a map, a slice, an any, a string result, an
// error's data), and whether the server's own encoder or encoding/json
// writes it: HTML characters as they are, U+2028 and U+2029 escaped.
func TestOneEncodingOfAString(t *testing.T) {
	const s = "<b>&\u2028\u2029"
	const want = `"<b>&\u2028\u2029"`
	type wrap struct {
		S string `json:"s"`
	}
	srv := jsonrpc.NewServer()
	srv.MustRegister("struct", func() wrap { return wrap{s} })
	srv.MustRegister("pointer", func() *wrap { return &wrap{s} })
	srv.MustRegister("map", func() map[string]string { return map[string]string{"s": s} })
	srv.MustRegister("slice", func() []string { return []string{s} })
	srv.MustRegister("any", func() any { return s })
	srv.MustRegister("string", func() string { return s })
	srv.MustRegister("nested", func() map[string][]any { return map[string][]any{"s": {wrap{s}}} })
	srv.MustRegister("error", func() error { return jsonrpc.NewError(1, s).WithData(map[string]string{"s": s}) })
	for name, answer := range map[string]string{
		"struct":  `{"jsonrpc":"2.0","result":{"s":` + want + `},"id":1}`,
		"pointer": `{"jsonrpc":"2.0","result":{"s":` + want + `},"id":1}`,
		"map":     `{"jsonrpc":"2.0","result":{"s":` + want + `},"id":1}`,
		"slice":   `{"jsonrpc":"2.0","result":[` + want + `],"id":1}`,
		"any":     `{"jsonrpc":"2.0","result":` + want + `,"id":1}`,
		"string":  `{"jsonrpc":"2.0","result":` + want + `,"id":1}`,
		"nested":  `{"jsonrpc":"2.0","result":{"s":[{"s":` + want + `}]},"id":1}`,
		"error":   `{"jsonrpc":"2.0","error":{"code":1,"message":` + want + `,"data":{"s":` + want + `}},"id":1}`,
	} {
		got := string(srv.Process(context.Background(), nil, []byte(`{"jsonrpc":"2.0","method":"`+name+`","id":1}`)))
		if got != answer {
			t.Errorf("%s:\n got %s\nwant %s", name, got, answer)
		}
	}
}
