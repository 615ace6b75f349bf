package peer_test

import (
	"context"
	"io"
	"sync"
	"testing"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/peer"
	"github.com/jsonrpc-go/jsonrpc/protocol/mcp"
	"github.com/jsonrpc-go/jsonrpc/transport"
)

// inHand is a transport whose input is all in hand: it reads its
// requests, one by one, then io.EOF, and records at each Read how many
// answers were written before it.
type inHand struct {
	msgs    []string
	mu      sync.Mutex
	written []string
	seen    []int // len(written) at each Read after the first
}

func (t *inHand) Read() ([]byte, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := len(t.seen)
	t.seen = append(t.seen, len(t.written))
	if n >= len(t.msgs) {
		return nil, io.EOF
	}
	return []byte(t.msgs[n]), nil
}

func (t *inHand) Write(_ context.Context, msg []byte) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.written = append(t.written, string(msg))
	return nil
}

func (t *inHand) Flush() error { return nil }
func (t *inHand) Close() error { return nil }

// TestInputInHand: a two-way Conn (its Protocol has cancel and progress
// notifications) over a transport whose input is all in hand writes each
// inline answer itself, before it reads again, as a one-way Conn does
// (over another transport it would leave them to a writer goroutine, and
// read on meanwhile).
func TestInputInHand(t *testing.T) {
	srv := jsonrpc.NewServer()
	srv.MustRegister("add", func(a, b int) int { return a + b })
	tr := &inHand{msgs: []string{
		`{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`,
		`{"jsonrpc":"2.0","method":"add","params":[3,4],"id":2}`,
	}}
	c := peer.New(context.Background(), transport.Carrier{Conn: tr, Traits: transport.Traits{InputInHand: true}}, peer.Options{Server: srv, Protocol: mcp.Protocol()})
	if !peer.TwoWay(c) {
		t.Fatal("the Conn is not two-way under mcp.Protocol()")
	}
	c.Run(nil)
	tr.mu.Lock()
	defer tr.mu.Unlock()
	want := []string{`{"jsonrpc":"2.0","result":3,"id":1}`, `{"jsonrpc":"2.0","result":7,"id":2}`}
	if len(tr.written) != 2 || tr.written[0] != want[0] || tr.written[1] != want[1] {
		t.Fatalf("written %q, want %q", tr.written, want)
	}
	// Read 1 saw nothing written, read 2 the first answer, read 3 both.
	if got := tr.seen; len(got) != 3 || got[0] != 0 || got[1] != 1 || got[2] != 2 {
		t.Errorf("answers written before each Read: %v, want [0 1 2]", got)
	}
}
