package jsonrpc_test

import (
	"context"
	"errors"
	"iter"
	"strings"
	"testing"

	"github.com/jsonrpc-go/jsonrpc"
)

// TestSeqResultCollected: a method that returns an iter.Seq or an
// iter.Seq2[T, error], served where no connection streams it (Process),
// answers with its items as one array; an error the sequence yields
// answers as the method's error; a sequence whose array passes
// MaxResponse is answered -32005, and the method's yield returns false.
func TestSeqResultCollected(t *testing.T) {
	stopped := make(chan bool, 1)
	srv := jsonrpc.NewServer(jsonrpc.UseLimits(jsonrpc.Limits{MaxResponse: 64}), jsonrpc.ErrorDetails())
	srv.MustRegister("count", func(n int) iter.Seq[int] {
		return func(yield func(int) bool) {
			for i := range n {
				if !yield(i) {
					return
				}
			}
		}
	})
	srv.MustRegister("words", func(ctx context.Context, s string) (iter.Seq2[string, error], error) {
		if s == "" {
			return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "empty")
		}
		return func(yield func(string, error) bool) {
			for w := range strings.FieldsSeq(s) {
				if w == "bad" {
					yield("", errors.New("a bad word"))
					return
				}
				if !yield(w, nil) {
					return
				}
			}
		}, nil
	})
	srv.MustRegister("endless", func() iter.Seq[string] {
		return func(yield func(string) bool) {
			for yield("0123456789") {
			}
			stopped <- true
		}
	})
	srv.MustRegister("typed", jsonrpc.TypedNoContext(func(n int) (iter.Seq[int], error) {
		return func(yield func(int) bool) {
			for i := range n {
				if !yield(i * i) {
					return
				}
			}
		}, nil
	}))
	for _, tc := range []struct{ req, want string }{
		{`{"jsonrpc":"2.0","method":"count","params":[3],"id":1}`, `{"jsonrpc":"2.0","result":[0,1,2],"id":1}`},
		{`{"jsonrpc":"2.0","method":"count","params":[0],"id":2}`, `{"jsonrpc":"2.0","result":[],"id":2}`},
		{`{"jsonrpc":"2.0","method":"words","params":["a b"],"id":3}`, `{"jsonrpc":"2.0","result":["a","b"],"id":3}`},
		{`{"jsonrpc":"2.0","method":"words","params":[""],"id":4}`, `{"jsonrpc":"2.0","error":{"code":-32602,"message":"empty"},"id":4}`},
		{`{"jsonrpc":"2.0","method":"words","params":["a bad b"],"id":5}`, `{"jsonrpc":"2.0","error":{"code":-32000,"message":"a bad word"},"id":5}`},
		{`{"jsonrpc":"2.0","method":"endless","id":6}`, `{"jsonrpc":"2.0","error":{"code":-32005,"message":"Limit exceeded","data":"response exceeds the limit of 64 bytes"},"id":6}`},
		{`{"jsonrpc":"2.0","method":"typed","params":[4],"id":7}`, `{"jsonrpc":"2.0","result":[0,1,4,9],"id":7}`},
	} {
		if got := string(srv.Process(context.Background(), nil, []byte(tc.req))); got != tc.want {
			t.Errorf("%s\n got %s\nwant %s", tc.req, got, tc.want)
		}
	}
	if !<-stopped {
		t.Error("the endless sequence was not stopped")
	}
}

// TestSeqResultOfWrongShape: a function whose result is a function but no
// sequence of the two shapes cannot be registered.
func TestSeqResultOfWrongShape(t *testing.T) {
	srv := jsonrpc.NewServer()
	for name, fn := range map[string]any{
		"seq2 of two items": func() iter.Seq2[int, int] { return nil },
		"a func":            func() func() { return nil },
		"of funcs":          func() iter.Seq[func()] { return nil },
	} {
		if err := srv.Register("m", fn); !errors.Is(err, jsonrpc.ErrInvalidMethod) {
			t.Errorf("%s: %v, want ErrInvalidMethod", name, err)
		}
	}
}
