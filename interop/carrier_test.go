package interop

import (
	"context"
	"encoding/json"
	"errors"
	"github.com/jsonrpc-go/jsonrpc/protocol/lsp"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/jsonrpc-go/jsonrpc"
	"github.com/jsonrpc-go/jsonrpc/peer"
	"github.com/jsonrpc-go/jsonrpc/transport"
)

// pipeEnd is a carrier written outside the library, with nothing but its
// exported API: one end of a pair that hands whole messages over Go
// channels, recording what it sends. It declares no Traits: the
// connection asks nothing of it beyond Read, Write, Flush and Close.
type pipeEnd struct {
	in, out chan []byte
	closed  chan struct{}
	once    *sync.Once

	mu   sync.Mutex
	sent []string
}

func pipePair() (*pipeEnd, *pipeEnd) {
	ab, ba := make(chan []byte, 64), make(chan []byte, 64)
	closed, once := make(chan struct{}), new(sync.Once)
	return &pipeEnd{in: ba, out: ab, closed: closed, once: once},
		&pipeEnd{in: ab, out: ba, closed: closed, once: once}
}

func (p *pipeEnd) Read() ([]byte, error) {
	select {
	case m := <-p.in:
		return m, nil
	case <-p.closed:
		return nil, io.EOF
	}
}

func (p *pipeEnd) Write(ctx context.Context, msg []byte) error {
	m := append([]byte(nil), msg...)
	p.mu.Lock()
	p.sent = append(p.sent, string(m))
	p.mu.Unlock()
	select {
	case p.out <- m:
		return nil
	case <-p.closed:
		return io.ErrClosedPipe
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (p *pipeEnd) Flush() error { return nil }

func (p *pipeEnd) Close() error {
	p.once.Do(func() { close(p.closed) })
	return nil
}

func (p *pipeEnd) sentMessages() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.sent...)
}

var _ transport.Conn = (*pipeEnd)(nil)

// TestCarrierOfOurOwn: a carrier written in another module carries a
// two-way LSP session between two peer.Conns: the editor calls the server,
// the server calls the editor back from inside that call, and a call the
// editor gives up on is cancelled with $/cancelRequest, which the server's
// method sees as its context's end.
func TestCarrierOfOurOwn(t *testing.T) {
	editorEnd, serverEnd := pipePair()
	defer editorEnd.Close()

	started, cancelled := make(chan struct{}), make(chan error, 1)
	server := jsonrpc.NewServer()
	server.MustRegister("textDocument/hover", func(ctx context.Context, uri string) (string, error) {
		var tab int
		if err := peer.FromContext(ctx).Call(ctx, "workspace/configuration", []string{"tabSize"}, &tab); err != nil {
			return "", err
		}
		return strings.Repeat(" ", tab) + uri, nil
	}, jsonrpc.Blocking())
	server.MustRegister("workspace/symbol", func(ctx context.Context, query string) ([]string, error) {
		close(started)
		<-ctx.Done()
		cancelled <- ctx.Err()
		return nil, ctx.Err()
	}, jsonrpc.Blocking())
	editor := jsonrpc.NewServer()
	editor.MustRegister("workspace/configuration", func(section string) int { return 2 })

	ctx := context.Background()
	sc := peer.New(ctx, transport.Carrier{Conn: serverEnd}, peer.Options{Server: server, Protocol: lsp.Protocol()})
	ec := peer.New(ctx, transport.Carrier{Conn: editorEnd}, peer.Options{Server: editor, Protocol: lsp.Protocol(), Caller: true})
	var ended sync.WaitGroup
	ended.Add(2)
	go sc.Run(func(error) { ended.Done() })
	go ec.Run(func(error) { ended.Done() })
	defer ended.Wait()
	defer editorEnd.Close()

	var hover string
	if err := ec.Call(ctx, "textDocument/hover", []string{"file:///a.go"}, &hover); err != nil || hover != "  file:///a.go" {
		t.Fatalf("hover = %q, %v; want the server's answer built from the editor's", hover, err)
	}

	callCtx, cancel := context.WithCancel(ctx)
	result := make(chan error, 1)
	go func() { result <- ec.Call(callCtx, "workspace/symbol", []string{"x"}, nil) }()
	<-started
	cancel()
	if err := <-result; !errors.Is(err, context.Canceled) {
		t.Fatalf("the editor's cancelled call returned %v, want context.Canceled", err)
	}
	if err := <-cancelled; !errors.Is(err, context.Canceled) {
		t.Fatalf("the server's method saw %v, want its context cancelled", err)
	}
	// On the wire: the editor's $/cancelRequest naming the call, and the
	// server's answer to it with the LSP's RequestCancelled code.
	var cancelMsg, answer bool
	for _, m := range editorEnd.sentMessages() {
		var msg struct {
			Method string
			Params struct{ ID json.RawMessage }
		}
		if json.Unmarshal([]byte(m), &msg) == nil && msg.Method == "$/cancelRequest" && len(msg.Params.ID) > 0 {
			cancelMsg = true
		}
	}
	sc.Wait()
	for _, m := range serverEnd.sentMessages() {
		var msg struct{ Error *jsonrpc.Error }
		if json.Unmarshal([]byte(m), &msg) == nil && msg.Error != nil && msg.Error.Code == jsonrpc.CodeCancelled {
			answer = true
		}
	}
	if !cancelMsg || !answer {
		t.Fatalf("$/cancelRequest sent: %v; answered RequestCancelled: %v\neditor sent %q\nserver sent %q", cancelMsg, answer, editorEnd.sentMessages(), serverEnd.sentMessages())
	}
}
