package demo_test

import (
	"context"
	"strings"
	"testing"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/internal/demo"
)

// TestItems: items yields n items of size bytes, and refuses params past
// its bounds.
func TestItems(t *testing.T) {
	srv := jsonrpc.NewServer()
	if err := demo.RegisterItems(srv); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ req, want string }{
		{`{"jsonrpc":"2.0","method":"items","params":{"n":3,"size":4},"id":1}`, `{"jsonrpc":"2.0","result":["xx","xx","xx"],"id":1}`},
		{`{"jsonrpc":"2.0","method":"items","params":{"n":1,"size":4,"partialResultToken":"p"},"id":2}`, `{"jsonrpc":"2.0","result":["xx"],"id":2}`},
		{`{"jsonrpc":"2.0","method":"items","params":{"n":2000000,"size":4},"id":3}`, `"code":-32602`},
		{`{"jsonrpc":"2.0","method":"items","params":{"n":1,"size":2000000},"id":4}`, `"code":-32602`},
	} {
		if got := string(srv.Process(context.Background(), nil, []byte(c.req))); !strings.Contains(got, c.want) {
			t.Errorf("%s\n got %s\nwant %s", c.req, got, c.want)
		}
	}
}
